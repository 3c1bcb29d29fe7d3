// The MIDI message model, parser and file reader live here.
