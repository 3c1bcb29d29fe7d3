import Foundation

/// The folder of named presets, `$XDG_CONFIG_HOME/busker/` or else
/// `~/.config/busker/`, each preset a file NAME.preset. Only an explicit save
/// writes one (there is no hidden "last used" state), and a save replaces the
/// file atomically: a temporary file in the same folder, renamed over the old
/// one, so a failed save leaves the old file as it was.
public struct PresetStore: Sendable {
    /// The folder, absolute.
    public let folder: String
    /// The home folder, to show paths under it as `~/…`.
    private let home: String?

    public static let fileExtension = "preset"
    /// A preset is a page of text; anything far bigger is not one (1 MiB,
    /// stated in docs/presets.md and in the refusal).
    public static let maximumFileBytes = 1 << 20

    /// - Parameter environment: where `XDG_CONFIG_HOME` and `HOME` come from
    ///   (a relative `XDG_CONFIG_HOME` is ignored, as the XDG spec says).
    /// - Throws: with neither an absolute `XDG_CONFIG_HOME` nor `HOME`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PresetError) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.home = home
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            folder = (xdg as NSString).appendingPathComponent("busker")
        } else if let home {
            folder = (home as NSString).appendingPathComponent(".config/busker")
        } else {
            throw PresetError(path: "presets", message: "no folder for them: set HOME or XDG_CONFIG_HOME")
        }
    }

    /// Throws a one-line usage message when `name` cannot name a preset file:
    /// empty, with a slash, starting with a dot, or with control characters.
    public static func check(name: String) throws(PresetError) {
        func refuse(_ why: String) -> PresetError { PresetError(path: "preset name '\(name)'", message: why) }
        if name.isEmpty { throw PresetError(path: "preset name", message: "is empty") }
        if name.contains("/") { throw refuse("has a slash: a preset is named, not a path (files live in the config folder)") }
        if name.hasPrefix(".") { throw refuse("starts with a dot") }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw refuse("has control characters")
        }
        if name.utf8.count > 200 { throw refuse("is longer than 200 bytes") }
    }

    /// The file of preset `name` (not checked).
    public func path(of name: String) -> String {
        (folder as NSString).appendingPathComponent("\(name).\(Self.fileExtension)")
    }

    /// `path` with the home folder shown as `~`, as the user knows it.
    public func shown(_ path: String) -> String {
        guard let home, home != "/", path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    /// Reads preset `name`.
    /// - Throws: a one-line error naming the file (and the line at fault):
    ///   a bad name, no such file, unreadable, not text, or not a valid preset.
    public func load(_ name: String) throws(PresetError) -> LivePreset {
        try Self.check(name: name)
        let path = path(of: name)
        let data: [UInt8]
        switch Self.read(path, limit: Self.maximumFileBytes) {
        case .success(let bytes): data = bytes
        case .failure(.system(let code)):
            throw PresetError(path: shown(path), message: code == ENOENT ? "no such preset (saved presets: \(listing()))"
                                                                         : "cannot be read: \(String(cString: strerror(code)))")
        case .failure(.notAFile(let kind)):
            throw PresetError(path: shown(path), message: "is \(kind), not a file: not a preset")
        case .failure(.tooLarge):
            throw PresetError(path: shown(path), message: "is over \(Self.maximumFileBytes >> 20) MiB, the most a preset may hold: not a preset")
        }
        // A byte-order mark, as some editors write, is not part of the text.
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(data.dropFirst(3)) : data
        guard let text = String(validating: body, as: UTF8.self), !body.contains(0) else {
            throw PresetError(path: shown(path), message: "is not text (UTF-8): not a preset")
        }
        do {
            return try LivePreset(text: text)
        } catch {
            throw PresetError(path: shown(path), error)
        }
    }

    /// A line error of preset `name` found after loading (by the MIDI
    /// mapping reading its `[midi]` entries), as the one line to show.
    public func error(in name: String, _ error: PresetLineError) -> PresetError {
        PresetError(path: shown(path(of: name)), error)
    }

    /// Saves `preset` as `name`, creating the folder if needed and replacing
    /// any file of that name atomically.
    /// - Returns: the file's path as shown to the user.
    /// - Throws: a one-line error; the old file (if any) is then untouched.
    @discardableResult
    public func save(_ preset: LivePreset, as name: String) throws(PresetError) -> String {
        try Self.check(name: name)
        let path = path(of: name)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw PresetError(path: shown(folder), message: "cannot be made: \(Self.reason(error))")
        }
        let temporary = (folder as NSString).appendingPathComponent(".\(name).\(Self.fileExtension).\(getpid()).tmp")
        unlink(temporary)  // left by a save of an earlier process with this pid that died midway
        if let failure = Self.write(Array(preset.text.utf8), to: temporary, replacing: path) {
            unlink(temporary)
            throw PresetError(path: shown(path), message: "not saved: \(failure)")
        }
        return shown(path)
    }

    /// The saved presets' names, sorted.
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".\(Self.fileExtension)") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(Self.fileExtension.count + 1)) }.sorted()
    }

    private func listing() -> String {
        let all = names()
        return all.isEmpty ? "none" : all.joined(separator: ", ")
    }

    /// Writes `bytes` to a new file `temporary`, flushes it to disk and renames
    /// it to `path`; the folder's entry is flushed too. Returns what failed, or nil.
    private static func write(_ bytes: [UInt8], to temporary: String, replacing path: String) -> String? {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "the disk took no more"
                close(fd)
                return reason
            }
            written += n
        }
        if fsync(fd) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            return reason
        }
        guard close(fd) == 0 else { return String(cString: strerror(errno)) }
        guard rename(temporary, path) == 0 else { return String(cString: strerror(errno)) }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        return nil
    }

    /// The file at `path`, at most `limit` bytes, or why not. It is opened
    /// without blocking and its type checked before a byte is read: a FIFO or
    /// a device named NAME.preset is refused, not waited on.
    private static func read(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.system(errno)) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFIFO: return .failure(.notAFile("a FIFO"))
        case S_IFDIR: return .failure(.system(EISDIR))
        case S_IFCHR, S_IFBLK: return .failure(.notAFile("a device"))
        default: return .failure(.notAFile("a socket"))
        }
        guard st.st_size <= limit else { return .failure(.tooLarge) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.system(errno)) }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        // A file that grew while it was read.
        return bytes.count > limit ? .failure(.tooLarge) : .success(bytes)
    }

    private static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }
}

/// Why a preset file could not be read, for `Result`.
private enum ReadFailure: Error {
    /// The errno of the call that failed.
    case system(Int32)
    /// A FIFO, device or socket ("a FIFO").
    case notAFile(String)
    /// Over `PresetStore.maximumFileBytes`.
    case tooLarge
}
