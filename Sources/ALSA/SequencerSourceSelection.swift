/// What `--midi` asks for: every hardware MIDI source, following devices as
/// they are plugged in and out (`auto`), or one port (`CLIENT:PORT`).
public enum SequencerSourceSelection: Hashable, Sendable, CustomStringConvertible {
    case automatic
    case port(SequencerPortSpecifier)

    /// Parses the `--midi` argument: `auto`, or a port as `SequencerPortSpecifier` takes it.
    /// - Throws: `SequencerError.invalidSpecifier`.
    public init(argument: String) throws(SequencerError) {
        if argument.lowercased() == "auto" {
            self = .automatic
        } else {
            self = .port(try SequencerPortSpecifier(parsing: argument))
        }
    }

    /// The sources to subscribe to at start, among every port of the sequencer.
    /// `auto` with no hardware source is not an error: Busker waits for one.
    /// - Throws: for a single port, what `SequencerPortSpecifier.resolve` throws.
    public func initialSources(among ports: [SequencerPortDescription], ownClient: UInt8?) throws(SequencerError) -> [SequencerPortDescription] {
        switch self {
        case .automatic:
            return SequencerPortDescription.autoConnectSelection(from: ports, ownClient: ownClient)
        case .port(let specifier):
            return [try specifier.resolve(in: ports, ownClient: ownClient)]
        }
    }

    /// Whether a port that has just appeared should be subscribed to: any
    /// hardware source under `auto`; the chosen port when it comes back.
    /// - Thread: midi-in
    /// - Realtime: unsafe (allocates: names are compared ignoring case)
    public func follows(_ port: SequencerPortDescription, ownClient: UInt8?) -> Bool {
        guard port.address.client != ownClient, port.isSource else { return false }
        switch self {
        case .automatic: return port.isHardwareSource
        case .port(let specifier): return specifier.matches(port)
        }
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .port(let specifier): specifier.text
        }
    }
}
