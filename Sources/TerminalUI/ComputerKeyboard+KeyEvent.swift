import MIDI

extension ComputerKeyboard {
    /// What one key event plays, from a terminal that reports releases (the
    /// kitty keyboard protocol): a bound key's press is `keyDown`, any release
    /// `keyUp`, and the auto-repeat of a character or octave key nothing; the
    /// arrows ← → step the octave as `[` `]` do.
    /// - Returns: the messages to send, or nil when the event is not the
    ///   keyboard's (the screen handles it as a press: Esc, space, ↑ ↓…).
    public mutating func play(_ event: KeyEvent, at now: Double) -> [MIDIMessage]? {
        switch (event.action, event.key) {
        case (.release, _):
            return keyUp(keyCode: event.keyCode, at: now)
        case (.repeat, .character), (.repeat, .left), (.repeat, .right):
            return []
        case (.press, .left):
            return keyDown("[", keyCode: event.keyCode, at: now)
        case (.press, .right):
            return keyDown("]", keyCode: event.keyCode, at: now)
        case (.press, .character(let c)) where Self.binding(for: c) != nil:
            return keyDown(c, keyCode: event.keyCode, at: now)
        default:
            return nil
        }
    }
}
