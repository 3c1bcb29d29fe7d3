import AudioFiles
import CSpeexDSP
import XCTest

/// Why `busker live` has no echo canceller, measured rather than asserted.
///
/// speexdsp's echo canceller (`speex_echo_cancellation`, MDF, 50 ms filter)
/// is run on a simulated echo path: the mic picks up the near-end voice plus
/// the speaker feed, 5 ms later and 6 dB down.
/// 1. A phone call (the speaker plays an independent far-end talker, the near
///    end is silent): the canceller removes the echo (echo return loss
///    enhancement, ERLE, over the last phrase).
/// 2. A mic-to-speaker amplifier (the speaker plays the voice itself, 20 ms
///    later: Busker's own output): the canceller's reference is correlated with
///    the near-end voice and there is never a far-end-only moment to learn the
///    path from; its output ends further from the clean voice than the
///    uncancelled mic (residual power re the voice, dB).
final class EchoCancellationChoiceTests: XCTestCase {
    static let frame = 480, rate: Int32 = 48_000

    private func load(_ name: String) throws -> [Float] {
        let reader = try SoundFileReader(path: "/usr/share/sounds/alsa/\(name).wav")
        let all = try reader.readAll()
        return stride(from: 0, to: all.count, by: reader.channelCount).map { all[$0] }
    }

    /// The mic (voice plus the speaker 5 ms later, 6 dB down) and the echo canceller's output.
    private func cancel(voice: [Float], speaker: [Float]) -> (mic: [Float], cleaned: [Float]) {
        let n = Self.frame, pathDelay = 240, pathGain: Float = 0.5
        let state = speex_echo_state_init(Int32(n), 2400)!
        defer { speex_echo_state_destroy(state) }
        var rate = Self.rate
        speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        let frames = voice.count / n
        var mic = [Float](repeating: 0, count: frames * n), cleaned = mic
        var rec = [Int16](repeating: 0, count: n), play = rec, out = rec
        for k in 0..<frames {
            for i in 0..<n {
                let t = k * n + i
                mic[t] = voice[t] + (t >= pathDelay ? pathGain * speaker[t - pathDelay] : 0)
                rec[i] = Int16(max(-32768, min(32767, (mic[t] * 32768).rounded())))
                play[i] = Int16(max(-32768, min(32767, (speaker[t] * 32768).rounded())))
            }
            speex_echo_cancellation(state, rec, play, &out)
            for i in 0..<n { cleaned[k * n + i] = Float(out[i]) / 32768 }
        }
        return (mic, cleaned)
    }

    /// Power of `x − reference` (or of `x` alone) over the last `count` samples, dB.
    private func powerDB(_ x: [Float], minus reference: [Float]? = nil, last count: Int) -> Double {
        var sum = 0.0
        for t in (x.count - count)..<x.count {
            let d = x[t] - (reference?[t] ?? 0)
            sum += Double(d * d)
        }
        return 10 * log10(sum / Double(count))
    }

    func testEchoCancellerHelpsAPhoneCallButHurtsAnAmplifiedVoice() throws {
        let voice = try load("Front_Center"), other = try load("Rear_Left")
        let gap = [Float](repeating: 0, count: 9_600)
        // 1. A phone call: the far end talks (six phrases) while the near end is silent.
        let farEnd = (0..<6).flatMap { _ in gap + other }
        let call = cancel(voice: [Float](repeating: 0, count: farEnd.count), speaker: farEnd)
        let last = other.count / 480 * 480 - 480
        let erle = powerDB(call.mic, last: last) - powerDB(call.cleaned, last: last)
        // 2. An amplifier: the speaker plays the mic's own voice 20 ms later (the loop: chain, buffers, air).
        let talker = (0..<6).flatMap { _ in gap + voice }
        let amplified = [Float](repeating: 0, count: 960) + talker.dropLast(960)
        let amp = cancel(voice: talker, speaker: amplified)
        let t = Array(talker.prefix(amp.mic.count))
        let without = powerDB(amp.mic, minus: t, last: last) - powerDB(t, last: last)
        let with = powerDB(amp.cleaned, minus: t, last: last) - powerDB(t, last: last)
        print("speexdsp echo canceller: phone call, echo return loss enhancement \(fmt(erle)) dB;"
              + " amplified voice, residual re the voice \(fmt(without)) dB without it, \(fmt(with)) dB with it")
        XCTAssertGreaterThan(erle, 10, "with an independent far end the canceller removes the echo")
        XCTAssertGreaterThan(with, without, "with the voice itself as the far end it leaves the voice further from clean")
    }

    private func fmt(_ x: Double) -> String { String(format: "%.1f", x) }
}
