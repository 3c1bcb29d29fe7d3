import ALSA
import JACK
import OfflineDrivers
import Session

/// Which driver a session runs on, with its options: ALSA devices or a
/// JACK client (`--driver alsa|jack`), or files offline.
public enum AudioDriverChoice {
    case alsa(DuplexDriver.Options)
    case jack(JACKDriver.Options)
    /// An audio file through the chain into another, offline, with the
    /// output file's channels (`busker live --input file: --output file:`).
    case file(FileRenderDriver.Options, outputChannels: Int)
    /// Sources with no input (instruments playing a song) into a file, offline (`busker render`).
    case song(SongRenderDriver.Options)
}
