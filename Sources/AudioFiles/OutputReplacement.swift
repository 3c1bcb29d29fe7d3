import Foundation

/// How an output file the user named is written without ever destroying the
/// file that was there: the data goes to a hidden temporary file in the same
/// folder (`.NAME.busker-PID.part`), which `commit()` flushes to the disk and
/// renames over the named file in one step; `discard()` removes it. Until the
/// rename, the old file is byte for byte what it was; after it, the new file
/// is complete. A process killed with SIGKILL leaves the temporary behind,
/// never a half-written file under the user's name.
///
/// A name that exists but is not a regular file (`/dev/null`, a FIFO) cannot
/// be replaced by a rename: it is written directly, as before.
public struct OutputReplacement: Sendable {
    /// The path the user named.
    public let target: String
    /// Where the data is written: the temporary file, or `target` itself when it cannot be replaced.
    public let writePath: String
    /// Whether a regular file was at `target` when the run began (it is kept until `commit()`).
    public let replacesExistingFile: Bool

    /// Chooses the temporary file for `target`. Nothing is created yet.
    /// - Throws: `AudioFileError.cannotOpen` when `target` is a folder, or an
    ///   existing file the user may not write (renaming over it would bypass that).
    /// - Thread: control
    /// - Realtime: unsafe (file system calls, allocates)
    public init(target: String) throws(AudioFileError) {
        self.target = target
        var info = stat()
        guard stat(target, &info) == 0 else {
            replacesExistingFile = false
            writePath = Self.temporaryPath(beside: target)
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw .cannotOpen(path: target, reason: "is a directory")
        case S_IFREG:
            guard access(target, W_OK) == 0 else {
                throw .cannotOpen(path: target, reason: String(cString: strerror(errno)))
            }
            replacesExistingFile = true
            // A symbolic link keeps pointing at the file it named: the file is replaced, not the link.
            let resolved = URL(fileURLWithPath: target).resolvingSymlinksInPath().path
            writePath = Self.temporaryPath(beside: resolved)
        default:
            replacesExistingFile = false
            writePath = target
        }
    }

    /// Whether the data goes to a temporary file that `commit()` renames.
    public var writesTemporary: Bool { writePath != target }

    /// `DIR/.NAME.busker-PID.part` beside `path`.
    static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).busker-\(getpid()).part").path
    }

    /// What became of the named file when the run did not complete, for the
    /// end of the error line: "long.wav was left as it was" or "long.wav was not written".
    public var keptNote: String {
        replacesExistingFile ? "\(target) was left as it was" : "\(target) was not written"
    }

    /// Makes the written (and closed) temporary file the named one: gives it
    /// the old file's permissions (if one was there), flushes it to the disk,
    /// renames it over `target`, and flushes the folder's entry.
    /// - Throws: `AudioFileError.writeFailed` naming `target`; the temporary is
    ///   then removed and the old file is as it was.
    /// - Thread: control
    /// - Realtime: unsafe (file system calls)
    public func commit() throws(AudioFileError) {
        guard writesTemporary else { return }
        let destination = URL(fileURLWithPath: target).resolvingSymlinksInPath().path
        var old = stat()
        if replacesExistingFile && stat(destination, &old) == 0 { chmod(writePath, old.st_mode & 0o7777) }
        let fd = open(writePath, O_RDONLY | O_CLOEXEC)
        var failure: String?
        if fd < 0 {
            failure = String(cString: strerror(errno))
        } else {
            if fsync(fd) != 0 && errno != EINVAL { failure = String(cString: strerror(errno)) }
            close(fd)
        }
        if failure == nil && rename(writePath, replacesExistingFile ? destination : target) != 0 {
            failure = String(cString: strerror(errno))
        }
        if let failure {
            discard()
            throw .writeFailed(path: target, reason: failure)
        }
        let folder = open(URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Removes the temporary file (the named one is untouched). Does nothing
    /// when the output was written directly.
    /// - Thread: control
    /// - Realtime: unsafe (a file system call)
    public func discard() {
        if writesTemporary { unlink(writePath) }
    }
}
