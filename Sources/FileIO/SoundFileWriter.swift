import CSndFile
import Foundation

/// Writes interleaved Float32 to a new file through libsndfile.
///
/// - Realtime: unsafe (file I/O). Used on writer threads, never on the audio thread.
public final class SoundFileWriter {
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    public private(set) var framesWritten: Int64 = 0
    private var handle: OpaquePointer?

    public init(path: String, sampleRate: Int, channelCount: Int, sampleFormat: SampleFormat = .s24) throws(AudioFileError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        guard let container = ContainerFormat.forPath(path) else {
            throw .unsupported(path: path, reason: "unknown file type; use .wav, .flac, .ogg or .aiff")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = container.sndfileFormat(sample: sampleFormat)
        guard sf_format_check(&info) != 0 else {
            throw .unsupported(path: path, reason: "\(container.rawValue) cannot hold \(sampleFormat.rawValue) at \(sampleRate) Hz, \(channelCount) channels")
        }
        guard let h = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .cannotOpen(path: path, reason: SoundFileErrorText.clean(String(cString: sf_strerror(nil))))
        }
        handle = h
        // Float input beyond ±1 is clipped, not wrapped, when stored as integers.
        _ = sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit { try? close() }

    /// Writes `frames` interleaved frames.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O)
    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        guard let handle else { throw .writeFailed(path: path, reason: "file is closed") }
        let n = sf_writef_float(handle, samples, sf_count_t(frames))
        if n != frames {
            throw .writeFailed(path: path, reason: SoundFileErrorText.clean(String(cString: sf_strerror(handle))))
        }
        framesWritten += Int64(frames)
    }

    /// Writes a whole array of interleaved samples.
    public func write(interleaved samples: [Float]) throws(AudioFileError) {
        let frames = samples.count / max(1, channelCount)
        guard frames > 0 else { return }
        try samples.withUnsafeBufferPointer { (p) throws(AudioFileError) in try write(p.baseAddress!, frames: frames) }
    }

    /// Brings the header up to date so the file is playable as it stands.
    public func updateHeader() {
        if let handle { _ = sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
    }

    /// Finalizes the header and closes the file.
    public func close() throws(AudioFileError) {
        guard let h = handle else { return }
        handle = nil
        let rc = sf_close(h)
        if rc != 0 { throw .writeFailed(path: path, reason: String(cString: sf_error_number(rc))) }
    }
}
