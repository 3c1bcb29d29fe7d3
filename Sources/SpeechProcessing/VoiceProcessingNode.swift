#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AudioCore
import CSpeexDSP
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
/// frames (480 at 48 kHz): input is gathered into a frame, the frame is
/// processed when full, and the processed frame is played out while the next
/// one gathers. That is a fixed delay of one frame, `latencyFrames`, whether
/// the node is on or off (so switching never shifts the timing), and it does
/// not depend on the block size. Conversion to and from Int16 uses buffers
/// made in `allocate`; every speexdsp state is made and set up there too, on
/// the control thread.
///
/// Switching (`isOn`) is an atomic read at each frame boundary; the frame at
/// which it changes crossfades between the plain and the processed signal, so
/// a switch never clicks. Off, the node is a delay line (a copy per block).
///
/// Voice activity detection and dereverberation stay off (VAD only reports;
/// dereverb colours the voice). Echo cancellation (`speex_echo_cancellation`)
/// is deliberately not used: in a mic-to-speaker amplifier the far-end
/// reference would be the speaker feed, which is the amplified near-end voice
/// itself, so an adaptive echo canceller's estimate is biased by that
/// correlation and it cancels the voice along with the echo (the known reason
/// feedback cancellers need decorrelation tricks; the howl guard handles
/// feedback instead).
public final class VoiceProcessingNode: AudioNode, VoiceProcessor {
    /// How much the noise suppressor may attenuate noise, dB (speexdsp's default is −15).
    public let noiseSuppressDB: Int32
    /// The loudness the gain control aims at, dBFS (RMS of speech).
    public let agcTargetDBFS: Float
    /// The most gain the gain control may add, dB.
    public let agcMaxGainDB: Int32

    // MARK: Shared (atomics)
    private let switchedOn: Atomic<Bool>

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// Frames per speexdsp frame (10 ms), which is also the latency. Valid after prepare.
    public private(set) var latencyFrames = 0
    private var channelCount = 0
    /// One speexdsp preprocessor per channel.
    private var states: UnsafeMutablePointer<OpaquePointer?>
    /// Per channel, `latencyFrames` floats: the frame gathering input…
    private var gathering: UnsafeMutablePointer<Float>
    /// …and the processed frame playing out.
    private var playing: UnsafeMutablePointer<Float>
    /// One frame of 16-bit samples, speexdsp's in-and-out buffer.
    private var pcm: UnsafeMutablePointer<Int16>

    // MARK: Audio thread only
    private var position = 0
    private var wasOn = false

    /// - Parameters:
    ///   - isOn: whether it processes from the start.
    ///   - noiseSuppressDB: the noise suppressor's greatest attenuation (negative dB).
    ///   - agcTargetDBFS: the speech level the gain control aims at.
    ///   - agcMaxGainDB: the most the gain control may raise a quiet voice.
    public init(name: String = "voice processing", isOn: Bool = true, noiseSuppressDB: Int32 = -25,
                agcTargetDBFS: Float = -18, agcMaxGainDB: Int32 = 30) {
        self.noiseSuppressDB = noiseSuppressDB
        self.agcTargetDBFS = agcTargetDBFS
        self.agcMaxGainDB = agcMaxGainDB
        switchedOn = Atomic(isOn)
        wasOn = isOn
        states = .allocate(capacity: 1)
        states.initialize(to: nil)
        gathering = .allocate(capacity: 1)
        playing = .allocate(capacity: 1)
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
        pcm.deallocate()
        channelCount = 0
    }

    /// Whether it cleans the voice; off, the input passes through delayed by `latencyFrames`.
    /// - Realtime: safe; an atomic, settable from any thread.
    public var isOn: Bool {
        get { switchedOn.load(ordering: .relaxed) }
        set { switchedOn.store(newValue, ordering: .relaxed) }
    }

    /// Makes and sets up one preprocessor per channel for 10 ms frames at the spec's rate.
    /// - Realtime: unsafe (allocates, speexdsp init). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        freeStates()
        let rate = Int32(spec.sampleRate.rounded())
        latencyFrames = max(1, Int((spec.sampleRate / 100).rounded()))
        let channels = max(1, outputChannelCount)
        states = .allocate(capacity: channels)
        for c in 0..<channels {
            let state = speex_preprocess_state_init(Int32(latencyFrames), rate)
            var on: Int32 = 1, off: Int32 = 0
            var suppress = noiseSuppressDB, maxGain = agcMaxGainDB
            // speexdsp's AGC level is the target RMS in 16-bit units.
            var level = 32768 * powf(10, agcTargetDBFS / 20)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &on)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &maxGain)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_VAD, &off)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
            states.advanced(by: c).initialize(to: state)
        }
        channelCount = channels
        gathering = .allocate(capacity: channels * latencyFrames)
        gathering.initialize(repeating: 0, count: channels * latencyFrames)
        playing = .allocate(capacity: channels * latencyFrames)
        playing.initialize(repeating: 0, count: channels * latencyFrames)
        pcm = .allocate(capacity: latencyFrames)
        pcm.initialize(repeating: 0, count: latencyFrames)
    }

    /// Empties the frames (the preprocessors keep what they learnt of the noise).
    /// - Realtime: safe. Writes preallocated buffers.
    @_noLocks
    public override func reset() {
        gathering.update(repeating: 0, count: channelCount * latencyFrames)
        playing.update(repeating: 0, count: channelCount * latencyFrames)
        position = 0
        wasOn = switchedOn.load(ordering: .relaxed)
    }

    /// Delays input bus 0 by one frame into `output`, cleaning each full frame.
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
        let size = latencyFrames
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

    /// Turns the gathered frame into the next playing frame.
    /// - Realtime: safe. Arithmetic on preallocated buffers and `speex_preprocess_run`.
    @_noLocks
    private func processFrame() {
        let on = switchedOn.load(ordering: .relaxed), was = wasOn
        let size = latencyFrames
        for c in 0..<channelCount {
            let raw = gathering + c * size, out = playing + c * size
            guard on || was else {
                for i in 0..<size { out[i] = raw[i] }
                continue
            }
            let samples = pcm
            for i in 0..<size {
                // Round half away from zero by hand: `rounded()` drags in type metadata the checker refuses.
                let scaled = max(-32768, min(32767, raw[i] * 32768))
                samples[i] = Int16(scaled + (scaled < 0 ? -0.5 : 0.5))
            }
            let state = states[c]
            _ = _unsafePerformance { speex_preprocess_run(state, samples) }  // preallocated state: no allocation, no locks
            let scale: Float = 1 / 32768
            if on && was {
                for i in 0..<size { out[i] = Float(samples[i]) * scale }
            } else {
                // Switched at this frame: crossfade linearly from the old path to the new one.
                let step = 1 / Float(size)
                for i in 0..<size {
                    let t = Float(i) * step
                    let processed = Float(samples[i]) * scale
                    out[i] = on ? raw[i] + t * (processed - raw[i]) : processed + t * (raw[i] - processed)
                }
            }
        }
        wasOn = on
    }
}
