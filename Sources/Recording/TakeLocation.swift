import Foundation

/// Where a take goes: the folder and dated name when no path is given, and
/// the checks that make a take fail before the audio starts rather than after.
public enum TakeLocation {
    /// `$XDG_MUSIC_DIR/Busker`, else the music folder of `~/.config/user-dirs.dirs`,
    /// else `~/Music/Busker`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        if let music = environment["XDG_MUSIC_DIR"], !music.isEmpty { return music + "/Busker" }
        let config = environment["XDG_CONFIG_HOME"] ?? home + "/.config"
        if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_MUSIC_DIR=") {
                var value = String(line.dropFirst("XDG_MUSIC_DIR=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                value = value.replacingOccurrences(of: "$HOME", with: home)
                // user-dirs.dirs sets a disabled folder to $HOME itself.
                if !value.isEmpty && value != home { return value + "/Busker" }
            }
        }
        return home + "/Music/Busker"
    }

    /// `busker-2026-12-01-103012`: local date and time, sortable.
    public static func datedName(at date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd-HHmmss"
        return "busker-" + f.string(from: date)
    }

    /// The path a take will be written to.
    /// - Parameters:
    ///   - explicit: the user's path (a file, or an existing folder for a dated
    ///     name inside it), nil for the default folder (created if missing).
    ///   - force: overwrite an explicit file that exists.
    ///   - companions: files written next to the take, named by replacing its
    ///     extension with these (`.mid` for busker play's MIDI, `-mic.wav` for a
    ///     stem): the same rule applies to them as to the take.
    ///   - protecting: files the session reads (the song being played): never
    ///     the take nor a companion, even with force.
    /// - Throws: `.exists` for an explicit existing file (or companion) without
    ///   force; `.isSource` for a protected one; `.folder` when the folder is
    ///   missing (explicit), cannot be created or is not writable.
    public static func resolve(explicit: String?, format: RecordingFormat, force: Bool, date: Date = Date(),
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               companions: [String] = [], protecting: [String] = []) throws(RecordingError) -> String {
        var folder: String
        var fileName: String?
        if let explicit {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: explicit, isDirectory: &isDirectory), isDirectory.boolValue {
                folder = explicit
            } else {
                let url = URL(fileURLWithPath: explicit)
                folder = url.deletingLastPathComponent().path
                fileName = url.lastPathComponent
                for path in [explicit] + companionPaths(of: explicit, companions) {
                    if protecting.contains(where: { isSameFile(path, $0) }) { throw .isSource(path: path) }
                    if FileManager.default.fileExists(atPath: path) && !force { throw .exists(path: path) }
                }
                var parentIsDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &parentIsDirectory) else {
                    throw .folder(path: folder, reason: "no such folder")
                }
                guard parentIsDirectory.boolValue else { throw .folder(path: folder, reason: "not a folder") }
            }
        } else {
            folder = defaultFolder(environment: environment)
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .folder(path: folder, reason: "cannot create it (\(Self.reason(error)))")
            }
        }
        try checkWritable(folder: folder)
        if let fileName { return (folder as NSString).appendingPathComponent(fileName) }
        let base = (folder as NSString).appendingPathComponent(datedName(at: date))
        var candidate = base + "." + format.fileExtension
        var n = 2
        // A free name for the take and every companion: an automatic name never overwrites.
        while ([candidate] + companionPaths(of: candidate, companions)).contains(where: { FileManager.default.fileExists(atPath: $0) }) {
            candidate = "\(base)-\(n).\(format.fileExtension)"
            n += 1
        }
        return candidate
    }

    /// The companions' paths of a take at `path`.
    public static func companionPaths(of path: String, _ companions: [String]) -> [String] {
        let base = (path as NSString).deletingPathExtension
        return companions.map { base + $0 }
    }

    /// Whether `a` and `b` name one file: the same device and inode when both
    /// exist (links, `./`, other spellings), the same standardized path otherwise.
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0 && stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return (a as NSString).standardizingPath == (b as NSString).standardizingPath
    }

    /// Creates and removes a probe file: the only check that tells the truth
    /// (permissions, read-only mounts, root on /sys).
    public static func checkWritable(folder: String) throws(RecordingError) {
        let probe = (folder as NSString).appendingPathComponent(".busker-probe-\(getpid())")
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw .folder(path: folder, reason: String(cString: strerror(errno)).lowercased()) }
        close(fd)
        unlink(probe)
    }

    private static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code))).lowercased()
        }
        return ns.localizedDescription
    }
}
