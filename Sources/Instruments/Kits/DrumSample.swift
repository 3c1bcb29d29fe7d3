/// The audio thread's view of one decoded sample, planar at the engine
/// rate: Float32 (`left`, `right`), or 16-bit (`left16`, `right16`) where
/// every value of the decoded file is exactly a 16-bit one (k / 32768), as
/// a 16-bit file played at its own rate decodes. Either way `right` is
/// `left` for a mono sample. The memory belongs to a `DrumSampleBuffer`
/// held by the same kit.
struct DrumSample {
    var left: UnsafePointer<Float>?
    var right: UnsafePointer<Float>?
    var left16: UnsafePointer<Int16>?
    var right16: UnsafePointer<Int16>?
    var frameCount: Int
}

/// A value a drum sample is stored as, read as the Float32 it stands for.
protocol DrumSampleValue {
    var sampleValue: Float { get }
}

extension Float: DrumSampleValue {
    @inline(__always) var sampleValue: Float { self }
}

extension Int16: DrumSampleValue {
    /// k / 32768: exactly the Float32 libsndfile decodes a 16-bit value to (a power-of-two scale).
    @inline(__always) var sampleValue: Float { Float(self) * (1 / 32768) }
}
