/// One sequencer port named the way `aconnect` takes it: `20:0` (numbers,
/// `20.0` too), `Keystation:0` (a client name, or the start of one, and a
/// port number), or `Keystation` (port 0 of that client).
///
/// Parsing checks only the form; `resolve(in:ownClient:)` finds the port
/// among those that exist, so the error can list what does.
public struct SequencerPortSpecifier: Hashable, Sendable, CustomStringConvertible {
    /// How the client is named.
    public enum Client: Hashable, Sendable {
        case number(UInt8)
        /// An exact client name or the start of one.
        case name(String)
    }

    public var client: Client
    public var port: UInt8
    /// What the user typed (trimmed), for messages.
    public var text: String

    public init(client: Client, port: UInt8) {
        self.client = client
        self.port = port
        switch client {
        case .number(let number): text = "\(number):\(port)"
        case .name(let name): text = "\(name):\(port)"
        }
    }

    /// Parses `20:0`, `20.0`, `20`, `Keystation:0`, `Keystation`.
    /// A name may hold colons; the port is the number after the last one.
    /// - Throws: `SequencerError.invalidSpecifier`.
    public init(parsing raw: String) throws(SequencerError) {
        let trimmed = raw.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .invalidSpecifier(raw, reason: "empty") }
        text = trimmed
        var clientPart = Substring(trimmed)
        var portPart: Substring?
        if let colon = trimmed.lastIndex(of: ":") {
            clientPart = trimmed[..<colon]
            portPart = trimmed[trimmed.index(after: colon)...]
        } else if let dot = trimmed.firstIndex(of: "."), trimmed[..<dot].allSatisfy(\.isASCIIDigit),
                  !trimmed[..<dot].isEmpty {
            // aconnect also takes 20.0; only for a numeric client, as names may hold dots.
            clientPart = trimmed[..<dot]
            portPart = trimmed[trimmed.index(after: dot)...]
        }
        clientPart = Substring(String(clientPart).trimmingWhitespace)
        guard !clientPart.isEmpty else { throw .invalidSpecifier(raw, reason: "no client before the port") }
        if let portPart {
            let digits = String(portPart).trimmingWhitespace
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
                throw .invalidSpecifier(raw, reason: "the port after ':' must be a number")
            }
            guard let number = UInt8(digits) else { throw .invalidSpecifier(raw, reason: "port \(digits) is out of range (0…255)") }
            port = number
        } else {
            port = 0
        }
        if clientPart.allSatisfy(\.isASCIIDigit) {
            guard let number = UInt8(clientPart) else {
                throw .invalidSpecifier(raw, reason: "client \(clientPart) is out of range (0…255)")
            }
            client = .number(number)
        } else {
            client = .name(String(clientPart))
        }
    }

    /// The port this names among `ports` (every port of the sequencer, as
    /// listed). A name matches exactly first, else as the start of a client
    /// name, else the same ignoring case; Busker's own client never matches.
    /// - Throws: `SequencerError.portNotFound` (listing the sources that
    ///   exist), `.ambiguousClient`, or `.notASource` for a port that exists
    ///   but sends nothing to subscribe to.
    public func resolve(in ports: [SequencerPortDescription], ownClient: UInt8?) throws(SequencerError) -> SequencerPortDescription {
        let candidates = ports.filter { $0.address.client != ownClient }
        let clientNumber: UInt8
        switch client {
        case .number(let number):
            clientNumber = number
        case .name(let name):
            let matches = Self.clientsMatching(name, in: candidates)
            if matches.count > 1 {
                throw .ambiguousClient(text, candidates: matches.map { "\($0.number) \($0.name)" })
            }
            guard let match = matches.first else {
                throw .portNotFound(text, available: SequencerPortDescription.sources(in: ports, ownClient: ownClient))
            }
            clientNumber = match.number
        }
        let address = SequencerAddress(client: clientNumber, port: port)
        guard let found = candidates.first(where: { $0.address == address }) else {
            throw .portNotFound(text, available: SequencerPortDescription.sources(in: ports, ownClient: ownClient))
        }
        guard found.isSource else { throw .notASource(found) }
        return found
    }

    /// Whether `port` is the one this names (for reconnecting a device that
    /// was unplugged and came back, perhaps under another client number).
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates: names are compared ignoring case)
    public func matches(_ port: SequencerPortDescription) -> Bool {
        guard port.address.port == self.port else { return false }
        switch client {
        case .number(let number):
            return port.address.client == number
        case .name(let name):
            return Self.nameMatches(name, port.clientName, level: .exact)
                || Self.nameMatches(name, port.clientName, level: .prefix)
                || Self.nameMatches(name, port.clientName, level: .prefixIgnoringCase)
        }
    }

    public var description: String { text }

    // MARK: Name matching

    private enum MatchLevel: CaseIterable { case exact, prefix, prefixIgnoringCase }

    /// Whether `clientName` fits `wanted` at `level`.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates)
    private static func nameMatches(_ wanted: String, _ clientName: String, level: MatchLevel) -> Bool {
        switch level {
        case .exact: clientName == wanted
        case .prefix: clientName.hasPrefix(wanted)
        case .prefixIgnoringCase: clientName.lowercased().hasPrefix(wanted.lowercased())
        }
    }

    /// The distinct clients that `name` fits at the strictest level any fits.
    private static func clientsMatching(_ name: String, in ports: [SequencerPortDescription]) -> [(number: UInt8, name: String)] {
        var clients: [(number: UInt8, name: String)] = []
        for port in ports where !clients.contains(where: { $0.number == port.address.client }) {
            clients.append((port.address.client, port.clientName))
        }
        clients.sort { $0.number < $1.number }
        for level in MatchLevel.allCases {
            let found = clients.filter { nameMatches(name, $0.name, level: level) }
            if !found.isEmpty { return found }
        }
        return []
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
