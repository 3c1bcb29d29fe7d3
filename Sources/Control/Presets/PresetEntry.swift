/// One `key = value` line of a preset file. The line number (from 1) is kept
/// so that whoever reads the value can name the line in an error; entries made
/// in memory have line 0. Two entries are equal when key and value are.
public struct PresetEntry: Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var value: String
    public var line: Int

    public init(_ key: String, _ value: String, line: Int = 0) {
        self.key = key
        self.value = value
        self.line = line
    }

    public static func == (a: PresetEntry, b: PresetEntry) -> Bool { a.key == b.key && a.value == b.value }

    /// `key = value`, as the file spells it.
    public var description: String { "\(key) = \(value)" }

    /// `key = value` as a message quotes it: escaped, each side cut to `TerminalText.valueLimit` characters.
    public var quoted: String { "\(TerminalText.shown(key)) = \(TerminalText.shown(value))" }

    /// An error about this entry's line: "bass = 40 is outside −12…12 dB".
    public func problem(_ message: String) -> PresetLineError { PresetLineError(line: line, message: message) }
}

/// What is wrong with one line of a preset, before the file's name is known
/// (`PresetError` adds it). A section's reader (the `[midi]` mapping's, say)
/// throws this for the entry it cannot take.
public struct PresetLineError: Error, Sendable, Equatable {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// A preset that cannot be loaded or saved, in one line naming the file and,
/// when one line is at fault, the line:
/// "~/.config/busker/gig.preset line 7: bass = 40 is outside −12…12 dB".
public struct PresetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as the user knows it (the home folder shown as `~`).
    public var path: String
    /// nil when the file as a whole is at fault (missing, unreadable, not saved).
    public var line: Int?
    public var message: String

    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public init(path: String, _ error: PresetLineError) {
        self.init(path: path, line: error.line, message: error.message)
    }

    public var description: String { line.map { "\(path) line \($0): \(message)" } ?? "\(path): \(message)" }
}
