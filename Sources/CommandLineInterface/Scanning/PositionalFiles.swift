import Foundation
import Instruments

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
    /// - Throws: `CommandLineError.usage` for two songs, or two SoundFonts; when
    ///   one of the two is neither by its content, the message says what it is;
    ///   for a path that is a FIFO, a directory or a device.
    public init(_ paths: [String], soundFontOption: String?) throws {
        for path in paths {
            // A FIFO or a device would block the first read for ever.
            if let problem = RegularFile.problem(path) { throw CommandLineError.usage("'\(path)' \(problem)") }
            switch Self.kind(of: path) {
            case .song:
                if let song {
                    if let other = Self.neither(song) ?? Self.neither(path) { throw CommandLineError.usage(other) }
                    throw CommandLineError.usage("one song at a time: '\(song)' and '\(path)' are both MIDI files")
                }
                song = path
            case .soundFont:
                if let soundFont {
                    if let other = Self.neither(soundFont) ?? Self.neither(path) { throw CommandLineError.usage(other) }
                    throw CommandLineError.usage("one SoundFont at a time: '\(soundFont)' and '\(path)' are both SoundFonts")
                }
                if soundFontOption != nil { throw CommandLineError.usage("'\(path)' is a SoundFont and --soundfont names another: give one") }
                soundFont = path
            }
        }
    }

    /// A file's kind by its content; by its extension when it cannot be read
    /// or its content says neither.
    public static func kind(of path: String) -> Kind {
        kind(ofHeader: header(of: path) ?? []) ?? kind(byExtension: path)
    }

    /// "'fake.wav' is neither a MIDI file nor a SoundFont: it is text" when
    /// the file can be read and its content is neither; nil otherwise.
    static func neither(_ path: String) -> String? {
        guard let head = header(of: path), kind(ofHeader: head) == nil else { return nil }
        return "'\(path)' is neither a MIDI file nor a SoundFont: it is \(contentDescription(ofHeader: head))"
    }

    /// What a file that is neither a song nor a SoundFont looks like, from its first bytes.
    static func contentDescription(ofHeader bytes: [UInt8]) -> String {
        let tag = { (offset: Int) -> String in
            guard bytes.count >= offset + 4 else { return "" }
            return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        }
        if bytes.isEmpty { return "empty" }
        if tag(0) == "RIFF" || tag(0) == "RF64" {
            return tag(8) == "WAVE" ? "a WAV sound file" : "a RIFF file of form '\(tag(8))'"
        }
        if tag(0) == "fLaC" { return "a FLAC sound file" }
        if tag(0) == "OggS" { return "an Ogg file" }
        if tag(0) == "FORM" { return "an AIFF or IFF file" }
        let id3: [UInt8] = [0x49, 0x44, 0x33]
        if Array(bytes.prefix(3)) == id3 || (bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0) { return "an MP3 sound file" }
        let text = bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 >= 0x80 }
        return text ? "text" : "data of no kind Busker knows"
    }

    /// The first 12 bytes of the file (fewer if it is shorter), nil when it cannot be read.
    private static func header(of path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.read(upToCount: 12)
        } catch {
            return nil
        }
        // nil: at the end already, an empty file.
        return data.map { [UInt8]($0) } ?? []
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
