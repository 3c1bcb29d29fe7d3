/// What ``MIDIByteParser`` hands to its handler for one input byte.
///
/// A complete SysEx message arrives as zero or more ``sysExData(_:isFirst:)``
/// chunks of at most ``MIDIByteParser/sysExChunkCapacity`` bytes each, followed
/// by a ``message(_:)`` carrying ``MIDIMessage/systemExclusive(byteCount:endedWithEOX:)``.
/// Real-time messages may arrive between the chunks, exactly where they were in
/// the stream.
public enum MIDIParserOutput {
    /// A complete message. For SysEx, the marker that ends it.
    case message(MIDIMessage)
    /// SysEx data bytes (F0 and F7 excluded), valid only during the handler call:
    /// copy them out if they must outlive it. `isFirst` is true for the first
    /// chunk of a SysEx message.
    case sysExData(UnsafeBufferPointer<UInt8>, isFirst: Bool)
}
