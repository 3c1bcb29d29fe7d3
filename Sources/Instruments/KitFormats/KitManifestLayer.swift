/// One velocity layer of a pad: the hits whose velocity falls in `velocities`
/// play one of `samples` (several samples are alternated round-robin, so
/// repeated hits do not sound machine-gunned).
///
/// In JSON: `{ "velocity": [1, 50], "samples": ["snare-soft.wav"] }`; sample
/// paths are relative to the manifest's folder (absolute paths work too).
public struct KitManifestLayer: Equatable, Sendable {
    /// The velocities (1–127) this layer answers.
    public var velocities: ClosedRange<Int>
    /// Sample files, as written in the manifest.
    public var samples: [String]

    public init(velocities: ClosedRange<Int>, samples: [String]) {
        self.velocities = velocities
        self.samples = samples
    }

    static let fieldNames = ["velocity", "samples"]
}

extension KitManifestLayer: Decodable {
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: KitManifestKey.self)
        try fields.rejectUnknownKeys(known: Self.fieldNames)
        let range = try fields.required([Int].self, "velocity")
        guard range.count == 2 else {
            throw fields.invalid("velocity", "write the range as [lowest, highest], e.g. [1, 50]")
        }
        guard (1...127).contains(range[0]), (1...127).contains(range[1]) else {
            throw fields.invalid("velocity", "[\(range[0]), \(range[1])] is outside 1…127 (velocity 0 is a note-off)")
        }
        guard range[0] <= range[1] else {
            throw fields.invalid("velocity", "[\(range[0]), \(range[1])] is empty: the lowest velocity comes first")
        }
        velocities = range[0]...range[1]
        samples = try fields.required([String].self, "samples")
        guard !samples.isEmpty else { throw fields.invalid("samples", "a layer needs at least one sample file") }
        if samples.contains(where: { $0.isEmpty }) { throw fields.invalid("samples", "a sample file name is empty") }
    }
}
