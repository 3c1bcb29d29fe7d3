import AudioFiles

extension LoudnessReport {
    /// Measures a whole sound file (anything libsndfile reads) with a `LoudnessMeter`.
    /// - Returns: the report, and the file's rate and channels.
    /// - Throws: `LoudnessError.file` for a file that cannot be opened or read
    ///   (missing, not audio, truncated), `.unsupported` for a layout libebur128 refuses.
    /// - Realtime: unsafe (file I/O, allocates). Never on the audio thread.
    public static func measure(path: String) throws(LoudnessError) -> (report: LoudnessReport, sampleRate: Int, channelCount: Int) {
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: path) } catch { throw .file(error) }
        let meter = try LoudnessMeter(channelCount: reader.channelCount, sampleRate: reader.sampleRate)
        let chunkFrames = 16384
        let chunk = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * reader.channelCount)
        defer { chunk.deallocate() }
        while true {
            let n: Int
            do { n = try reader.read(into: chunk, frames: chunkFrames) } catch { throw .file(error) }
            if n == 0 { break }
            meter.add(chunk, frames: n)
        }
        return (meter.report, reader.sampleRate, reader.channelCount)
    }
}
