import CSndFile
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads any file libsndfile understands (WAV, FLAC, Ogg, AIFF, …) as
/// interleaved Float32 in −1…1, and refuses files it would only half read.
///
/// - Realtime: unsafe (file I/O). Used on reader threads, never on the audio thread.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames the file holds.
    public let frameCount: Int64
    private let handle: OpaquePointer
    /// The descriptor it reads through when made from one (closed with it).
    private let descriptor: Int32?

    /// - Parameter acceptsTruncation: a file whose header promises more
    ///   frames than it holds (a take cut short) is read as far as it goes
    ///   (`frameCount` is then what the file holds) instead of refused.
    public convenience init(path: String, acceptsTruncation: Bool = false) throws(AudioFileError) {
        var st = stat()
        if stat(path, &st) != 0 {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw .cannotOpen(path: path, reason: "is a directory") }
        var info = SF_INFO()
        guard let h = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = SoundFileErrorText.clean(String(cString: sf_strerror(nil)))
            // libsndfile's words for a header with a rate or channel count of 0.
            if reason.hasSuffix("SF_INFO struct incomplete") {
                throw .unsupported(path: path, reason: "its header gives no sample rate or no channels")
            }
            throw .cannotOpen(path: path, reason: reason)
        }
        try self.init(handle: h, info: info, descriptor: nil, path: path, acceptsTruncation: acceptsTruncation)
    }

    /// Reads through `descriptor`, a file already opened and checked (a
    /// regular file, found so by `fstat` on the descriptor itself, so that
    /// nothing can swap the path for a FIFO between the check and the read).
    /// The reader owns the descriptor from here: it is closed with the
    /// reader, or at once when this throws. `path` names the file in errors.
    public convenience init(descriptor: Int32, path: String) throws(AudioFileError) {
        var info = SF_INFO()
        guard let h = sf_open_fd(descriptor, Int32(SFM_READ), &info, 0) else {
            close(descriptor)
            throw .cannotOpen(path: path, reason: SoundFileErrorText.clean(String(cString: sf_strerror(nil))))
        }
        try self.init(handle: h, info: info, descriptor: descriptor, path: path, acceptsTruncation: false)
    }

    /// Takes an open libsndfile handle (and the descriptor under it, if
    /// ours), refusing what it would only half read. Every stored property
    /// is set before a throw, so `deinit` runs then and closes both (once).
    private init(handle h: OpaquePointer, info: SF_INFO, descriptor: Int32?, path: String,
                 acceptsTruncation: Bool) throws(AudioFileError) {
        self.path = path
        handle = h
        self.descriptor = descriptor
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = info.frames
        if sampleRate <= 0 || channelCount <= 0 {
            throw .unsupported(path: path, reason: "no audio (rate \(sampleRate), \(channelCount) channels)")
        }
        // libsndfile quietly shortens a file whose data chunk runs past the end
        // of the file; a take cut short should be named, not played half.
        if !acceptsTruncation, let declared = Self.declaredFrames(handle: h), declared > frameCount {
            throw .truncated(path: path, declaredFrames: declared, presentFrames: frameCount)
        }
    }

    deinit {
        sf_close(handle)
        if let descriptor { close(descriptor) }
    }

    /// Reads up to `frames` interleaved frames into `buffer`; 0 at the end.
    /// - Thread: reader, control
    /// - Realtime: unsafe (file I/O)
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioFileError) -> Int {
        let n = sf_readf_float(handle, buffer, sf_count_t(frames))
        if n < 0 || (n == 0 && sf_error(handle) != 0) {
            throw .readFailed(path: path, reason: String(cString: sf_strerror(handle)))
        }
        return Int(n)
    }

    /// Moves the read position to `frame` (0…`frameCount`): the next `read`
    /// starts there.
    /// - Thread: reader
    /// - Realtime: unsafe (file I/O)
    public func seek(toFrame frame: Int64) throws(AudioFileError) {
        if sf_seek(handle, max(0, min(frame, frameCount)), SEEK_SET) < 0 {
            throw .readFailed(path: path, reason: "cannot seek to frame \(frame): " + String(cString: sf_strerror(handle)))
        }
    }

    /// Reads the whole file, interleaved. For tests and small files.
    public func readAll() throws(AudioFileError) -> [Float] {
        var out = [Float](repeating: 0, count: Int(frameCount) * channelCount)
        var done = 0
        while done < Int(frameCount) {
            let n = try out.withUnsafeMutableBufferPointer { (p) throws(AudioFileError) -> Int in
                try read(into: p.baseAddress! + done * channelCount, frames: Int(frameCount) - done)
            }
            if n == 0 { break }
            done += n
        }
        out.removeLast((Int(frameCount) - done) * channelCount)
        return out
    }

    /// The frame count the header promised, when libsndfile's log says it
    /// trimmed it ("Data length … should be …" / "is too big"), else nil.
    private static func declaredFrames(handle: OpaquePointer) -> Int64? {
        var log = [CChar](repeating: 0, count: 4096)
        _ = sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = log.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var info = SF_INFO()
        _ = sf_command(handle, Int32(SFC_GET_CURRENT_SF_INFO), &info, Int32(MemoryLayout<SF_INFO>.size))
        // WAV and RF64 logs read "data : 192000 (should be 99956)" when the
        // chunk runs past the end of the file.
        for line in text.split(separator: "\n") where line.hasPrefix("data") && line.contains("should be") {
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
            guard let declared = numbers.first, declared > 0 else { continue }
            let bytesPerFrame = Int64(bytesPerSample(format: info.format)) * Int64(max(1, info.channels))
            if bytesPerFrame > 0 { return declared / bytesPerFrame }
        }
        return nil
    }

    private static func bytesPerSample(format: Int32) -> Int {
        switch format & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_ULAW), Int32(SF_FORMAT_ALAW): return 1
        case Int32(SF_FORMAT_PCM_16): return 2
        case Int32(SF_FORMAT_PCM_24): return 3
        case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT): return 4
        case Int32(SF_FORMAT_DOUBLE): return 8
        default: return 0
        }
    }
}

