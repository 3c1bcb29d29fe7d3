#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSpeexDSP
import Engine
import Synchronization

/// The "voice processing" switch of the phone apps: speexdsp's preprocessor
/// (`speex_preprocess_run`) cleans the voice with spectral noise suppression
/// and automatic gain control, one preprocessor per channel.
///
/// Why speexdsp: it is packaged in Debian (libspeexdsp-dev), small, stable and
/// well kept, with a plain C API and no threads or allocation of its own after
/// `speex_preprocess_state_init`. The alternative, webrtc-audio-processing,
/// suppresses noise better but is a large C++ library whose API changes
/// between its Debian versions.
///
/// speexdsp works on fixed frames of 16-bit samples. The node takes 10 ms
/// frames (`frameLength`, 480 at 48 kHz): input is gathered into a frame, the
/// frame is processed when full, and the processed frame is played out while
/// the next one gathers. speexdsp's overlap-add analysis (windows of two
/// frames) delays its output by one more frame, so the node's delay,
/// `latencyFrames`, is two frames (20 ms; measured by cross-correlation in the
/// tests), whether on or off (off, the plain path is delayed the same, so
/// switching never shifts the timing); it does not depend on the block size. Conversion to and from Int16 uses buffers
/// made in `allocate`; every speexdsp state is made and set up there too, on
/// the control thread.
///
/// Switching (`isOn`) is an atomic read at each frame boundary; the frame at
/// which it changes crossfades between the plain and the processed signal, and
/// switching on first primes speexdsp with the frame before, so a switch never
/// clicks. Off, the node is a delay line (a copy per block).
///
/// Voice activity detection and dereverberation stay off, at speexdsp's
/// defaults (VAD only reports, and setting it prints a warning on stderr;
/// dereverb colours the voice). Echo cancellation (`speex_echo_cancellation`)
/// is deliberately not used: in a mic-to-speaker amplifier the far-end
/// reference would be the speaker feed, which is the amplified near-end voice
/// itself, so an adaptive echo canceller's estimate is biased by that
/// correlation and it cancels the voice along with the echo (the known reason
/// feedback cancellers need decorrelation tricks; the howl guard handles
/// feedback instead). `EchoCancellationChoiceTests` measures it: 34.9 dB of
/// echo removed with an independent far end, a worse residual than no
/// canceller at all with the amplified voice as the far end.
public final class VoiceProcessingNode: AudioNode {
    /// Whether the noise suppressor runs.
    public let noiseSuppression: Bool
    /// Whether the automatic gain control runs.
    public let automaticGainControl: Bool
    /// How much the noise suppressor may attenuate noise, dB (speexdsp's default is −15).
    public let noiseSuppressDB: Int32
    /// The loudness the gain control aims at: the RMS of a spoken phrase, dBFS.
    public let agcTargetDBFS: Float
    /// speexdsp's AGC level is a spectrally weighted loudness, not an RMS: on
    /// the ALSA voice recordings the RMS it settles at is this many dB below
    /// the level it is given (measured: levels of −18 and −10 dBFS gave −37.1
    /// and −29.1 dBFS). Its level tops out at 32768, so targets above −19 dBFS
    /// are held there.
    public static let agcLoudnessOffsetDB: Float = 19
    /// The most gain the gain control may add, dB.
    public let agcMaxGainDB: Int32

    // MARK: Shared (atomics)
    private let switchedOn: Atomic<Bool>

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// How long a speexdsp frame is.
    public let frameMilliseconds: Double
    /// Frames per speexdsp frame. Valid after prepare.
    public private(set) var frameLength = 0
    /// The delay of the node, two frames. Valid after prepare.
    public var latencyFrames: Int { 2 * frameLength }
    private var channelCount = 0
    /// One speexdsp preprocessor per channel.
    private var states: UnsafeMutablePointer<OpaquePointer?>
    /// Per channel, `frameLength` floats: the frame gathering input…
    private var gathering: UnsafeMutablePointer<Float>
    /// …and the processed frame playing out.
    private var playing: UnsafeMutablePointer<Float>
    /// Per channel, `frameLength` floats: the frame gathered before, which speexdsp's
    /// own one-frame delay lines up with its output (the plain path when off).
    private var previous: UnsafeMutablePointer<Float>
    /// One frame of 16-bit samples, speexdsp's in-and-out buffer.
    private var pcm: UnsafeMutablePointer<Int16>

    // MARK: Audio thread only
    private var position = 0
    private var wasOn = false

    /// - Parameters:
    ///   - isOn: whether it processes from the start.
    ///   - noiseSuppression: run the noise suppressor.
    ///   - automaticGainControl: run the gain control.
    ///   - noiseSuppressDB: the noise suppressor's greatest attenuation (negative dB).
    ///   - agcTargetDBFS: the speech level the gain control aims at.
    ///   - agcMaxGainDB: the most the gain control may raise a quiet voice.
    ///   - frameMilliseconds: speexdsp's frame; the latency is twice this.
    public init(name: String = "voice processing", isOn: Bool = true, noiseSuppression: Bool = true,
                automaticGainControl: Bool = true, noiseSuppressDB: Int32 = -25,
                agcTargetDBFS: Float = -24, agcMaxGainDB: Int32 = 30, frameMilliseconds: Double = 10) {
        precondition(frameMilliseconds >= 1 && frameMilliseconds <= 40)
        self.frameMilliseconds = frameMilliseconds
        self.noiseSuppression = noiseSuppression
        self.automaticGainControl = automaticGainControl
        self.noiseSuppressDB = noiseSuppressDB
        self.agcTargetDBFS = agcTargetDBFS
        self.agcMaxGainDB = agcMaxGainDB
        switchedOn = Atomic(isOn)
        wasOn = isOn
        states = .allocate(capacity: 1)
        states.initialize(to: nil)
        gathering = .allocate(capacity: 1)
        playing = .allocate(capacity: 1)
        previous = .allocate(capacity: 1)
        pcm = .allocate(capacity: 1)
        super.init(name: name)
    }

    deinit { freeStates() }

    /// Destroys the preprocessors and frees the buffers.
    /// - Realtime: unsafe (frees). Control thread only.
    private func freeStates() {
        for c in 0..<channelCount { if let s = states[c] { speex_preprocess_state_destroy(s) } }
        states.deallocate()
        gathering.deallocate()
        playing.deallocate()
        previous.deallocate()
        pcm.deallocate()
        channelCount = 0
    }

    /// Whether it cleans the voice; off, the input passes through delayed by `latencyFrames`.
    /// - Thread: any
    /// - Realtime: safe (an atomic load or store)
    public var isOn: Bool {
        get { switchedOn.load(ordering: .relaxed) }
        set { switchedOn.store(newValue, ordering: .relaxed) }
    }

    /// Makes and sets up one preprocessor per channel for 10 ms frames at the spec's rate.
    /// - Realtime: unsafe (allocates, speexdsp init). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        freeStates()
        let rate = Int32(spec.sampleRate.rounded())
        let size = max(1, Int((spec.sampleRate * frameMilliseconds / 1000).rounded()))
        frameLength = size
        let channels = max(1, outputChannelCount)
        states = .allocate(capacity: channels)
        for c in 0..<channels {
            let state = speex_preprocess_state_init(Int32(size), rate)
            var denoise: Int32 = noiseSuppression ? 1 : 0, agc: Int32 = automaticGainControl ? 1 : 0, off: Int32 = 0
            var suppress = noiseSuppressDB, maxGain = agcMaxGainDB
            // speexdsp's AGC level, in 16-bit units of its own loudness measure (see `agcLoudnessOffsetDB`).
            var level = min(32768, 32768 * powf(10, (agcTargetDBFS + Self.agcLoudnessOffsetDB) / 20))
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &denoise)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &agc)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &maxGain)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
            states.advanced(by: c).initialize(to: state)
        }
        channelCount = channels
        for buffer in [\VoiceProcessingNode.gathering, \.playing, \.previous] {
            self[keyPath: buffer] = .allocate(capacity: channels * size)
            self[keyPath: buffer].initialize(repeating: 0, count: channels * size)
        }
        pcm = .allocate(capacity: size)
        pcm.initialize(repeating: 0, count: size)
    }

    // MARK: Audio thread

    /// Empties the frames (the preprocessors keep what they learnt of the noise).
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated buffers.
    @_noLocks
    public override func reset() {
        let count = channelCount * frameLength
        for i in 0..<count { gathering[i] = 0 }
        for i in 0..<count { playing[i] = 0 }
        for i in 0..<count { previous[i] = 0 }
        position = 0
        wasOn = switchedOn.load(ordering: .relaxed)
    }

    /// Delays input bus 0 by one frame into `output`, cleaning each full frame.
    /// - Thread: audio
    /// - Realtime: safe. Copies between preallocated buffers and, once per
    ///   10 ms frame and channel, `speex_preprocess_run`, which works in the
    ///   state made by `allocate` (no allocation, no locks).
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let lastInput = input.channelCount - 1
        let outChannels = min(output.channelCount, channelCount)
        for c in outChannels..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
        let size = frameLength
        var done = 0
        while done < frames {
            let n = min(size - position, frames - done)
            for c in 0..<outChannels {
                // Element loops: the checker reads `update(from:count:)` as a possible deallocation.
                let out = output.channels[c] + done, from = playing + c * size + position
                let into = gathering + c * size + position, source = input.channels[min(c, lastInput)] + done
                for i in 0..<n { out[i] = from[i] }
                for i in 0..<n { into[i] = source[i] }
            }
            position += n
            done += n
            if position == size {
                processFrame()
                position = 0
            }
        }
    }

    /// Turns the gathered frame into the next playing frame: speexdsp's output
    /// (which lags its input by one frame) when on, the frame gathered before when off.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers and `speex_preprocess_run`.
    @_noLocks
    private func processFrame() {
        let on = switchedOn.load(ordering: .relaxed), was = wasOn
        let size = frameLength
        let scale: Float = 1 / 32768
        for c in 0..<channelCount {
            let raw = gathering + c * size, plain = previous + c * size, out = playing + c * size
            if on || was {
                let samples = pcm, state = states[c]
                if on && !was {
                    // Switched on: speexdsp last ran long ago, and its overlap-add would join that
                    // old frame to this one. Run it once on the frame before (output discarded) so
                    // the overlap it carries is the signal's own.
                    toPCM(plain, samples, size)
                    _ = _unsafePerformance { speex_preprocess_run(state, samples) }  // preallocated state: no allocation, no locks
                }
                toPCM(raw, samples, size)
                _ = _unsafePerformance { speex_preprocess_run(state, samples) }  // preallocated state: no allocation, no locks
                if on && was {
                    for i in 0..<size { out[i] = Float(samples[i]) * scale }
                } else {
                    // Switched at this frame: crossfade linearly from the old path to the new one.
                    let step = 1 / Float(size)
                    for i in 0..<size {
                        let t = Float(i) * step, processed = Float(samples[i]) * scale
                        out[i] = on ? plain[i] + t * (processed - plain[i]) : processed + t * (plain[i] - processed)
                    }
                }
            } else {
                for i in 0..<size { out[i] = plain[i] }
            }
            for i in 0..<size { plain[i] = raw[i] }
        }
        wasOn = on
    }

    /// Float samples to speexdsp's 16-bit ones, clamped, rounded half away from zero
    /// (by hand: `rounded()` drags in type metadata the `@_noLocks` checker refuses).
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers.
    @_noLocks @inline(__always)
    private func toPCM(_ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Int16>, _ count: Int) {
        for i in 0..<count {
            let scaled = max(-32768, min(32767, source[i] * 32768))
            destination[i] = Int16(scaled + (scaled < 0 ? -0.5 : 0.5))
        }
    }
}
