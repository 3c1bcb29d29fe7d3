import CSndFile
import Foundation

/// Writes interleaved Float32 to a new file through libsndfile.
///
/// A WAV is written as RF64 with libsndfile's automatic downgrade: a file
/// that ends under 4 GiB is closed as a plain RIFF WAV, and one that passes
/// it (a render of hours) as RF64, whose 64-bit sizes every reader of long
/// WAVs (sox, ffmpeg, libsndfile) follows, rather than a RIFF whose 32-bit
/// sizes wrapped.
///
/// - Realtime: unsafe (file I/O). Used on writer threads, never on the audio thread.
public final class SoundFileWriter {
    /// The file written to.
    public let path: String
    /// The file as errors name it: the user's name for a temporary written beside it.
    public let shownPath: String
    public let sampleRate: Int
    public let channelCount: Int
    public private(set) var framesWritten: Int64 = 0
    private var handle: OpaquePointer?

    /// Creates `path` (replacing a file there).
    /// - Parameters:
    ///   - shownPath: the name errors give (default `path`); its extension
    ///     chooses the container: .wav (the default), .flac, .ogg or .aiff.
    /// - Throws: `AudioFileError` for an unknown extension, a format the
    ///   container cannot hold, or a file that cannot be created.
    public init(path: String, sampleRate: Int, channelCount: Int, sampleFormat: SampleFormat = .s24,
                shownPath: String? = nil) throws(AudioFileError) {
        let shown = shownPath ?? path
        self.path = path
        self.shownPath = shown
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        guard let container = ContainerFormat.forPath(shown) else {
            throw .unsupported(path: shown, reason: "unknown file type; use .wav, .flac, .ogg or .aiff")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = container.sndfileFormat(sample: sampleFormat)
        guard sf_format_check(&info) != 0 else {
            throw .unsupported(path: shown, reason: "\(container.rawValue) cannot hold \(sampleFormat.rawValue) at \(sampleRate) Hz, \(channelCount) channels")
        }
        guard let h = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .cannotOpen(path: shown, reason: SoundFileErrorText.clean(String(cString: sf_strerror(nil))))
        }
        handle = h
        if container == .wav { _ = sf_command(h, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) }
        // Float input beyond ±1 is clipped, not wrapped, when stored as integers.
        _ = sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit { try? close() }

    /// Writes `frames` interleaved frames.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O)
    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        guard let handle else { throw .writeFailed(path: shownPath, reason: "file is closed") }
        let n = sf_writef_float(handle, samples, sf_count_t(frames))
        if n != frames {
            throw .writeFailed(path: shownPath, reason: SoundFileErrorText.clean(String(cString: sf_strerror(handle))))
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
        if rc != 0 { throw .writeFailed(path: shownPath, reason: String(cString: sf_error_number(rc))) }
    }
}
