import CALSA

/// An ALSA sequencer port address, `client:port` as `aconnect -l` prints it
/// ("20:0": the first port of the first card's MIDI client).
public struct SequencerAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var client: UInt8
    public var port: UInt8

    public init(client: UInt8, port: UInt8) {
        self.client = client
        self.port = port
    }

    /// The address libasound's struct holds.
    /// - Thread: midi-in
    /// - Realtime: safe
    init(_ address: snd_seq_addr_t) {
        self.init(client: address.client, port: address.port)
    }

    /// System:Announce (0:1), where the kernel reports clients and ports that
    /// come and go, and subscriptions made and broken.
    public static let systemAnnounce = SequencerAddress(client: UInt8(SND_SEQ_CLIENT_SYSTEM), port: UInt8(SND_SEQ_PORT_SYSTEM_ANNOUNCE))

    /// Client 0 is the kernel's System client (timer and announce ports).
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public var isSystem: Bool { client == UInt8(SND_SEQ_CLIENT_SYSTEM) }

    public static func < (a: SequencerAddress, b: SequencerAddress) -> Bool {
        (a.client, a.port) < (b.client, b.port)
    }

    /// "20:0".
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (builds a String)
    public var description: String { "\(client):\(port)" }
}
