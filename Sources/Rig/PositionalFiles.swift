import Foundation

/// The files `busker play` and `busker render` take as arguments, in any
/// order, told apart by their content as fluidsynth does: a SoundFont starts
/// "RIFF", a size, "sfbk"; a Standard MIDI File starts "MThd" (or is wrapped
/// in RIFF "RMID"). A file that is neither, or cannot be read, goes by its
/// extension (.sf2 and .sf3 are SoundFonts, anything else a song), so the
/// error about it comes from the loader that names what is wrong.
public struct PositionalFiles: Equatable {
    public var song: String?
    public var soundFont: String?

    public init(song: String? = nil, soundFont: String? = nil) {
        self.song = song
        self.soundFont = soundFont
    }

    /// What a file is.
    public enum Kind: Equatable {
        case soundFont, song
    }

    /// Sorts `paths` into a song and a SoundFont.
    /// - Parameter soundFontOption: `--soundfont`'s value, if given: a SoundFont argument as well is a usage error.
    /// - Throws: `CommandLineError.usage` for two songs, or two SoundFonts.
    public init(_ paths: [String], soundFontOption: String?) throws {
        for path in paths {
            switch Self.kind(of: path) {
            case .song:
                if let song { throw CommandLineError.usage("one song at a time: '\(song)' and '\(path)' are both MIDI files") }
                song = path
            case .soundFont:
                if let soundFont { throw CommandLineError.usage("one SoundFont at a time: '\(soundFont)' and '\(path)' are both SoundFonts") }
                if soundFontOption != nil { throw CommandLineError.usage("'\(path)' is a SoundFont and --soundfont names another: give one") }
                soundFont = path
            }
        }
    }

    /// A file's kind by its content; by its extension when it cannot be read
    /// or its content says neither.
    public static func kind(of path: String) -> Kind {
        guard let handle = FileHandle(forReadingAtPath: path) else { return kind(byExtension: path) }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 12)).map { Array($0) } ?? []
        return kind(ofHeader: head) ?? kind(byExtension: path)
    }

    /// A file's kind from its first bytes (12 tell a RIFF file), nil when they say neither.
    public static func kind(ofHeader bytes: [UInt8]) -> Kind? {
        let tag = { (offset: Int) -> String in
            guard bytes.count >= offset + 4 else { return "" }
            return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        }
        if tag(0) == "MThd" { return .song }
        if tag(0) == "RIFF" {
            if tag(8) == "sfbk" { return .soundFont }
            if tag(8) == "RMID" { return .song }
        }
        return nil
    }

    private static func kind(byExtension path: String) -> Kind {
        let ext = (path as NSString).pathExtension.lowercased()
        return ["sf2", "sf3"].contains(ext) ? .soundFont : .song
    }
}
