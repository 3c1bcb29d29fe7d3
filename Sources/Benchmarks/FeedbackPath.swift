import DSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The acoustic path from a speaker back into the mic, for the feedback
/// simulator: a pure delay (sound travelling, plus converter latency), an
/// impulse response (a room, or one resonance), and the loop gain.
///
/// The impulse response is normalized so that its magnitude response peaks
/// at exactly 0 dB: `gainDB` is then the gain of the path at its loudest
/// frequency, and the chain's own gain adds to it.
public struct FeedbackPath: Sendable {
    public var name: String
    public var delayFrames: Int
    /// Normalized to a 0 dB peak in its magnitude response.
    public let impulseResponse: [Float]

    /// - Realtime: unsafe (allocates). Control thread only.
    public init(name: String, delayFrames: Int, impulseResponse: [Float]) {
        self.name = name
        self.delayFrames = max(0, delayFrames)
        self.impulseResponse = FeedbackPath.normalized(impulseResponse)
    }

    /// One strong resonance (an RBJ peaking filter, +12 dB at `frequency`,
    /// Q 4, over a flat floor): the textbook howl, at one frequency.
    public static func resonant(sampleRate: Double, delayMilliseconds: Double = 5, frequency: Double = 1200) -> FeedbackPath {
        let filter = Biquad(coefficients: .make(kind: .peaking, sampleRate: sampleRate, frequency: frequency, gainDB: 12, q: 4))
        var state = BiquadState()
        var response = [Float](repeating: 0, count: 1024)
        response[0] = 1
        response.withUnsafeMutableBufferPointer { filter.process($0.baseAddress!, count: $0.count, state: &state) }
        return FeedbackPath(name: "resonant \(Int(frequency)) Hz", delayFrames: Int(delayMilliseconds * sampleRate / 1000),
                            impulseResponse: response)
    }

    /// A small room: the direct sound, six early reflections and a diffuse
    /// tail of decaying noise (RT60 `reverberationSeconds`, cut after
    /// `lengthSeconds`), through a speaker-like band-pass (2nd-order high-pass
    /// at 150 Hz, low-pass at 6 kHz). Its magnitude response has the dense
    /// random peaks of a real room, the hard case for notch suppressors.
    /// Reproducible: `seed` fixes the noise.
    public static func room(sampleRate: Double, delayMilliseconds: Double = 5, reverberationSeconds: Double = 0.4,
                            lengthSeconds: Double = 0.05, seed: UInt64 = 7) -> FeedbackPath {
        let length = max(64, Int(lengthSeconds * sampleRate))
        var response = [Float](repeating: 0, count: length)
        var state = seed
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(Int32(truncatingIfNeeded: state >> 32)) / Double(Int32.max)
        }
        response[0] = 1
        // Early reflections: walls a few metres away, weaker with distance.
        for (ms, amplitude) in [(2.9, 0.6), (4.3, -0.5), (6.1, 0.45), (7.7, -0.4), (9.8, 0.35), (12.6, -0.3)] {
            let i = Int(ms * sampleRate / 1000)
            if i < length { response[i] += Float(amplitude) }
        }
        // Diffuse tail from 10 ms: energy about that of the direct sound.
        let decay = log(1000.0) / (reverberationSeconds * sampleRate)   // 60 dB in RT60
        let start = Int(0.01 * sampleRate)
        for i in start..<length {
            let envelope = exp(-decay * Double(i - start))
            response[i] += Float(0.12 * envelope * (uniform() + uniform() + uniform()))
        }
        // Speaker and mic: band-pass 150 Hz … 6 kHz.
        for (kind, frequency) in [(BiquadKind.highPass, 150.0), (.highPass, 150.0)] {
            let f = Biquad(coefficients: .make(kind: kind, sampleRate: sampleRate, frequency: frequency, gainDB: 0, q: 0.7071))
            var s = BiquadState()
            response.withUnsafeMutableBufferPointer { f.process($0.baseAddress!, count: $0.count, state: &s) }
        }
        let lowPass = Biquad(coefficients: FeedbackPath.lowPass(sampleRate: sampleRate, frequency: 6000))
        var s = BiquadState()
        response.withUnsafeMutableBufferPointer { lowPass.process($0.baseAddress!, count: $0.count, state: &s) }
        return FeedbackPath(name: "room (RT60 \(reverberationSeconds) s)", delayFrames: Int(delayMilliseconds * sampleRate / 1000),
                            impulseResponse: response)
    }

    /// The RBJ cookbook second-order low-pass (Butterworth Q).
    static func lowPass(sampleRate: Double, frequency: Double) -> BiquadCoefficients {
        let w0 = 2 * Double.pi * frequency / sampleRate
        let alpha = sin(w0) / (2 * 0.7071), c = cos(w0)
        let a0 = 1 + alpha
        return BiquadCoefficients(b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }

    /// The magnitude response of `response` on a 16384-point grid, in dB.
    public static func magnitudeDB(of response: [Float]) -> [Float] {
        let n = max(16384, 1 << (Int.bitWidth - (response.count - 1).leadingZeroBitCount))
        let fft = RadixTwoFFT(size: n)
        var re = [Float](repeating: 0, count: n), im = [Float](repeating: 0, count: n)
        for (i, x) in response.enumerated() { re[i] = x }
        re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { fft.transform(real: r.baseAddress!, imaginary: $0.baseAddress!) } }
        return (0...n / 2).map { 10 * log10f(re[$0] * re[$0] + im[$0] * im[$0] + 1e-30) }
    }

    /// `response` scaled so that its magnitude response peaks at 0 dB.
    static func normalized(_ response: [Float]) -> [Float] {
        guard let peak = magnitudeDB(of: response).max(), peak > -300 else { return response }
        let scale = powf(10, -peak / 20)
        return response.map { $0 * scale }
    }
}
