import AudioFiles

extension ArgumentScanner {
    /// `--limiter-lookahead MS`, checked against 0…5 ms, or nil when not given.
    public func limiterLookaheadMilliseconds() throws -> Float? {
        guard let ms = try float("limiter-lookahead") else { return nil }
        guard (0...5).contains(ms) else { throw CommandLineError.usage("--limiter-lookahead \(ms) ms is out of range 0…5 ms") }
        return ms
    }

    /// What `--help` says of the sample format option.
    public static let sampleFormatNames = "S16_LE, S24_3LE, S32_LE or FLOAT_LE (s16, s24, s32, f32)"

    /// `--sample-format FMT` (or its old spelling `--format`) for an output
    /// file: ALSA's names or the short ones; nil when not given.
    public func sampleFormat() throws -> SampleFormat? {
        guard let name = string("sample-format") ?? string("format") else { return nil }
        guard let format = SampleFormat(name: name) else {
            throw CommandLineError.usage("--sample-format must be S16_LE, S24_3LE, S32_LE or FLOAT_LE (or s16, s24, s32, f32), not '\(name)'")
        }
        return format
    }

    /// `--tempo SCALE`, checked against 0.125…8 (default 1).
    public func tempoScale() throws -> Float {
        let tempo = try float("tempo") ?? 1
        guard (0.125...8).contains(tempo) else { throw CommandLineError.usage("--tempo \(tempo) is out of range 0.125…8") }
        return tempo
    }
}
