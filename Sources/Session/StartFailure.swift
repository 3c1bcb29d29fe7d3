/// Why audio could not start (or start again) on the chosen route.
public struct StartFailure: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Another program holds the device (`-EBUSY`).
        case busy
        /// The device is not there (unplugged, its server not running, no such PCM).
        case missing
        /// Anything else (a refused format, a failed prepare…).
        case other
    }

    public var kind: Kind
    /// The PCM name that failed.
    public var device: String
    /// The one line the user sees, naming the device (and the holder, where known).
    public var message: String

    public init(kind: Kind, device: String, message: String) {
        self.kind = kind
        self.device = device
        self.message = message
    }

    public var description: String { message }
}
