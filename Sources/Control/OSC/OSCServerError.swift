/// Why an OSC server cannot listen. Each description is one line for the user.
public enum OSCServerError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The bind address is not a numeric IPv4 or IPv6 address.
    case addressNotNumeric(String)
    /// The system gave no UDP socket, or no pipe to wake the receive thread.
    case noSocket(reason: String)
    case noPipe(reason: String)
    /// The system refused `address`:`port`; `inUse`: another program has it.
    case cannotListen(address: String, port: Int, reason: String, inUse: Bool)

    public var description: String {
        switch self {
        case let .addressNotNumeric(address):
            "the OSC address must be numeric, such as 127.0.0.1, 0.0.0.0 or ::1; not '\(address)'"
        case let .noSocket(reason): "OSC: cannot open a UDP socket: \(reason)"
        case let .noPipe(reason): "OSC: cannot make a pipe: \(reason)"
        case let .cannotListen(address, port, reason, inUse):
            "OSC: cannot listen on \(address) port \(port): \(reason)" + (inUse ? " (another program has it)" : "")
        }
    }

    /// Whether the address asked for cannot be (rather than the system refusing it).
    public var isRequestError: Bool {
        if case .addressNotNumeric = self { return true }
        return false
    }
}
