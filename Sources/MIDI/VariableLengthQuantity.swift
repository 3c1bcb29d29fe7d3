/// The variable-length quantities of Standard MIDI Files: 7 bits per byte,
/// most significant group first, bit 7 set on every byte but the last. The SMF
/// specification limits them to 4 bytes, so values up to 0x0FFFFFFF.
public enum VariableLengthQuantity {
    /// The largest value a 4-byte quantity can hold.
    public static let maximum: UInt32 = 0x0FFF_FFFF

    /// The bytes that encode `value`, 1–4 of them. Values above ``maximum`` are clamped.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    public static func encode(_ value: UInt32) -> [UInt8] {
        var remaining = min(value, maximum)
        var groups: [UInt8] = [UInt8(remaining & 0x7F)]
        remaining >>= 7
        while remaining > 0 {
            groups.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        return groups.reversed()
    }

    /// Decodes a quantity from the start of `bytes`.
    /// - Returns: the value and how many bytes it used, or nil when `bytes` ends
    ///   inside the quantity or it would be longer than 4 bytes.
    public static func decode(_ bytes: some Collection<UInt8>) -> (value: UInt32, byteCount: Int)? {
        var value: UInt32 = 0
        var count = 0
        for byte in bytes {
            value = value << 7 | UInt32(byte & 0x7F)
            count += 1
            if byte & 0x80 == 0 { return (value, count) }
            if count == 4 { return nil }
        }
        return nil
    }
}
