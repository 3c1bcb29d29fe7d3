/// One key event read from the terminal: a press, an auto-repeat, or (from a
/// terminal speaking the kitty keyboard protocol) a release.
public struct KeyEvent: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case press, `repeat`, release
    }

    public var key: Key
    public var action: Action
    /// Which physical key it was, so a release finds its press whatever the
    /// modifiers did in between: the kitty protocol's key code (the unshifted
    /// key's Unicode code point), or the character's code point in legacy input.
    public var keyCode: UInt32

    public init(_ key: Key, _ action: Action = .press, keyCode: UInt32) {
        self.key = key
        self.action = action
        self.keyCode = keyCode
    }
}
