import FileIO

/// Decodes a kit's sample files, each (file, pitch) once, into the buffers
/// the kit will own; a file that failed is remembered and not tried again.
///
/// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
struct DrumSampleDecoder {
    let sampleRate: Int
    private(set) var buffers: [DrumSampleBuffer] = []
    private var decoded: [String: Result<Int, AudioFileError>] = [:]

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// The index in `buffers` of `path` shifted by `semitones`, decoding it the first time.
    mutating func buffer(path: String, semitones: Double = 0) -> Result<Int, AudioFileError> {
        let key = semitones == 0 ? path : "\(path)\u{0}\(semitones)"
        if let known = decoded[key] { return known }
        let result: Result<Int, AudioFileError>
        do {
            buffers.append(try DrumSampleBuffer(path: path, sampleRate: sampleRate, semitones: semitones))
            result = .success(buffers.count - 1)
        } catch {
            result = .failure(error)
        }
        decoded[key] = result
        return result
    }
}
