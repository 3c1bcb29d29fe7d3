import CALSA

/// One port of the ALSA sequencer as `aconnect -l` shows it: where it is,
/// whose it is, and what it can do. Filled from `snd_seq_query_next_port` in
/// the live code, built by hand in tests: every decision about which ports
/// to connect is a pure function of these.
public struct SequencerPortDescription: Hashable, Sendable, CustomStringConvertible {
    /// `SND_SEQ_PORT_CAP_*`: what others may do with the port.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Events can be read from it: it sends MIDI.
        public static let read = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_READ))
        /// Events can be written to it: it receives MIDI.
        public static let write = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_WRITE))
        /// Others may subscribe to what it sends.
        public static let subscribeRead = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_READ))
        /// Others may subscribe it to what they send.
        public static let subscribeWrite = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE))
        /// The owner asks that no one route it.
        public static let noExport = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_NO_EXPORT))
    }

    /// `SND_SEQ_PORT_TYPE_*`: what kind of thing is behind the port.
    public struct Types: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let midiGeneric = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC))
        /// Implemented in hardware (a card's or a USB device's MIDI port).
        public static let hardware = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_HARDWARE))
        public static let software = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_SOFTWARE))
        public static let synthesizer = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_SYNTHESIZER))
        /// Connects to other devices: a MIDI jack, a USB MIDI endpoint.
        public static let port = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_PORT))
        /// Belongs to an application (a sequencer, a virtual keyboard).
        public static let application = Types(rawValue: UInt32(SND_SEQ_PORT_TYPE_APPLICATION))
    }

    public var address: SequencerAddress
    public var clientName: String
    public var portName: String
    public var capabilities: Capabilities
    public var types: Types

    /// A port as `snd_seq_query_next_port` describes it.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (String work)
    public init(address: SequencerAddress, clientName: String, portName: String,
                capabilities: Capabilities, types: Types) {
        self.address = address
        self.clientName = clientName
        self.portName = portName
        self.capabilities = capabilities
        self.types = types
    }

    /// The client ALSA's snd-seq-dummy module creates (always client 14), which
    /// echoes whatever it gets: connecting it would only loop events back.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (String work)
    public var isMIDIThrough: Bool {
        address.client == 14 || clientName.hasPrefix("Midi Through")
    }

    /// A port Busker can take MIDI from: readable, open to subscription, and
    /// not marked private by its owner.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public var isSource: Bool {
        capabilities.isSuperset(of: [.read, .subscribeRead]) && !capabilities.contains(.noExport)
    }

    /// A MIDI device's output (a keyboard, a pad, a MIDI interface's IN jack):
    /// a source implemented in hardware or connected to a device, other than
    /// the System client and Midi Through. Software sources (a virtual
    /// keyboard, a sequencer) are left to `--midi CLIENT:PORT`.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (String work)
    public var isHardwareSource: Bool {
        isSource && !address.isSystem && !isMIDIThrough && !types.isDisjoint(with: [.hardware, .port])
    }

    /// What `--midi auto` connects to among `ports`: every hardware source
    /// except Busker's own ports, in address order.
    public static func autoConnectSelection(from ports: [SequencerPortDescription],
                                            ownClient: UInt8?) -> [SequencerPortDescription] {
        ports.filter { $0.isHardwareSource && $0.address.client != ownClient }.sorted { $0.address < $1.address }
    }

    /// The ports worth listing as MIDI inputs: every source but the System
    /// client's and Busker's own, in address order.
    public static func sources(in ports: [SequencerPortDescription], ownClient: UInt8?) -> [SequencerPortDescription] {
        ports.filter { $0.isSource && !$0.address.isSystem && $0.address.client != ownClient }
            .sorted { $0.address < $1.address }
    }

    /// "20:0 Keystation Mini 32 / Keystation Mini 32 MIDI 1 (hardware)".
    public var description: String {
        let kind = isHardwareSource ? " (hardware)" : isMIDIThrough ? " (through)" : ""
        return "\(address) \(clientName) / \(portName)\(kind)"
    }
}
