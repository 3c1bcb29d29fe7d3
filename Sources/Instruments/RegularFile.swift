import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a path names a regular file: a FIFO (or a device) opened for
/// reading blocks until a writer comes, which for a kit, a SoundFont or a
/// preset is forever. `open` and `contents` check the file they opened
/// (nothing can be swapped in after the check); `problem` asks of a path
/// that something else opens (FluidSynth, a MIDI file reader).
///
/// - Realtime: unsafe (system calls). Control or loader thread.
public enum RegularFile {
    /// Why `path` is not a file to read ("is a FIFO, not a file"), or nil for
    /// a regular file and for a path that does not exist (opening it then says so).
    public static func problem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG else { return nil }
        return "is \(kind(st.st_mode)), not a file"
    }

    /// Why a file could not be opened for reading by `open` or `contents`.
    public enum Refusal: Error, Equatable, Sendable {
        /// The open (or a call on the descriptor) failed with this errno.
        case system(Int32)
        /// Not a regular file: a few words for what it is ("a FIFO").
        case notAFile(String)
        /// Longer than the limit asked for.
        case tooLarge(bytes: Int)

        /// The words for a one-line error ("is a FIFO, not a file", "No such file or directory").
        public var reason: String {
            switch self {
            case let .system(code): String(cString: strerror(code))
            case let .notAFile(kind): "is \(kind), not a file"
            case let .tooLarge(bytes): "is \(bytes) bytes long"
            }
        }
    }

    /// Opens `path` for reading when it is a regular file, checked on the
    /// descriptor itself (`fstat`): the path is opened without blocking (a
    /// FIFO's open then returns at once), so nothing swapped in between a
    /// check and the open can block the caller.
    /// - Returns: the descriptor (blocking again, close-on-exec; the caller
    ///   closes it) and the file's size in bytes.
    public static func open(_ path: String) -> Result<(descriptor: Int32, bytes: Int), Refusal> {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.system(errno)) }
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return closing(descriptor, .system(errno)) }
        guard st.st_mode & S_IFMT == S_IFREG else { return closing(descriptor, .notAFile(kind(st.st_mode))) }
        // A regular file: reads may wait on the disk as usual.
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { return closing(descriptor, .system(errno)) }
        return .success((descriptor, Int(st.st_size)))
    }

    /// The bytes of the regular file at `path`, at most `limit` of them,
    /// read through the descriptor `open` checked.
    public static func contents(_ path: String, limit: Int) -> Result<[UInt8], Refusal> {
        let file: (descriptor: Int32, bytes: Int)
        switch open(path) {
        case let .success(opened): file = opened
        case let .failure(refusal): return .failure(refusal)
        }
        defer { close(file.descriptor) }
        guard file.bytes <= limit else { return .failure(.tooLarge(bytes: file.bytes)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { read(file.descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.system(errno)) }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        // A file that grew while it was read.
        return bytes.count > limit ? .failure(.tooLarge(bytes: bytes.count)) : .success(bytes)
    }

    private static func closing(_ descriptor: Int32, _ refusal: Refusal) -> Result<(descriptor: Int32, bytes: Int), Refusal> {
        close(descriptor)
        return .failure(refusal)
    }

    /// A few words for a file type that is not a regular file ("a FIFO").
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a plain file"
        }
    }
}
