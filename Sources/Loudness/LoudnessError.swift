import AudioFiles

/// Why loudness could not be measured.
public enum LoudnessError: Error, CustomStringConvertible, Equatable {
    /// libebur128 takes 1…64 channels at 16 Hz…2.8 MHz.
    case unsupported(channels: Int, sampleRate: Int)
    /// The file could not be opened or read.
    case file(AudioFileError)

    public var description: String {
        switch self {
        case let .unsupported(channels, sampleRate):
            "cannot measure loudness of \(channels) channel(s) at \(sampleRate) Hz"
        case let .file(error): error.description
        }
    }
}
