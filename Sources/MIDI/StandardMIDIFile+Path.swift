#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StandardMIDIFile {
    /// Files larger than this are refused before they are read: real MIDI files
    /// are kilobytes, and reading a mistaken multi-gigabyte path must not
    /// exhaust memory.
    public static let maximumFileSize = 64 << 20

    /// Reads a Standard MIDI File (or `.kar` file) from `path`.
    /// - Throws: ``MIDIFileError`` whose description names the path and the byte offset.
    /// - Realtime: unsafe (file I/O, allocates).
    public init(contentsOfFile path: String, mode: ReadingMode = .forgiving) throws(MIDIFileError) {
        let bytes = try Self.readFile(path)
        do {
            self = try StandardMIDIFile(bytes: bytes, mode: mode)
        } catch {
            var named = error
            named.path = path
            throw named
        }
    }

    /// Reads the whole file in bounded steps (it may be a FIFO or a device,
    /// whose size is not known in advance), refusing more than ``maximumFileSize`` bytes.
    private static func readFile(_ path: String) throws(MIDIFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MIDIFileError(.unreadable(String(cString: strerror(errno))), offset: nil, path: path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        let stepSize = 64 << 10
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: stepSize))
            let got = bytes.withUnsafeMutableBufferPointer { buffer in
                read(descriptor, buffer.baseAddress! + start, stepSize)
            }
            if got < 0 {
                if errno == EINTR { bytes.removeLast(stepSize); continue }
                throw MIDIFileError(.unreadable(String(cString: strerror(errno))), offset: start, path: path)
            }
            bytes.removeLast(stepSize - got)
            if got == 0 { return bytes }
            if bytes.count > maximumFileSize {
                throw MIDIFileError(.fileTooLarge(limit: maximumFileSize), offset: maximumFileSize, path: path)
            }
        }
    }
}
