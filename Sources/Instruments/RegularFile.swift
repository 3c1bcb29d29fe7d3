import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a path names a regular file, asked before a file is opened: a
/// FIFO (or a device) opened for reading blocks until a writer comes, which
/// for a kit, a SoundFont or a preset is forever.
///
/// - Realtime: unsafe (a system call). Control or loader thread.
public enum RegularFile {
    /// Why `path` is not a file to read ("is a FIFO, not a file"), or nil for
    /// a regular file and for a path that does not exist (opening it then says so).
    public static func problem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG else { return nil }
        return "is \(kind(st.st_mode)), not a file"
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
