/// What one UDP datagram held: an OSC message, or a bundle of messages and
/// bundles (OSC 1.0). Bundles are unpacked here, their elements in order and
/// at once: the time tag is ignored (a control surface sends "now"), so a
/// bundle never waits in a queue. Each message is decoded by liblo
/// (`OSCMessage(bytes:)`); what does not decode is counted, never guessed at.
///
/// - Realtime: unsafe (allocates). The OSC receive thread, or a test.
public struct OSCPacket: Equatable, Sendable {
    /// The messages, in the order they came.
    public var messages: [OSCMessage] = []
    /// Elements that were not a well-formed message or bundle (the whole
    /// datagram counts as one when it is neither).
    public var malformed = 0

    /// Bundles nested deeper than this are malformed (the datagram's size
    /// bounds the work anyway; this bounds the recursion).
    public static let maximumBundleDepth = 8
    /// Most messages taken from one datagram; the rest count as malformed.
    public static let maximumMessages = 256

    private static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    public init(bytes: UnsafeRawBufferPointer) {
        decode(bytes, depth: 0)
    }

    public init(bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { OSCPacket(bytes: $0) }
    }

    private mutating func decode(_ bytes: UnsafeRawBufferPointer, depth: Int) {
        guard bytes.count >= 8, bytes.starts(with: Self.bundleTag) else {
            if messages.count < Self.maximumMessages, let message = OSCMessage(bytes: bytes) {
                messages.append(message)
            } else {
                malformed += 1
            }
            return
        }
        // "#bundle\0", an 8-byte time tag, then elements: a big-endian size and that many bytes.
        guard depth < Self.maximumBundleDepth, bytes.count >= 16 else {
            malformed += 1
            return
        }
        var offset = 16
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                malformed += 1
                return
            }
            let size = Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            offset += 4
            guard size > 0, size % 4 == 0, size <= bytes.count - offset else {
                malformed += 1
                return
            }
            decode(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)]), depth: depth + 1)
            offset += size
        }
    }

    /// A bundle of `elements` (each a message's or bundle's bytes) with the
    /// time tag "immediately": for tests and tools.
    public static func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        var bytes = bundleTag + [0, 0, 0, 0, 0, 0, 0, 1]
        for element in elements {
            withUnsafeBytes(of: UInt32(element.count).bigEndian) { bytes += $0 }
            bytes += element
        }
        return bytes
    }
}
