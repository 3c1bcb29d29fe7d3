/// A line of a MIDI control map that cannot be read: one line of text naming
/// the line (when the map came from a file), what was written and why.
public struct MIDIControlMapError: Error, Equatable, CustomStringConvertible {
    /// The 1-based line in the file, when known.
    public var line: Int?
    /// The line as written, when known.
    public var text: String?
    public var problem: String

    public init(line: Int? = nil, text: String? = nil, problem: String) {
        self.line = line
        self.text = text
        self.problem = problem
    }

    public var description: String { (line.map { "line \($0): " } ?? "") + message }

    /// The line as written and what is wrong with it, without the line number
    /// (for a reader that names the file and line itself).
    public var message: String { (text.map { "'\($0)': " } ?? "") + problem }
}
