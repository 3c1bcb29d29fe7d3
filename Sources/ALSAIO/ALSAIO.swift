// The ALSA I/O core lives here (see DuplexDriver.swift).
