/// One sounding sample: what it reads, where it is, how loud, and whether it
/// is fading out. A plain value kept in `DrumKit`'s preallocated voice storage;
/// only the audio thread touches it.
struct DrumVoice {
    var isActive = false
    /// The sample, as `DrumSample` holds it: Float32, or 16-bit.
    var sample = DrumSample(frameCount: 0)
    var frameCount: Int { sample.frameCount }
    var position = 0
    /// Pad gain × pan × velocity gain, per channel.
    var gainLeft: Float = 0
    var gainRight: Float = 0
    /// Frames left in a fade-out; 0 when not fading. The envelope is
    /// `fadeStep × fadeRemaining`, computed from the end rather than
    /// accumulated, so it reaches exactly zero.
    var fadeRemaining = 0
    var fadeStep: Float = 0
    /// The order of the hit that started it: the lowest is the oldest.
    var serial: UInt64 = 0

    // MARK: Audio thread

    /// The envelope now: 1, or where a fade has got to.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    var envelope: Float { fadeRemaining > 0 ? fadeStep * Float(fadeRemaining) : 1 }

    /// Starts (or shortens) a linear fade to silence over `frames` frames,
    /// from the level the voice is at now, so the level never jumps. A fade
    /// already due to end sooner is left alone.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    mutating func fadeOut(frames: Int) {
        guard isActive else { return }
        let length = max(1, frames)
        if fadeRemaining > 0 && fadeRemaining <= length { return }
        fadeStep = envelope / Float(length)
        fadeRemaining = length
    }

    /// Adds up to `frames` frames of this voice to `outLeft`/`outRight`, and
    /// ends the voice when its sample or its fade runs out.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated memory.
    @inline(__always)
    mutating func mix(into outLeft: UnsafeMutablePointer<Float>, _ outRight: UnsafeMutablePointer<Float>, frames: Int) {
        guard isActive else { return }
        if let left = sample.left16, let right = sample.right16 {
            mix(left + position, right + position, into: outLeft, outRight, frames: frames)
        } else if let left = sample.left, let right = sample.right {
            mix(left + position, right + position, into: outLeft, outRight, frames: frames)
        }
    }

    /// `mix`'s loop, for either storage.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private mutating func mix<Value: DrumSampleValue>(_ sourceLeft: UnsafePointer<Value>, _ sourceRight: UnsafePointer<Value>,
                                                      into outLeft: UnsafeMutablePointer<Float>,
                                                      _ outRight: UnsafeMutablePointer<Float>, frames: Int) {
        var count = min(frames, frameCount - position)
        let gl = gainLeft, gr = gainRight
        if fadeRemaining > 0 {
            count = min(count, fadeRemaining)
            let step = fadeStep
            var remaining = fadeRemaining
            for i in 0..<count {
                let gain = step * Float(remaining)
                outLeft[i] += sourceLeft[i].sampleValue * gl * gain
                outRight[i] += sourceRight[i].sampleValue * gr * gain
                remaining -= 1
            }
            fadeRemaining = remaining
            if remaining == 0 { isActive = false }
        } else {
            for i in 0..<count {
                outLeft[i] += sourceLeft[i].sampleValue * gl
                outRight[i] += sourceRight[i].sampleValue * gr
            }
        }
        position += count
        if position >= frameCount { isActive = false }
    }
}
