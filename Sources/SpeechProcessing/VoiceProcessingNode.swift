#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSP
import Engine
import Synchronization

/// The "voice processing" switch of the phone apps: spectral noise
/// suppression (`SpectralNoiseSuppressor`) and automatic gain control
/// (`VoiceLevelControl`), one of each per channel, on a short-time Fourier
/// transform.
///
/// The transform: frames of N samples (`windowLength`: 512 at 44.1 and
/// 48 kHz, 1024 at 96 kHz) every N/2 samples
/// (`hopLength`), a sine window on the way in and again on the way out (their
/// product, a Hann window, sums to exactly 1 at half overlap, so with every
/// gain at 1 the output is the input, delayed). Input gathers into a hop; when
/// the hop is full, the frame that ends there is transformed, each bin scaled
/// by the suppressor's gain, transformed back and overlap-added, which
/// completes the oldest hop of the frame; that hop plays out while the next
/// gathers. So the node's delay, `latencyFrames`, is N (10.7 ms at 48 kHz),
/// on or off (off, the input is delayed the same, so switching never shifts
/// the timing), and the output does not depend on the block size.
///
/// The gain control follows the cleaned voice's level in hops whose speech
/// band (300–4000 Hz) stands more than 4.8 dB (3×) over the noise the
/// suppressor has learnt there, and ramps its gain linearly across each hop.
/// Between phrases it adds nothing, so the noise left in the pauses stays
/// where the suppressor puts it. With noise suppression off, the transform still runs (with
/// unit gains) to learn the noise for that test.
///
/// Switching (`isOn`) is an atomic read at each hop; the hop at which it
/// changes crossfades linearly between the plain and the processed signal.
/// Switching on first runs the frame before through the transform (its output
/// discarded), so the overlap-add starts from the signal's own frames, and
/// the gain control starts again from 0 dB. Off, the output is the input
/// delayed, and the suppressor goes on learning the noise (the forward
/// transform and the noise estimate, not the gains or the inverse), so switching on in a street
/// that has grown louder does not take its new noise for voice. An input
/// sample that is not finite or is beyond ±10⁴ (80 dB over full scale:
/// damage, not audio) is taken as 0, on or off, so it never stays in what the
/// suppressor has learnt.
///
/// Echo cancellation is deliberately not part of it: in a mic-to-speaker
/// amplifier the far-end reference would be the speaker feed, which is the
/// amplified near-end voice itself, so an adaptive echo canceller's estimate
/// is biased by that correlation and it cancels the voice along with the echo
/// (the known reason feedback cancellers need decorrelation tricks; the howl
/// guard handles feedback instead). `EchoCancellationChoiceTests` measures it
/// with speexdsp's canceller: 34.9 dB of echo removed with an independent far
/// end, a worse residual than no canceller at all with the amplified voice as
/// the far end.
public final class VoiceProcessingNode: AudioNode {
    /// Whether the noise suppressor runs.
    public let noiseSuppression: Bool
    /// Whether the automatic gain control runs.
    public let automaticGainControl: Bool
    /// How much the noise suppressor may attenuate noise, dB (negative).
    public let noiseSuppressDB: Float
    /// The loudness the gain control aims at: the RMS of a spoken phrase, dBFS.
    public let agcTargetDBFS: Float
    /// The most gain the gain control may add, dB.
    public let agcMaxGainDB: Float
    /// The speech band the gain control's voice test reads, Hz.
    public static let speechBand: ClosedRange<Double> = 300...4000
    /// How far the speech band's power must stand over its noise for a hop to count as voice.
    public static let voicedOverNoise: Float = 3

    // MARK: Shared (atomics)
    private let switchedOn: Atomic<Bool>

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// Samples per transform frame, N. Valid after prepare.
    public private(set) var windowLength = 0
    /// Samples between frames, N/2. Valid after prepare.
    public private(set) var hopLength = 0
    /// The delay of the node, one frame. Valid after prepare.
    public var latencyFrames: Int { windowLength }
    private var channelCount = 0
    private var fft: RealFFT?
    private var suppressors: [SpectralNoiseSuppressor] = []
    /// `fft` and `suppressors` unretained, for the audio thread (no reference counting there).
    private var fftReference: Unmanaged<RealFFT>?
    private var suppressorReferences: UnsafeMutablePointer<Unmanaged<SpectralNoiseSuppressor>>?
    private var levelControls: UnsafeMutablePointer<VoiceLevelControl>
    private var speechBins = 0..<0
    /// The sine window, N values.
    private var window: UnsafeMutablePointer<Float>
    /// Per channel, N + N/2 samples: the last frame and, before it, the hop
    /// before it (the frame before, which a switch on primes with).
    private var history: UnsafeMutablePointer<Float>
    /// Per channel, N/2 samples: the overlap-add's tail…
    private var overlap: UnsafeMutablePointer<Float>
    /// …and the hop playing out.
    private var playing: UnsafeMutablePointer<Float>
    /// Per channel: the gain control's gain at the end of the last hop, linear.
    private var levelGains: UnsafeMutablePointer<Float>
    /// Scratch: one frame, one processed hop, and the spectrum's parts, powers and gains.
    private var frame: UnsafeMutablePointer<Float>
    private var processed: UnsafeMutablePointer<Float>
    private var real: UnsafeMutablePointer<Float>
    private var imaginary: UnsafeMutablePointer<Float>
    private var power: UnsafeMutablePointer<Float>
    private var gains: UnsafeMutablePointer<Float>

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
    public init(name: String = "voice processing", isOn: Bool = true, noiseSuppression: Bool = true,
                automaticGainControl: Bool = true, noiseSuppressDB: Float = -25,
                agcTargetDBFS: Float = -24, agcMaxGainDB: Float = 30) {
        self.noiseSuppression = noiseSuppression
        self.automaticGainControl = automaticGainControl
        self.noiseSuppressDB = min(0, noiseSuppressDB)
        self.agcTargetDBFS = agcTargetDBFS
        self.agcMaxGainDB = agcMaxGainDB
        switchedOn = Atomic(isOn)
        wasOn = isOn
        levelControls = .allocate(capacity: 1)
        window = .allocate(capacity: 1)
        history = .allocate(capacity: 1)
        overlap = .allocate(capacity: 1)
        playing = .allocate(capacity: 1)
        levelGains = .allocate(capacity: 1)
        frame = .allocate(capacity: 1)
        processed = .allocate(capacity: 1)
        real = .allocate(capacity: 1)
        imaginary = .allocate(capacity: 1)
        power = .allocate(capacity: 1)
        gains = .allocate(capacity: 1)
        super.init(name: name)
    }

    deinit { freeBuffers() }

    /// Frees the buffers.
    /// - Realtime: unsafe (frees). Control thread only.
    private func freeBuffers() {
        levelControls.deinitialize(count: channelCount)
        levelControls.deallocate()
        for b in [window, history, overlap, playing, levelGains, frame, processed, real, imaginary, power, gains] {
            b.deallocate()
        }
        suppressorReferences?.deallocate()
        suppressorReferences = nil
        fftReference = nil
        suppressors = []
        fft = nil
        channelCount = 0
    }

    /// Whether it cleans the voice; off, the input passes through delayed by `latencyFrames`.
    /// - Thread: any
    /// - Realtime: safe (an atomic load or store)
    public var isOn: Bool {
        get { switchedOn.load(ordering: .relaxed) }
        set { switchedOn.store(newValue, ordering: .relaxed) }
    }

    /// The transform's frame for a rate: the power of two nearest 512 frames at
    /// 48 kHz on a log scale (64 at 8 kHz, 512 at 44.1 kHz, 2048 at 192 kHz).
    /// - Thread: any
    /// - Realtime: safe (arithmetic)
    public static func windowLength(sampleRate: Double) -> Int {
        let ideal = max(16, sampleRate * 512 / 48_000)
        return 1 << Int(log2(ideal).rounded())
    }

    /// Makes the transform, one suppressor and gain control per channel, and every buffer.
    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        freeBuffers()
        let n = Self.windowLength(sampleRate: spec.sampleRate), h = n / 2, bins = n / 2 + 1
        windowLength = n
        hopLength = h
        let channels = max(1, outputChannelCount)
        channelCount = channels
        let hopSeconds = Double(h) / spec.sampleRate
        let transform = RealFFT(size: n)
        fft = transform
        fftReference = Unmanaged.passUnretained(transform)
        suppressors = (0..<channels).map { _ in
            SpectralNoiseSuppressor(binCount: bins, hopSeconds: hopSeconds, floorDB: noiseSuppressDB)
        }
        let references = UnsafeMutablePointer<Unmanaged<SpectralNoiseSuppressor>>.allocate(capacity: channels)
        references.initialize(from: suppressors.map { Unmanaged.passUnretained($0) }, count: channels)
        suppressorReferences = references
        levelControls = .allocate(capacity: channels)
        levelControls.initialize(repeating: VoiceLevelControl(targetDBFS: agcTargetDBFS, maxGainDB: agcMaxGainDB,
                                                              hopSeconds: hopSeconds), count: channels)
        let low = Int((Self.speechBand.lowerBound * Double(n) / spec.sampleRate).rounded())
        let high = Int((Self.speechBand.upperBound * Double(n) / spec.sampleRate).rounded())
        speechBins = min(low, bins - 1)..<max(min(low, bins - 1) + 1, min(high + 1, bins))
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let b = UnsafeMutablePointer<Float>.allocate(capacity: count)
            b.initialize(repeating: 0, count: count)
            return b
        }
        window = buffer(n)
        for i in 0..<n { window[i] = Float(sin(Double.pi * Double(i) / Double(n))) }
        history = buffer(channels * (n + h))
        overlap = buffer(channels * h)
        playing = buffer(channels * h)
        levelGains = buffer(channels)
        for c in 0..<channels { levelGains[c] = 1 }
        frame = buffer(n)
        processed = buffer(h)
        real = buffer(bins)
        imaginary = buffer(bins)
        power = buffer(bins)
        gains = buffer(bins)
        position = 0
    }

    // MARK: Audio thread

    /// Empties the frames (the suppressors keep what they learnt of the noise,
    /// the gain controls their gain).
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated buffers.
    @_noLocks
    public override func reset() {
        let n = windowLength, h = hopLength
        for i in 0..<(channelCount * (n + h)) { history[i] = 0 }
        for i in 0..<(channelCount * h) { overlap[i] = 0 }
        for i in 0..<(channelCount * h) { playing[i] = 0 }
        position = 0
        wasOn = switchedOn.load(ordering: .relaxed)
    }

    /// Delays input bus 0 by one frame into `output`, cleaning each full hop.
    /// - Thread: audio
    /// - Realtime: safe. Copies between preallocated buffers and, once per hop
    ///   and channel while on, one frame through the transform.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let lastInput = input.channelCount - 1
        let outChannels = min(output.channelCount, channelCount)
        for c in outChannels..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
        let n = windowLength, h = hopLength
        guard h > 0 else { output.clear(); return }  // not allocated
        var done = 0
        while done < frames {
            let count = min(h - position, frames - done)
            for c in 0..<outChannels {
                // Element loops: the checker reads `update(from:count:)` as a possible deallocation.
                let out = output.channels[c] + done, from = playing + c * h + position
                let into = history + c * (n + h) + n + position, source = input.channels[min(c, lastInput)] + done
                for i in 0..<count { out[i] = from[i] }
                // A damaged float sample (NaN, ±∞, or so large its power overflows) would stay
                // in the noise estimate for good: silence it (NaN fails the comparison too).
                for i in 0..<count {
                    let v = source[i]
                    into[i] = abs(v) <= 1e4 ? v : 0
                }
            }
            position += count
            done += count
            if position == h {
                processHop()
                position = 0
            }
        }
    }

    /// Turns the gathered hop into the next playing hop: the processed signal
    /// when on, the input one frame back when off, a crossfade at a switch.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers.
    @_noLocks
    private func processHop() {
        let on = switchedOn.load(ordering: .relaxed), was = wasOn
        let n = windowLength, h = hopLength
        for c in 0..<channelCount {
            let past = history + c * (n + h), tail = overlap + c * h, out = playing + c * h
            // The input one frame back: the hop the processed frame completes.
            let plain = past + h
            if on || was {
                if on && !was {
                    // Switched on: the overlap left from long ago would join that old frame to
                    // this one. Run the frame before (output discarded) to start from its tail.
                    for i in 0..<h { tail[i] = 0 }
                    levelControls[c].restart()
                    levelGains[c] = 1
                    transformFrame(past, channel: c, overlap: tail)
                }
                transformFrame(past + h, channel: c, overlap: tail)
                if automaticGainControl { applyLevelControl(channel: c) }
                let wet = processed
                if on && was {
                    for i in 0..<h { out[i] = wet[i] }
                } else {
                    // Switched at this hop: crossfade linearly from the old path to the new one.
                    let step = 1 / Float(h)
                    for i in 0..<h {
                        let t = Float(i) * step
                        out[i] = on ? plain[i] + t * (wet[i] - plain[i]) : wet[i] + t * (plain[i] - wet[i])
                    }
                }
            } else {
                for i in 0..<h { out[i] = plain[i] }
                learnFrame(past + h, channel: c)
            }
            // Slide the history on by one hop.
            for i in 0..<n { past[i] = past[i + h] }
        }
        wasOn = on
    }

    /// One frame through the transform: windowed, suppressed bin by bin,
    /// transformed back and overlap-added into `processed` (the completed hop)
    /// and `overlap` (the next hop's start).
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers.
    @_noLocks
    private func transformFrame(_ samples: UnsafeMutablePointer<Float>, channel: Int,
                                overlap tail: UnsafeMutablePointer<Float>) {
        let h = hopLength, bins = h + 1
        let w = window, x = frame, re = real, im = imaginary, p = power, g = gains, wet = processed
        guard let fft = fftReference, let suppressor = suppressorReferences?[channel] else { return }
        fft._withUnsafeGuaranteedRef { $0.forward(samples, window: w, real: re, imaginary: im) }
        for k in 0..<bins { p[k] = re[k] * re[k] + im[k] * im[k] }
        let suppress = noiseSuppression
        suppressor._withUnsafeGuaranteedRef { $0.process(power: p, gains: g, suppress: suppress) }
        for k in 0..<bins {
            re[k] *= g[k]
            im[k] *= g[k]
        }
        fft._withUnsafeGuaranteedRef { $0.inverse(real: re, imaginary: im, into: x, window: w) }
        for i in 0..<h { wet[i] = tail[i] + x[i] }
        for i in 0..<h { tail[i] = x[h + i] }
    }

    /// While off: the frame's spectrum goes to the suppressor to learn from,
    /// and no further (no gains applied, nothing transformed back).
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers.
    @_noLocks
    private func learnFrame(_ samples: UnsafeMutablePointer<Float>, channel: Int) {
        let bins = hopLength + 1
        let w = window, re = real, im = imaginary, p = power, g = gains
        guard let fft = fftReference, let suppressor = suppressorReferences?[channel] else { return }
        fft._withUnsafeGuaranteedRef { $0.forward(samples, window: w, real: re, imaginary: im) }
        for k in 0..<bins { p[k] = re[k] * re[k] + im[k] * im[k] }
        suppressor._withUnsafeGuaranteedRef { $0.process(power: p, gains: g, suppress: false) }
    }

    /// The gain control on the hop just processed: its level and the voice
    /// test go in, the gain ramps from the last hop's to the new one.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated buffers.
    @_noLocks
    private func applyLevelControl(channel c: Int) {
        let h = hopLength, wet = processed
        var sum: Float = 0
        for i in 0..<h { sum += wet[i] * wet[i] }
        var band: Float = 0
        for k in speechBins { band += power[k] }
        let bins = speechBins
        let noise = suppressorReferences?[c]._withUnsafeGuaranteedRef { $0.noisePower(bins: bins) } ?? 0
        let voiced = band > Self.voicedOverNoise * noise
        let start = levelGains[c]
        let end = levelControls[c].update(meanSquare: sum / Float(h), voiced: voiced)
        levelGains[c] = end
        let step = (end - start) / Float(h)
        for i in 0..<h { wet[i] *= start + Float(i + 1) * step }
    }
}
