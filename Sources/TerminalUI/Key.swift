/// A key as the live screens understand it.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case escape

    /// The keys pressed in `bytes`, read as one whole input: what a
    /// `KeyInput` makes of it, presses and repeats only, a lone Esc at the end
    /// taken as the Esc key. Unknown escape sequences give no key.
    public static func parse(_ bytes: [UInt8]) -> [Key] {
        var input = KeyInput()
        let events = input.feed(bytes) + input.flush()
        return events.filter { $0.action != .release }.map(\.key)
    }
}
