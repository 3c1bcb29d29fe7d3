/// Why a session could not do what its description asked, in one line that
/// says what is wrong. The executable decides what it means for the exit
/// status: a request that cannot be (`invalidRequest`) is a usage error, a
/// failure (`failed`) a runtime one.
public enum SessionError: Error, Equatable, CustomStringConvertible {
    /// The description asks for what cannot be (a bad MIDI source name, two
    /// choices that contradict each other).
    case invalidRequest(String)
    /// What was asked could not be done: a device or server refused, a file
    /// could not be read or written, a take stopped early, the audio was lost.
    case failed(String)

    public var description: String {
        switch self {
        case let .invalidRequest(message), let .failed(message): message
        }
    }
}
