import ALSA
import JACK
import Session

/// Which driver a device session runs on (`--driver alsa|jack`), with its options.
public enum AudioDriverChoice {
    case alsa(DuplexDriver.Options)
    case jack(JACKDriver.Options)
}
