/// Writes MIDI messages as a MIDI 1.0 byte stream, with or without running status.
///
/// Running status follows the specification: a channel message whose status
/// equals the previous channel message's status is sent without its status
/// byte; System Exclusive and system common messages cancel running status;
/// real-time messages leave it alone. The encoder is the inverse of
/// ``MIDIByteParser``, which the property tests rely on.
///
/// - Realtime: unsafe (appends to arrays). For tests, tools and file writers.
public struct MIDIByteEncoder: Sendable {
    /// Whether repeated channel status bytes are omitted.
    public var usesRunningStatus: Bool
    /// The status a receiver would currently apply to bare data bytes, or nil.
    public private(set) var runningStatus: UInt8?

    /// An encoder with no running status yet.
    /// - Thread: writer, control
    /// - Realtime: safe
    public init(usesRunningStatus: Bool) {
        self.usesRunningStatus = usesRunningStatus
    }

    /// Appends `message`. A ``MIDIMessage/systemExclusive(byteCount:endedWithEOX:)``
    /// marker has no payload and appends nothing; use ``appendSysEx(_:to:)``.
    /// - Thread: writer, control
    /// - Realtime: unsafe (appends to an array)
    public mutating func append(_ message: MIDIMessage, to out: inout [UInt8]) {
        if case .systemExclusive = message { return }
        let status = message.statusByte
        let data = message.dataBytes
        if status < 0xF0 {
            if !(usesRunningStatus && runningStatus == status) { out.append(status) }
            runningStatus = status
        } else {
            out.append(status)
            if status < 0xF8 { runningStatus = nil }
        }
        if data.count >= 1 { out.append(data.first) }
        if data.count == 2 { out.append(data.second) }
    }

    /// Appends F0, the payload (each byte masked to 7 bits) and F7; cancels running status.
    public mutating func appendSysEx(_ payload: some Sequence<UInt8>, to out: inout [UInt8]) {
        out.append(0xF0)
        for byte in payload { out.append(byte & 0x7F) }
        out.append(0xF7)
        runningStatus = nil
    }
}
