/// One piece of sung text with its time: a syllable or word from a `.kar`
/// karaoke file or from lyric meta events.
public struct MIDILyric: Equatable, Hashable, Sendable {
    public var tick: Int
    public var seconds: Double
    /// The text to show, without the karaoke line markers.
    public var text: String
    /// The text begins a new line (a `/` in `.kar` files).
    public var startsLine: Bool
    /// The text begins a new paragraph or verse (a `\` in `.kar` files).
    public var startsParagraph: Bool

    public init(tick: Int, seconds: Double, text: String, startsLine: Bool = false, startsParagraph: Bool = false) {
        self.tick = tick
        self.seconds = seconds
        self.text = text
        self.startsLine = startsLine
        self.startsParagraph = startsParagraph
    }
}
