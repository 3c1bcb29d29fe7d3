/// The audio thread's view of one decoded sample: planar Float32 at the
/// engine rate; `right` is `left` for a mono sample. The memory belongs to a
/// `DrumSampleBuffer` held by the same kit.
struct DrumSample {
    var left: UnsafePointer<Float>
    var right: UnsafePointer<Float>
    var frameCount: Int
}
