/// Turns the bytes a terminal sends into key events, legacy input and the
/// kitty keyboard protocol alike.
///
/// Every escape sequence is consumed whole: a CSI sequence (`ESC [`) runs to
/// its final byte (0x40–0x7E), an SS3 sequence (`ESC O x`) is three bytes, and
/// `ESC` with any other byte is an Alt-key. A sequence Busker knows becomes a
/// key; any other (F5 `ESC [ 1 5 ~`, Ctrl-Right `ESC [ 1 ; 5 C`, Alt-keys,
/// function and modifier keys) becomes nothing, never letters. A sequence cut
/// between two reads waits for the rest.
///
/// Kitty protocol events `CSI code[:shifted] ; modifiers[:type] u` give the
/// key with its action (type 1 press, 2 repeat, 3 release); arrows come as
/// `CSI 1 ; modifiers:type A…D`.
public struct KeyInput: Sendable {
    /// The start of a sequence not yet complete.
    private var pending: [UInt8] = []
    /// A CSI sequence longer than this is garbage: it is dropped.
    private static let longestSequence = 64

    public init() {}

    /// The events in `bytes` (one read), after whatever an earlier read left incomplete.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [KeyEvent] {
        let input = pending + bytes
        pending.removeAll()
        var events: [KeyEvent] = []
        var i = 0
        while i < input.count {
            let b = input[i]
            guard b == 0x1B else {
                if b < 0x80 { events.append(KeyEvent(.character(Character(Unicode.Scalar(b))), keyCode: UInt32(b))) }
                i += 1
                continue
            }
            guard i + 1 < input.count else {
                pending = [b]  // a lone Esc, or the start of a sequence: `flush` decides
                break
            }
            switch input[i + 1] {
            case UInt8(ascii: "["):
                var end = i + 2
                while end < input.count, (0x20...0x3F).contains(input[end]) { end += 1 }
                if end == input.count {
                    if end - i <= Self.longestSequence { pending = Array(input[i...]) }
                    i = end
                    continue
                }
                guard (0x40...0x7E).contains(input[end]) else {
                    i = end  // broken off by a control byte: drop what came before it
                    continue
                }
                if let event = Self.csi(parameters: input[(i + 2)..<end], final: input[end]) { events.append(event) }
                i = end + 1
            case UInt8(ascii: "O"):
                guard i + 2 < input.count else {
                    pending = Array(input[i...])
                    i = input.count
                    continue
                }
                if let key = Self.arrow(input[i + 2]) { events.append(KeyEvent(key, keyCode: Self.keyCode(key))) }
                i += 3
            case 0x1B:
                events.append(KeyEvent(.escape, keyCode: 27))
                i += 1
            default:
                i += 2  // Alt with a key: nothing Busker binds
            }
        }
        return events
    }

    /// Called when a read found nothing more: a lone Esc left over is the Esc
    /// key. An incomplete sequence keeps waiting for its end.
    public mutating func flush() -> [KeyEvent] {
        guard pending == [0x1B] else { return [] }
        pending.removeAll()
        return [KeyEvent(.escape, keyCode: 27)]
    }

    private static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        default: nil
        }
    }

    /// Arrows have no code point: codes above Unicode's range stand for them.
    private static func keyCode(_ arrow: Key) -> UInt32 {
        switch arrow {
        case .up: 0x11_0000
        case .down: 0x11_0001
        case .right: 0x11_0002
        default: 0x11_0003
        }
    }

    /// Modifier bits of the kitty protocol (the field carries 1 + the bits).
    private static let shift = 1, alt = 2, control = 4, locks = 64 | 128

    /// One CSI sequence: a known key, or nil.
    private static func csi(parameters: ArraySlice<UInt8>, final: UInt8) -> KeyEvent? {
        // Private markers (`<=>?`) and intermediate bytes: replies and modes, no keys.
        guard parameters.allSatisfy({ (0x30...0x3B).contains($0) }) else { return nil }
        let fields = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { field in
            field.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { number(in: $0) }
        }
        func value(_ field: Int, _ part: Int) -> Int? {
            field < fields.count && part < fields[field].count ? fields[field][part] : nil
        }
        let modifiers = (value(1, 0) ?? 1) - 1
        let action: KeyEvent.Action
        switch value(1, 1) ?? 1 {
        case 1: action = .press
        case 2: action = .repeat
        case 3: action = .release
        default: return nil
        }
        guard modifiers >= 0 else { return nil }
        let held = modifiers & ~locks
        if final == UInt8(ascii: "u") {
            guard let code = value(0, 0), let key = kittyKey(code: code, shifted: value(0, 1), modifiers: held) else { return nil }
            return KeyEvent(key, action, keyCode: UInt32(code))
        }
        // Plain arrows only (`CSI A`, `CSI 1 ; 1:3 A`): with modifiers they are other keys.
        guard let key = arrow(final), held == 0, fields.count <= 2, value(0, 0) ?? 1 == 1 else { return nil }
        return KeyEvent(key, action, keyCode: keyCode(key))
    }

    /// The key of a kitty `u` event, or nil for keys Busker does not bind
    /// (function, keypad and modifier keys, Alt and Super combinations).
    private static func kittyKey(code: Int, shifted: Int?, modifiers: Int) -> Key? {
        switch code {
        case 27: return modifiers == 0 ? .escape : nil
        case 13, 9, 127, 8:
            return modifiers & ~shift == 0 ? .character(Character(Unicode.Scalar(UInt8(code)))) : nil
        default: break
        }
        guard modifiers & ~(shift | control) == 0, (32..<0xE000).contains(code) || (0xF900...0x10FFFF).contains(code),
              let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
        if modifiers & control != 0 {
            // Ctrl with a letter is the control character legacy input sends (Ctrl-R is 0x12).
            guard modifiers == control, (97...122).contains(code) else { return nil }
            return .character(Character(Unicode.Scalar(UInt8(code - 96))))
        }
        guard modifiers & shift != 0 else { return .character(Character(scalar)) }
        if let shifted, let shiftedScalar = Unicode.Scalar(UInt32(shifted)) { return .character(Character(shiftedScalar)) }
        return String(scalar).uppercased().first.map { .character($0) }
    }

    private static func number(in digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
