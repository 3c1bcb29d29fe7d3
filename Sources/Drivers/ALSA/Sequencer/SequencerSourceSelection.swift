/// What `--midi` asks for: every hardware MIDI source, following devices as
/// they are plugged in and out (`auto`), one port (`CLIENT:PORT`), or several
/// (`--midi` given once for each).
public enum SequencerSourceSelection: Hashable, Sendable, CustomStringConvertible {
    case automatic
    case port(SequencerPortSpecifier)
    /// Two or more ports, each followed as a single port is.
    case ports([SequencerPortSpecifier])

    /// The selection for every `--midi` value given: `auto` alone, or ports.
    /// - Throws: `SequencerError.invalidSpecifier` for a bad port, or `auto` among ports.
    public init(arguments: [String]) throws(SequencerError) {
        guard arguments.count > 1 else {
            try self.init(argument: arguments.first ?? "auto")
            return
        }
        var specifiers: [SequencerPortSpecifier] = []
        for argument in arguments {
            guard argument.lowercased() != "auto" else {
                throw .invalidSpecifier(argument, reason: "auto takes every hardware input: give auto alone, or ports")
            }
            specifiers.append(try SequencerPortSpecifier(parsing: argument))
        }
        self = .ports(specifiers)
    }

    /// Whether the user named the ports (a missing one is an error), rather than `auto`.
    public var isExplicit: Bool {
        if case .automatic = self { return false }
        return true
    }

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
        case .ports(let specifiers):
            var found: [SequencerPortDescription] = []
            for specifier in specifiers {
                let port = try specifier.resolve(in: ports, ownClient: ownClient)
                if !found.contains(port) { found.append(port) }
            }
            return found
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
        case .ports(let specifiers): return specifiers.contains { $0.matches(port) }
        }
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .port(let specifier): specifier.text
        case .ports(let specifiers): specifiers.map(\.text).joined(separator: ", ")
        }
    }
}
