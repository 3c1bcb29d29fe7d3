import Control

extension CommandLineError {
    /// An OSC server that cannot listen, as the command line reports it: an
    /// address that is not numeric is a usage error of `--osc-bind` (exit 2);
    /// the system refusing the port is a runtime failure (exit 1).
    public init(_ error: OSCServerError) {
        switch error {
        case let .addressNotNumeric(address):
            self = .usage("--osc-bind takes a numeric address such as 127.0.0.1, 0.0.0.0 or ::1; not '\(address)'")
        case let .cannotListen(address, port, reason, inUse):
            let hint = inUse ? " (another program has it: choose another --osc port)" : ""
            self = .runtime("OSC: cannot listen on \(address) port \(port): \(reason)\(hint)")
        case .noSocket, .noPipe:
            self = .runtime(error.description)
        }
    }
}
