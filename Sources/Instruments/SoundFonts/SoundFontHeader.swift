#if canImport(Glibc)
import Glibc
#endif

/// The RIFF header that starts every SF2 and SF3 file: "RIFF", the size of
/// what follows (little-endian), and the form type "sfbk".
///
/// Checked before FluidSynth sees the file, so that a file that is not a
/// SoundFont at all, or one cut short in a download, gets an error that says
/// exactly that. FluidSynth still checks everything inside.
public struct SoundFontHeader: Equatable, Sendable {
    /// The size the RIFF header declares for the whole file (its chunk size + 8).
    public var declaredFileSize: Int
    /// The size of the file on disk.
    public var fileSize: Int

    /// Reads and checks the header of `path`.
    /// - Throws: `SamplerError.soundFontNotFound`, `.soundFontUnreadable`,
    ///   `.notASoundFont`, `.soundFontTruncated`.
    /// - Realtime: unsafe (file I/O). Control thread.
    public init(checking path: String) throws {
        // Without blocking: a FIFO is refused below, not waited on (reads of a regular file ignore the flag).
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw SamplerError.soundFontNotFound(path: path, origin: "") }
            throw SamplerError.soundFontUnreadable(path: path, reason: String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw SamplerError.soundFontUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SamplerError.notASoundFont(path: path, reason: info.st_mode & S_IFMT == S_IFDIR ? "it is a directory" : "not a regular file")
        }
        fileSize = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: 12)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 12) }
        guard got >= 0 else {
            throw SamplerError.soundFontUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard got == 12 else {
            throw SamplerError.notASoundFont(path: path, reason: "only \(fileSize) bytes long")
        }
        guard bytes[0..<4].elementsEqual("RIFF".utf8) else {
            throw SamplerError.notASoundFont(path: path, reason: "no RIFF header")
        }
        guard bytes[8..<12].elementsEqual("sfbk".utf8) else {
            let form = String(decoding: bytes[8..<12].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            throw SamplerError.notASoundFont(path: path, reason: "a RIFF file of type '\(form)', not 'sfbk'")
        }
        let chunkSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        declaredFileSize = chunkSize + 8
        // Longer than declared is harmless trailing data; shorter means samples are missing.
        guard fileSize >= declaredFileSize else {
            throw SamplerError.soundFontTruncated(path: path, expectedBytes: declaredFileSize, actualBytes: fileSize)
        }
    }
}
