/// Turns a MIDI 1.0 byte stream (a DIN cable, a raw ALSA MIDI device, a FIFO)
/// into ``MIDIMessage``s, one byte at a time, following the specification exactly.
///
/// The rules it implements (MIDI 1.0 Detailed Specification):
/// - **Running status.** After a channel message, data bytes without a status
///   byte repeat that status. System common messages (F1–F7) and SysEx (F0)
///   cancel it; further data bytes are stray until the next status byte.
/// - **Real-time bytes (F8–FF) anywhere**, including between a status byte and
///   its data and inside SysEx. They are delivered at once and change nothing
///   else: running status, a half-received message and a SysEx in progress
///   all continue after them. (FluidSynth's parser drops running status here;
///   this one does not.)
/// - **SysEx of any length in fixed memory.** Data bytes are collected in a
///   ``sysExChunkCapacity``-byte buffer inside the parser and handed out as a
///   chunk whenever it is full and at the end (real-time bytes inside SysEx do
///   not cut a chunk). Any status byte other than a real-time byte ends a
///   SysEx: F7 normally, anything else "interrupted" (counted, and then
///   processed as itself). The end is always reported by a
///   ``MIDIMessage/systemExclusive(byteCount:endedWithEOX:)`` message, whose
///   `byteCount` is exact however long the SysEx was.
/// - **Undefined status bytes** F4 and F5 cancel running status and the
///   message in progress (their data bytes, if any, become stray); F9 and FD are
///   real-time and are ignored without disturbing anything. All are counted.
/// - **Stray data bytes** and **incomplete messages** are skipped and counted in
///   ``statistics``; nothing is fatal.
///
/// The parser is a small value type with fixed storage: no heap, no classes,
/// nothing that grows. One instance per input stream; not shared between threads.
///
/// - Realtime: safe. `parse` neither allocates nor locks; it can run on the
///   MIDI input thread or the audio thread.
public struct MIDIByteParser: Sendable {
    /// The size of the SysEx chunks the handler receives, at most.
    public static let sysExChunkCapacity = 64  // the size of `sysExBuffer`

    // MARK: Message in progress

    /// The status whose data bytes are being collected: the running status for
    /// channel messages, or F1–F3 for a system common message; 0 for none.
    private var currentStatus: UInt8 = 0
    /// The first data byte of a two-byte message, once received.
    private var firstDataByte: UInt8 = 0
    /// How many data bytes of the current message have arrived (0 or 1).
    private var receivedDataBytes: UInt8 = 0
    /// True from a status byte, or a first running-status data byte, until the
    /// message completes: a status byte arriving now abandons a message.
    private var isMessagePending = false

    // MARK: SysEx in progress

    private var isInSysEx = false
    private var isFirstSysExChunk = true
    private var sysExByteCount = 0
    private var sysExBuffered = 0
    private var sysExBuffer = InlineArray<64, UInt8>(repeating: 0)

    // MARK: Counters

    /// What was skipped so far.
    public private(set) var statistics = MIDIParserStatistics()

    /// A parser at power-up: no running status, nothing in progress, no statistics.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public init() {}

    /// The status that bare data bytes would use now (0x80–0xEF), or nil.
    public var runningStatus: UInt8? { currentStatus >= 0x80 && currentStatus < 0xF0 ? currentStatus : nil }

    /// True while a SysEx message is being received.
    public var isReceivingSysEx: Bool { isInSysEx }

    /// Forgets the message in progress, running status and any SysEx in progress
    /// (without delivering it), as after power-up. Keeps the statistics.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public mutating func reset() {
        currentStatus = 0
        receivedDataBytes = 0
        isMessagePending = false
        isInSysEx = false
        sysExBuffered = 0
        sysExByteCount = 0
    }

    /// Feeds one byte; calls `handler` zero or more times with what it completes
    /// (at most twice: the end of an interrupted SysEx, then the interrupting message).
    /// - Thread: midi-in, control
    /// - Realtime: safe (`handler` must be too)
    @inlinable
    public mutating func parse(_ byte: UInt8, _ handler: (MIDIParserOutput) -> Void) {
        if byte >= 0xF8 {
            // Real-time: deliver now, touch nothing else.
            if let message = MIDIMessage(realTimeByte: byte) {
                handler(.message(message))
            } else {
                noteUndefinedRealTime()
            }
            return
        }
        parseNonRealTime(byte, handler)
    }

    /// Feeds every byte of `bytes` in order.
    /// - Realtime: safe when `bytes` is (e.g. an `UnsafeBufferPointer`).
    @inlinable
    public mutating func parse(_ bytes: some Sequence<UInt8>, _ handler: (MIDIParserOutput) -> Void) {
        for byte in bytes { parse(byte, handler) }
    }

    /// Counts an undefined real-time byte (0xF9, 0xFD).
    /// - Thread: midi-in, control
    /// - Realtime: safe
    @usableFromInline
    mutating func noteUndefinedRealTime() {
        statistics.undefinedStatusBytes += 1
    }

    /// Feeds one byte below 0xF8: a SysEx data byte, a data byte, or a status byte.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    @usableFromInline
    mutating func parseNonRealTime(_ byte: UInt8, _ handler: (MIDIParserOutput) -> Void) {
        if isInSysEx {
            if byte < 0x80 {
                sysExBuffer[sysExBuffered] = byte
                sysExBuffered += 1
                sysExByteCount &+= 1
                if sysExBuffered == Self.sysExChunkCapacity { flushSysEx(handler) }
                return
            }
            // Any status byte ends SysEx; F7 is the proper end.
            flushSysEx(handler)
            isInSysEx = false
            let endedWithEOX = byte == 0xF7
            if !endedWithEOX { statistics.interruptedSysEx += 1 }
            handler(.message(.systemExclusive(byteCount: sysExByteCount, endedWithEOX: endedWithEOX)))
            if endedWithEOX { return }
            // The interrupting status byte is then a message of its own.
        }

        if byte < 0x80 {
            parseDataByte(byte, handler)
            return
        }

        // A status byte (0x80–0xF7). Whatever was half received is abandoned.
        if isMessagePending { statistics.incompleteMessages += 1 }
        isMessagePending = false
        receivedDataBytes = 0

        switch byte {
        case 0x80...0xEF:
            currentStatus = byte
            isMessagePending = true
        case 0xF0:
            currentStatus = 0
            isInSysEx = true
            isFirstSysExChunk = true
            sysExByteCount = 0
            sysExBuffered = 0
        case 0xF1, 0xF2, 0xF3:
            currentStatus = byte
            isMessagePending = true
        case 0xF6:
            currentStatus = 0
            handler(.message(.tuneRequest))
        case 0xF7:
            currentStatus = 0
            statistics.strayEndOfExclusiveBytes += 1
        default:  // 0xF4, 0xF5: undefined system common; their data bytes, if any, are meaningless.
            currentStatus = 0
            statistics.undefinedStatusBytes += 1
        }
    }

    /// Feeds one data byte outside SysEx, completing a message when it is the last.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    private mutating func parseDataByte(_ byte: UInt8, _ handler: (MIDIParserOutput) -> Void) {
        guard currentStatus != 0 else {
            statistics.strayDataBytes += 1
            return
        }
        // 1 or 2: every status kept in currentStatus has a fixed length.
        let needed: UInt8 = switch currentStatus {
        case 0xC0...0xDF, 0xF1, 0xF3: 1
        default: 2
        }
        if receivedDataBytes + 1 < needed {
            firstDataByte = byte
            receivedDataBytes += 1
            isMessagePending = true
            return
        }
        let message = needed == 1
            ? MIDIMessage(status: currentStatus, data1: byte)
            : MIDIMessage(status: currentStatus, data1: firstDataByte, data2: byte)
        receivedDataBytes = 0
        isMessagePending = false
        // System common messages cancel running status; channel messages keep it.
        if currentStatus >= 0xF0 { currentStatus = 0 }
        if let message { handler(.message(message)) }
    }

    /// Hands the buffered SysEx bytes to `handler` as one chunk, if there are any.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    private mutating func flushSysEx(_ handler: (MIDIParserOutput) -> Void) {
        guard sysExBuffered > 0 else { return }
        let count = sysExBuffered
        let isFirst = isFirstSysExChunk
        sysExBuffered = 0
        isFirstSysExChunk = false
        sysExBuffer.span.withUnsafeBufferPointer { all in
            handler(.sysExData(UnsafeBufferPointer(rebasing: all[..<count]), isFirst: isFirst))
        }
    }
}
