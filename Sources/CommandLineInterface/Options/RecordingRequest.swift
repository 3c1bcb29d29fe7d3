import Foundation
import Recording

/// `--record [PATH]`, the take's format and `--force`, as `busker live`,
/// `busker play` and `busker record` take them. `--record` takes an optional
/// path, which a plain option scanner cannot express, so these are taken out
/// of the arguments first: the word after `--record` is its path unless it is
/// an option or a MIDI file (`busker play --record song.mid` plays the song);
/// `--record=PATH` is never ambiguous.
public struct RecordingRequest {
    /// Whether `--record` was given.
    public var enabled = false
    /// The explicit path (a file or a folder), nil for the default folder.
    public var path: String?
    public var format: RecordingFormat = .wav24
    public var force = false
    /// `--stems`: also record the dry input (busker live's mic) and each strip next to each take.
    public var stems = false

    public static let midiExtensions: Set<String> = ["mid", "midi", "kar", "rmi", "smf"]

    /// The recording options of busker live and busker play, for their help.
    public static let sessionHelp = """
    recording (Ctrl-R starts and stops a take while running):
      --record [PATH]        record the session from the start: what the speaker plays, to PATH
                             (a .wav/.flac/.ogg file or a folder; default $XDG_MUSIC_DIR/Busker,
                             else ~/Music/Busker, with a dated name; --record=PATH is never ambiguous)
      --record-format FMT    \(RecordingFormat.names) (default wav24)
      --force                overwrite the --record PATH (and busker play's PATH.mid) if it exists;
                             the song being played is never overwritten
    """

    /// `--stems`, which busker live takes (after `sessionHelp`) and busker play does not.
    public static let stemsHelp = """
      --stems                also record the dry mic, as it comes in, to TAKE-mic.wav,
                             and each strip as processed (before pan and mute) to TAKE-strip1.wav, …
    """

    /// Takes the recording options out of `arguments`.
    /// - Parameters:
    ///   - formatOptions: the names the take's format goes by here (`format`, `record-format`).
    ///   - takesStems: whether `--stems` is taken out too; when not, it is left
    ///     for the scanner, which refuses it as an option the command does not have.
    public static func extract(from arguments: [String], formatOptions: Set<String>,
                               takesStems: Bool = false) throws -> (RecordingRequest, [String]) {
        var request = RecordingRequest()
        var rest: [String] = []
        var formatText: String?
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" {
                rest.append(contentsOf: arguments[(i - 1)...])
                break
            }
            if arg == "--record" {
                request.enabled = true
                if i < arguments.count, !arguments[i].hasPrefix("-"),
                   !midiExtensions.contains((arguments[i] as NSString).pathExtension.lowercased()) {
                    request.path = arguments[i]
                    i += 1
                }
                continue
            }
            if arg.hasPrefix("--record=") {
                request.enabled = true
                let path = String(arg.dropFirst("--record=".count))
                guard !path.isEmpty else { throw CommandLineError.usage("--record= needs a path (or use --record alone)") }
                request.path = path
                continue
            }
            if arg == "--force" {
                request.force = true
                continue
            }
            if takesStems && arg == "--stems" {
                request.stems = true
                continue
            }
            var matched = false
            for name in formatOptions where arg == "--\(name)" || arg.hasPrefix("--\(name)=") {
                if formatText != nil { throw CommandLineError.usage("option \(arg.split(separator: "=")[0]) is given twice (the take has one format)") }
            }
            for name in formatOptions {
                if arg == "--\(name)" {
                    guard i < arguments.count else { throw CommandLineError.usage("option --\(name) needs a value") }
                    formatText = arguments[i]
                    i += 1
                    matched = true
                } else if arg.hasPrefix("--\(name)=") {
                    formatText = String(arg.dropFirst(name.count + 3))
                    matched = true
                }
            }
            if !matched { rest.append(arg) }
        }
        if let formatText {
            guard let format = RecordingFormat.named(formatText) else {
                throw CommandLineError.usage("unknown recording format '\(formatText)' (use \(RecordingFormat.names))")
            }
            request.format = format
        }
        if let path = request.path, !isDirectory(path) {
            let ext = (path as NSString).pathExtension.lowercased()
            if ext.isEmpty {
                request.path = path + "." + request.format.fileExtension
            } else if let implied = RecordingFormat.implied(byPath: path) {
                if formatText != nil && request.format != implied {
                    throw CommandLineError.usage("'\(path)' names a .\(ext) file but the format asked for is \(request.format.rawValue)")
                }
                request.format = implied
            } else if ext != "wav" && ext != "wave" {
                throw CommandLineError.usage("'\(path)': Busker records .wav, .flac or .ogg files")
            } else if !request.format.isWAV {
                throw CommandLineError.usage("'\(path)' names a .wav file but the format asked for is \(request.format.rawValue)")
            }
        }
        return (request, rest)
    }

    /// Where the (first) take goes, checked: the folder exists and takes a
    /// file, an explicit file is new (or `--force`). Call before any device opens.
    /// - Parameters:
    ///   - companions: files written next to each take (`.mid`), held to the same rule.
    ///   - protecting: files the session reads (the song): never written over, even with `--force`.
    public func resolvePath(companions: [String] = [], protecting: [String] = []) throws -> String {
        do {
            return try TakeLocation.resolve(explicit: path, format: format, force: force,
                                            companions: companions, protecting: protecting)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
