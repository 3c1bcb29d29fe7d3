import Chains

extension CommandLineError {
    /// A chain that cannot be built, as the command line reports it: what was
    /// asked for that cannot be is a usage error (exit 2), named by the option
    /// that asked; a file that cannot be read is a runtime failure (exit 1).
    public init(_ error: ChainError) {
        let message = switch error {
        case .missingInputChannel: "--inputs: \(error.description)"
        case .instrumentNotInFont:
            "\(error.description); busker instruments lists the SoundFont's own names"
        case let .bankConflict(instrument, presetBank, bank):
            "--instrument \(instrument) is bank \(presetBank) and --bank says \(bank): give one of them"
        default: error.description
        }
        self = error.isRequestError ? .usage(message) : .runtime(message)
    }
}
