import AudioFiles
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a kit's sample files, each (file, pitch) once, into the buffers
/// the kit will own; a file that failed is remembered and not tried again.
/// Each file passes `KitSampleFile`'s checks (inside the kit's folder, a
/// regular file, at most 64 MiB) on the descriptor it is then read through, and the kit's files
/// together may hold at most `KitSampleFile.maximumKitBytes`.
///
/// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
struct DrumSampleDecoder {
    let sampleRate: Int
    /// The kit's folder: samples are named relative to it and must lie in it.
    let folder: String
    private(set) var buffers: [DrumSampleBuffer] = []
    private var decoded: [String: Result<Int, AudioFileError>] = [:]
    /// Bytes of the sample files decoded so far.
    private var kitBytes = 0

    init(sampleRate: Int, folder: String) {
        self.sampleRate = sampleRate
        self.folder = folder
    }

    /// The index in `buffers` of sample `name` (as the kit names it) shifted
    /// by `semitones`, decoding it the first time.
    mutating func buffer(name: String, semitones: Double = 0) -> Result<Int, AudioFileError> {
        let key = semitones == 0 ? name : "\(name)\u{0}\(semitones)"
        if let known = decoded[key] { return known }
        let result: Result<Int, AudioFileError>
        do throws(AudioFileError) {
            let file = try KitSampleFile.open(name, inKitFolder: folder)
            guard kitBytes + file.bytes <= KitSampleFile.maximumKitBytes else {
                close(file.descriptor)
                throw AudioFileError.unsupported(
                    path: file.path, reason: "passes the kit's limit of \(KitSampleFile.maximumKitBytes >> 30) GiB of samples")
            }
            kitBytes += file.bytes
            let reader = try SoundFileReader(descriptor: file.descriptor, path: file.path)
            buffers.append(try DrumSampleBuffer(reading: reader, sampleRate: sampleRate, semitones: semitones))
            result = .success(buffers.count - 1)
        } catch {
            result = .failure(error)
        }
        decoded[key] = result
        return result
    }
}
