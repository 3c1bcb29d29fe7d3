import AudioFiles
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The checks a kit's sample file passes before a byte of it is read: its
/// path, as the kit writes it, leads inside the kit's folder (`..` resolved),
/// it is a regular file (a FIFO or a device would block the load or never
/// end), and it is no larger than `maximumBytes`. The type and size are
/// those of the file opened (`RegularFile.open`: `fstat` on its descriptor,
/// opened without blocking), and the sample is read through that descriptor: a path swapped
/// for a FIFO after the check cannot block the load.
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

    /// Opens the sample `name` (as the kit file spells it) in `folder` for
    /// reading, after the checks above.
    /// - Returns: its path, an open descriptor (blocking again, close-on-exec;
    ///   the caller owns it) and its size in bytes.
    /// - Throws: `AudioFileError.unsupported` naming the file and the rule it breaks,
    ///   `.cannotOpen` when it cannot be found or opened.
    static func open(_ name: String, inKitFolder folder: String) throws(AudioFileError) -> (path: String, descriptor: Int32, bytes: Int) {
        let path = name.hasPrefix("/") ? name : URL(fileURLWithPath: folder).appendingPathComponent(name).path
        let home = resolved(folder)
        let target = resolved(path)
        guard target.hasPrefix(home.hasSuffix("/") ? home : home + "/") else {
            throw .unsupported(path: path, reason: "lies outside the kit's folder '\(folder)'; a kit's samples must be inside it")
        }
        let descriptor: Int32, bytes: Int
        switch RegularFile.open(path) {
        case let .success(file): (descriptor, bytes) = file
        case .failure(.notAFile(let kind)):
            throw .unsupported(path: path, reason: "is not a regular file (\(kind)); a kit's samples must be sound files")
        case let .failure(refusal):
            throw .cannotOpen(path: path, reason: refusal.reason)
        }
        guard bytes <= maximumBytes else {
            close(descriptor)
            throw .unsupported(path: path, reason: "is \(bytes >> 20) MiB; a kit sample may be at most \(maximumBytes >> 20) MiB")
        }
        return (path, descriptor, bytes)
    }

    /// `path` absolute, with `.` and `..` resolved as written. Symbolic links
    /// are not followed: a link inside the kit's folder is its author's choice
    /// (kits share samples that way), and what it leads to is still checked
    /// for its type and size.
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardized.path
    }
}
