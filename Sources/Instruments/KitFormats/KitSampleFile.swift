import AudioFiles
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The checks a kit's sample file passes before a byte of it is read: its
/// path, as the kit writes it, leads inside the kit's folder (`..` resolved),
/// it is a regular file (a FIFO or a device would block the load or never
/// end), and it is no larger than `maximumBytes`.
///
/// - Realtime: unsafe (file system calls, allocates). Loader or control thread.
enum KitSampleFile {
    /// The largest sample file a kit may hold: 64 MiB, about 6 minutes of
    /// 16-bit stereo at 48 kHz (drum samples are seconds long).
    static let maximumBytes = 64 << 20
    /// The most sample file bytes one kit may hold: 1 GiB.
    static let maximumKitBytes = 1 << 30
    /// The most decoded values (frames × channels) one sample may hold: 64 Mi, 256 MiB as Float32.
    static let maximumValues = 64 << 20

    /// The path of the sample `name` (as the kit file spells it) in `folder`,
    /// and its size in bytes.
    /// - Throws: `AudioFileError.unsupported` naming the file and the rule it breaks,
    ///   `.cannotOpen` when it cannot be found.
    static func check(_ name: String, inKitFolder folder: String) throws(AudioFileError) -> (path: String, bytes: Int) {
        let path = name.hasPrefix("/") ? name : URL(fileURLWithPath: folder).appendingPathComponent(name).path
        let home = resolved(folder)
        let target = resolved(path)
        guard target.hasPrefix(home.hasSuffix("/") ? home : home + "/") else {
            throw .unsupported(path: path, reason: "lies outside the kit's folder '\(folder)'; a kit's samples must be inside it")
        }
        var st = stat()
        guard stat(path, &st) == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .unsupported(path: path, reason: "is not a regular file (\(RegularFile.kind(st.st_mode))); a kit's samples must be sound files")
        }
        let bytes = Int(st.st_size)
        guard bytes <= maximumBytes else {
            throw .unsupported(path: path, reason: "is \(bytes >> 20) MiB; a kit sample may be at most \(maximumBytes >> 20) MiB")
        }
        return (path, bytes)
    }

    /// `path` absolute, with `.` and `..` resolved as written. Symbolic links
    /// are not followed: a link inside the kit's folder is its author's choice
    /// (kits share samples that way), and what it leads to is still checked
    /// for its type and size.
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardized.path
    }
}
