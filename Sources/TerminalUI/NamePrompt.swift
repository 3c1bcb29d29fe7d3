/// A one-line text prompt on the screen's bottom line, for a name: typed
/// characters add to it, Backspace takes one back, Ctrl-U clears it, Enter
/// accepts it and Esc cancels. The live screen asks for a preset's name with it.
public struct NamePrompt: Equatable {
    /// What the prompt asks ("save as").
    public let label: String
    public private(set) var text: String
    /// Names longer than this are not names.
    public static let maximumLength = 64

    public enum Outcome: Equatable {
        case editing
        case accepted(String)
        case cancelled
    }

    public init(label: String, text: String = "") {
        self.label = label
        self.text = text
    }

    /// Takes one key. Enter with nothing typed keeps editing.
    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape: return .cancelled
        case .character("\r"), .character("\n"):
            return text.isEmpty ? .editing : .accepted(text)
        case .character("\u{7F}"), .character("\u{08}"):
            if !text.isEmpty { text.removeLast() }
        case .character("\u{15}"):  // Ctrl-U
            text = ""
        case .character(let c):
            let printable = c.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
            if printable && text.count < Self.maximumLength { text.append(c) }
        default:
            break
        }
        return .editing
    }

    /// The bottom line: `save as: gig█  Enter saves, Esc cancels`.
    public var line: String {
        "  \(label): \u{1B}[1m\(text)\u{1B}[0m█  \u{1B}[2mEnter saves, Esc cancels\u{1B}[0m"
    }
}
