#if canImport(Glibc)
import Glibc
#endif
import AudioFiles
import Engine
import Engine
import SpeechProcessing
import XCTest

/// Voice processing (spectral noise suppression and gain control) measured on
/// a real voice: the ALSA test recording "Front Center" (48 kHz mono), with
/// noise added.
final class VoiceProcessingNodeTests: XCTestCase {
    static let rate = 48_000
    static let voicePath = "/usr/share/sounds/alsa/Front_Center.wav"

    // MARK: Measurements

    /// Noise suppression on a voice in white and in pink noise at 10 dB SNR:
    /// the speech-to-noise ratio (power in frames where the voice speaks over
    /// power in frames where only noise is) rises by at least 6 dB, and the
    /// voice itself keeps its level within 6 dB.
    func testNoiseSuppressionImprovesSpeechToNoiseRatio() throws {
        let voice = try loadVoice()
        for colour in NoiseColour.allCases {
            let clean = repeated(voice, times: 4, gapSeconds: 0.7)
            let noise = VoiceTestSignals.noise(colour, frames: clean.count, seed: 7)
            let noisy = mix(clean, noise: noise, snrDB: 10)
            let node = VoiceProcessingNode(automaticGainControl: false)
            let out = render(node, noisy)
            let latency = node.latencyFrames
            // The last repetition: the noise estimate has converged.
            let measureFrom = clean.count - (voice.count + Int(0.7 * Double(Self.rate)))
            let before = speechToNoise(clean: clean, signal: noisy, delay: 0, from: measureFrom)
            let after = speechToNoise(clean: clean, signal: out, delay: latency, from: measureFrom)
            print("voice processing, \(colour) noise at 10 dB SNR: speech/noise \(fmt(before.ratioDB)) dB → \(fmt(after.ratioDB)) dB"
                  + " (+\(fmt(after.ratioDB - before.ratioDB)) dB); speech frames \(fmt(before.speechDB)) → \(fmt(after.speechDB)) dBFS,"
                  + " noise frames \(fmt(before.noiseDB)) → \(fmt(after.noiseDB)) dBFS")
            XCTAssertGreaterThan(after.ratioDB - before.ratioDB, 6, "\(colour) noise")
            XCTAssertEqual(after.speechDB, before.speechDB, accuracy: 6, "\(colour): the voice keeps its level")
        }
    }

    /// The gain control brings a quiet voice (the phrase at −45 dBFS RMS) up
    /// to its −24 dBFS target: at least 15 dB louder, within 3 dB of the target.
    func testAutomaticGainControlRaisesAQuietVoice() throws {
        let (inDB, outDB) = try lastPhraseThroughGainControl(levelDBFS: -45, times: 6)
        print("voice processing AGC: quiet voice \(fmt(inDB)) dBFS → \(fmt(outDB)) dBFS (target −24, +\(fmt(outDB - inDB)) dB)")
        XCTAssertGreaterThan(outDB - inDB, 15)
        XCTAssertEqual(outDB, -24, accuracy: 3)
    }

    /// The gain control brings a loud voice (the phrase at −8 dBFS RMS) down
    /// to its −24 dBFS target, within 3 dB.
    func testAutomaticGainControlLowersALoudVoice() throws {
        let (inDB, outDB) = try lastPhraseThroughGainControl(levelDBFS: -8, times: 4)
        print("voice processing AGC: loud voice \(fmt(inDB)) dBFS → \(fmt(outDB)) dBFS (target −24)")
        XCTAssertEqual(outDB, -24, accuracy: 3)
    }

    /// `times` phrases at `levelDBFS` RMS, 0.3 s apart, over a faint noise floor
    /// (−90 dBFS, so the input is never digital silence, as from a real mic),
    /// through the gain control alone (target −24 dBFS): the last phrase's level
    /// in and out (the output shifted by the latency).
    private func lastPhraseThroughGainControl(levelDBFS: Float, times: Int) throws -> (inDB: Float, outDB: Float) {
        let voice = try loadVoice()
        let gap = Int(0.3 * Double(Self.rate))
        let scale = powf(10, (levelDBFS - rmsDB(voice[...])) / 20)
        let phrases = repeated(voice, times: times, gapSeconds: 0.3).map { $0 * scale }
        let floorNoise = VoiceTestSignals.noise(.white, frames: phrases.count, seed: 3)
        let input = zip(phrases, floorNoise).map { $0 + 3e-5 * $1 }
        let node = VoiceProcessingNode(noiseSuppression: false, agcTargetDBFS: -24)
        let out = render(node, input)
        let start = (times - 1) * (gap + voice.count) + gap, d = node.latencyFrames
        return (rmsDB(input[start..<start + voice.count]), rmsDB(out[(start + d)..<min(out.count, start + d + voice.count)]))
    }

    /// Noise alone never counts as voice: with the gain control on, 6 s of
    /// pink noise at −50 dBFS come out at least 20 dB quieter (the suppressor
    /// holds it 25 dB down; the gain control, which may add 30 dB, adds nothing).
    func testTheGainControlNeverRaisesNoiseAlone() {
        let noise = VoiceTestSignals.noise(.pink, frames: 6 * Self.rate, seed: 11)
        let scale = powf(10, (-50 - rmsDB(noise[...])) / 20)
        let input = noise.map { $0 * scale }
        let node = VoiceProcessingNode()
        let out = render(node, input)
        let last = (3 * Self.rate)..<(6 * Self.rate)
        let inDB = rmsDB(input[last]), outDB = rmsDB(out[last])
        print("voice processing on noise alone: \(fmt(inDB)) dBFS → \(fmt(outDB)) dBFS")
        XCTAssertLessThan(outDB, inDB - 20)
    }

    /// Non-finite input (a damaged float file) comes out as silence and does
    /// not poison what the suppressor has learnt: after NaN and ±∞ samples at
    /// 1 s, every output sample is finite and the noise is still held 20 dB down.
    func testNonFiniteInputLeavesTheSuppressorWorking() {
        let noise = VoiceTestSignals.noise(.pink, frames: 5 * Self.rate, seed: 5)
        let scale = powf(10, (-40 - rmsDB(noise[...])) / 20)
        var input = noise.map { $0 * scale }
        for i in 0..<100 { input[Self.rate + i] = [Float.nan, .infinity, -.infinity][i % 3] }
        let out = render(VoiceProcessingNode(), input)
        XCTAssertTrue(out.allSatisfy(\.isFinite))
        let last = (4 * Self.rate)..<(5 * Self.rate)
        XCTAssertLessThan(rmsDB(out[last]), rmsDB(input[last]) - 20)
    }

    /// Digital silence teaches the suppressor nothing: after 3 s of zeros (a
    /// muted mic, a port connected late), pink noise at −50 dBFS is held at
    /// least 20 dB down from its second second on, and the gain control,
    /// which may add 30 dB, does not take it for voice.
    func testNoiseAfterDigitalSilenceIsHeldDown() {
        let noise = VoiceTestSignals.noise(.pink, frames: 3 * Self.rate, seed: 12)
        let scale = powf(10, (-50 - rmsDB(noise[...])) / 20)
        let input = [Float](repeating: 0, count: 3 * Self.rate) + noise.map { $0 * scale }
        let out = render(VoiceProcessingNode(), input)
        let last = (5 * Self.rate)..<(6 * Self.rate)
        let inDB = rmsDB(input[last]), outDB = rmsDB(out[last])
        print("voice processing, noise after 3 s of digital silence: \(fmt(inDB)) dBFS → \(fmt(outDB)) dBFS")
        XCTAssertLessThan(outDB, inDB - 20)
    }

    /// The gain control adds nothing between phrases: a quiet voice at −55 dBFS
    /// in pink noise at −75 dBFS, raised by the gain control's full 30 dB,
    /// leaves the pauses between its phrases at least 23 dB under the input's
    /// noise (the suppressor's floor is 25 dB; with the voice's gain kept on
    /// through the pauses they measured 4.7 dB under).
    func testTheNoiseBetweenPhrasesStaysDownWhateverTheGainControlAdds() throws {
        let voice = try loadVoice()
        let gapSeconds = 1.5, times = 6, gap = Int(gapSeconds * Double(Self.rate))
        let phrases = repeated(voice, times: times, gapSeconds: gapSeconds)
        let voiceScale = powf(10, (-55 - rmsDB(voice[...])) / 20)
        let noise = VoiceTestSignals.noise(.pink, frames: phrases.count, seed: 13)
        let noiseScale = powf(10, (-75 - rmsDB(noise[...])) / 20)
        let input = zip(phrases, noise).map { voiceScale * $0 + noiseScale * $1 }
        let node = VoiceProcessingNode()
        let out = render(node, input)
        // The middle of the last pause: 0.5–1.1 s after the fifth phrase ends.
        let pauseStart = (times - 1) * (gap + voice.count), d = node.latencyFrames
        let range = (pauseStart + Self.rate / 2)..<(pauseStart + Int(1.1 * Double(Self.rate)))
        let inDB = rmsDB(input[range]), outDB = rmsDB(out[(range.lowerBound + d)..<(range.upperBound + d)])
        let phraseStart = pauseStart + gap
        let phraseDB = rmsDB(out[(phraseStart + d)..<min(out.count, phraseStart + d + voice.count)])
        print("voice processing, quiet voice in noise: pauses \(fmt(inDB)) → \(fmt(outDB)) dBFS, last phrase at \(fmt(phraseDB)) dBFS")
        XCTAssertGreaterThan(phraseDB, -55 + 20, "the gain control raised the voice")
        XCTAssertLessThan(outDB, inDB - 23)
    }

    /// With both stages off inside the transform (noise suppression and gain
    /// control off, the node on), the analysis and resynthesis give back the
    /// input, delayed by the frame, to within 1e-5 (−100 dBFS): the windows
    /// add up to exactly one and the transforms invert each other.
    func testTheTransformAloneGivesBackTheInput() throws {
        let voice = try loadVoice()
        let node = VoiceProcessingNode(noiseSuppression: false, automaticGainControl: false)
        let out = render(node, voice, blockSize: 100)
        let d = node.latencyFrames
        let error = (d..<voice.count).map { abs(out[$0] - voice[$0 - d]) }.max()!
        print("voice processing, transform alone: largest difference from the delayed input \(error)")
        XCTAssertLessThan(error, 1e-5)
        XCTAssertGreaterThan(voice.map { abs($0) }.max()!, 0.1, "the voice is loud enough for the bound to mean something")
        // The same at other rates (their own frame lengths), on half-scale white noise.
        for (rate, frame) in [(8_000, 64), (44_100, 512), (96_000, 1024), (192_000, 2048)] {
            XCTAssertEqual(VoiceProcessingNode.windowLength(sampleRate: Double(rate)), frame)
            let noise = VoiceTestSignals.noise(.white, frames: rate, seed: 2).map { 0.5 * $0 }
            let node = VoiceProcessingNode(noiseSuppression: false, automaticGainControl: false)
            let harness = MonoRenderHarness(node: node, sampleRate: Double(rate), maximumBlockSize: 128)
            let out = harness.run(noise, blockSize: 128)
            XCTAssertEqual(node.latencyFrames, frame)
            let error = (frame..<noise.count).map { abs(out[$0] - noise[$0 - frame]) }.max()!
            XCTAssertLessThan(error, 1e-5, "\(rate) Hz")
        }
    }

    /// A held sung note is not learnt as noise: a 3 s note (220 Hz and its
    /// harmonics, 5.5 Hz vibrato, −20 dBFS) over pink noise at −50 dBFS keeps
    /// its level within 3 dB from its first second to its last half second.
    func testAHeldSungNoteKeepsItsLevel() {
        let rate = Double(Self.rate), noteStart = 3 * Self.rate, noteLength = 3 * Self.rate
        let noise = VoiceTestSignals.noise(.pink, frames: noteStart + noteLength + Self.rate, seed: 9)
        let noiseScale = powf(10, (-50 - rmsDB(noise[...])) / 20)
        var phase = 0.0
        var note = [Float](repeating: 0, count: noteLength)
        for i in 0..<noteLength {
            let f0 = 220 * (1 + 0.005 * sin(2 * Double.pi * 5.5 * Double(i) / rate))
            phase += 2 * Double.pi * f0 / rate
            var v = 0.0
            for h in 1...12 { v += sin(Double(h) * phase) / Double(h) }
            note[i] = Float(v)
        }
        let noteScale = powf(10, (-20 - rmsDB(note[...])) / 20)
        var input = noise.map { $0 * noiseScale }
        for i in 0..<noteLength { input[noteStart + i] += noteScale * note[i] }
        let node = VoiceProcessingNode(automaticGainControl: false)
        let out = render(node, input)
        let d = node.latencyFrames
        func window(_ from: Double, _ to: Double) -> ArraySlice<Float> {
            out[(noteStart + d + Int(from * rate))..<(noteStart + d + Int(to * rate))]
        }
        let early = rmsDB(window(0.25, 1.0)), late = rmsDB(window(2.4, 2.9))
        print("voice processing, a held note: \(fmt(early)) dBFS in its first second, \(fmt(late)) dBFS at its end")
        XCTAssertEqual(late, early, accuracy: 3)
    }

    /// Off, the suppressor goes on learning: switched on after the noise has
    /// risen by 20 dB while it was off, it holds the new noise 15 dB down
    /// within half a second.
    func testSwitchedOnAfterTheNoiseRoseItHoldsTheNewNoiseDown() {
        let noise = VoiceTestSignals.noise(.pink, frames: 10 * Self.rate, seed: 4)
        let scale = powf(10, (-60 - rmsDB(noise[...])) / 20)
        var input = noise.map { $0 * scale }
        for i in (4 * Self.rate)..<input.count { input[i] *= 10 }  // −40 dBFS from 4 s
        let node = VoiceProcessingNode(isOn: true, automaticGainControl: false)
        let harness = MonoRenderHarness(node: node, sampleRate: Double(Self.rate), maximumBlockSize: 256)
        var out: [Float] = []
        // On for 2 s (it learns the quiet noise), off for 6 s (the noise rises at 4 s), on again.
        for (from, to, on) in [(0, 2, true), (2, 8, false), (8, 10, true)] {
            node.isOn = on
            out += harness.run(Array(input[(from * Self.rate)..<(to * Self.rate)]), blockSize: 256)
        }
        let d = node.latencyFrames
        let after = (8 * Self.rate + d + Self.rate / 2)..<(10 * Self.rate)
        let inDB = rmsDB(input[(8 * Self.rate + Self.rate / 2)..<(10 * Self.rate - d)]), outDB = rmsDB(out[after])
        print("voice processing, switched on after the noise rose: \(fmt(inDB)) dBFS → \(fmt(outDB)) dBFS from 0.5 s on")
        XCTAssertLessThan(outDB, inDB - 15)
    }

    /// A quiet singer raised by the gain control who suddenly sings loud is
    /// cut within a fraction of a second: after three phrases at −50 dBFS, a
    /// phrase at −10 dBFS comes out under −6 dBFS RMS from 0.25 s on.
    func testTheGainControlCutsASuddenLoudVoiceFast() throws {
        let voice = try loadVoice()
        let gap = [Float](repeating: 0, count: Int(0.3 * Double(Self.rate)))
        let base = rmsDB(voice[...])
        let quiet = voice.map { $0 * powf(10, (-50 - base) / 20) }, loud = voice.map { $0 * powf(10, (-10 - base) / 20) }
        let input = gap + quiet + gap + quiet + gap + quiet + gap + loud
        let node = VoiceProcessingNode(noiseSuppression: false)
        let out = render(node, input)
        let loudStart = input.count - loud.count, d = node.latencyFrames
        let outDB = rmsDB(out[(loudStart + d + Self.rate / 4)...])
        print("voice processing AGC: a loud phrase after quiet ones comes out at \(fmt(outDB)) dBFS from 0.25 s on")
        XCTAssertLessThan(outDB, -6)
    }

    private func rmsDB(_ x: ArraySlice<Float>) -> Float {
        Float(10 * log10(x.reduce(0.0) { $0 + Double($1 * $1) } / Double(x.count)))
    }

    /// The delay the node reports is the delay measured: the peak of the
    /// cross-correlation of output with input, processing on and off.
    func testReportedLatencyIsTheMeasuredDelay() throws {
        let voice = try loadVoice()
        let input = repeated(voice, times: 2, gapSeconds: 0.2)
        for on in [true, false] {
            let node = VoiceProcessingNode(isOn: on)
            let out = render(node, input, blockSize: 64)
            let lag = crossCorrelationPeak(input, out, maxLag: 3000)
            print("voice processing \(on ? "on" : "off"): reported latency \(node.latencyFrames) frames, measured \(lag)")
            XCTAssertEqual(lag, node.latencyFrames, on ? "on" : "off")
        }
    }

    /// Off, the node is a pure delay: the output is the input, shifted, sample for sample.
    func testOffIsAPureDelay() throws {
        let voice = try loadVoice()
        let node = VoiceProcessingNode(isOn: false)
        let out = render(node, voice, blockSize: 333)
        let d = node.latencyFrames
        XCTAssertEqual(Array(out[d...]), Array(voice[..<(voice.count - d)]))
        XCTAssertTrue(out[..<d].allSatisfy { $0 == 0 })
    }

    /// How the input is cut into blocks does not change the output.
    func testOutputDoesNotDependOnBlockSize() throws {
        let voice = try loadVoice()
        let noisy = mix(voice, noise: VoiceTestSignals.noise(.pink, frames: voice.count, seed: 1), snrDB: 15)
        let reference = render(VoiceProcessingNode(), noisy, blockSize: 64)
        for block in [1, 333, 480, 1024] {
            XCTAssertEqual(render(VoiceProcessingNode(), noisy, blockSize: block), reference, "block \(block)")
        }
    }

    /// Switching while running crossfades over one hop: on a steady tone no
    /// sample steps further than the tone itself moves between samples (a hard
    /// switch between the plain and the processed signal would step by up to
    /// their difference), and once off again the output is the input, delayed.
    func testSwitchingCrossfadesWithoutAStep() {
        let amplitude: Float = 0.1
        let tone = (0..<96_000).map { amplitude * Float(sin(2 * Double.pi * 440 * Double($0) / Double(Self.rate))) }
        let node = VoiceProcessingNode(isOn: false, automaticGainControl: false)
        let harness = MonoRenderHarness(node: node, sampleRate: Double(Self.rate), maximumBlockSize: 64)
        var out: [Float] = []
        for (k, start) in stride(from: 0, to: tone.count, by: 24_000).enumerated() {
            node.isOn = k % 2 == 1  // off, on, off, on: 0.5 s each
            out += harness.run(Array(tone[start..<start + 24_000]), blockSize: 64)
        }
        let d = node.latencyFrames
        let toneSlope = zip(tone, tone.dropFirst()).map { abs($1 - $0) }.max()!
        let outSlope = zip(out, out.dropFirst()).map { abs($1 - $0) }.max()!
        // The processed half second really differs from the tone (the suppressor works on it)…
        let onPart = 24_000 + d + 4_800..<48_000
        let difference = onPart.map { abs(out[$0] - tone[$0 - d]) }.max()!
        print("voice processing switching: largest step \(outSlope) (the tone's own \(toneSlope)); processed differs by up to \(difference)")
        XCTAssertGreaterThan(difference, 1e-3)
        // …yet no switch steps.
        XCTAssertLessThanOrEqual(outSlope, toneSlope * 1.05)
        // Off again (third half second, after the crossfade hop): the input, delayed, exactly.
        let offPart = 48_000 + d + 480..<72_000
        XCTAssertTrue(offPart.allSatisfy { out[$0] == tone[$0 - d] })
    }

    // MARK: Helpers

    private func loadVoice() throws -> [Float] {
        let reader = try SoundFileReader(path: Self.voicePath)
        XCTAssertEqual(reader.sampleRate, Self.rate)
        let all = try reader.readAll()
        return stride(from: 0, to: all.count, by: reader.channelCount).map { all[$0] }
    }

    /// `times` copies of `voice`, each after `gapSeconds` of silence.
    private func repeated(_ voice: [Float], times: Int, gapSeconds: Double) -> [Float] {
        let gap = [Float](repeating: 0, count: Int(gapSeconds * Double(Self.rate)))
        return (0..<times).flatMap { _ in gap + voice }
    }

    /// `clean` plus `noise` scaled so that speech frames are `snrDB` above the noise.
    private func mix(_ clean: [Float], noise: [Float], snrDB: Float) -> [Float] {
        let speech = speechFramesDB(clean, reference: clean, delay: 0, from: 0)
        let noisePower = noise.reduce(0) { $0 + Double($1 * $1) } / Double(noise.count)
        let noiseDB = Float(10 * log10(noisePower))
        let scale = powf(10, (speech - snrDB - noiseDB) / 20)
        return zip(clean, noise).map { $0 + scale * $1 }
    }

    private func render(_ node: VoiceProcessingNode, _ input: [Float], blockSize: Int = 256) -> [Float] {
        let harness = MonoRenderHarness(node: node, sampleRate: Double(Self.rate), maximumBlockSize: blockSize)
        return harness.run(input, blockSize: blockSize)
    }

    /// 10 ms frames where the clean voice speaks (within 25 dB of its loudest
    /// frame) and where it is silent (exactly zero), from `from` on.
    private func frameClasses(clean: [Float], from: Int) -> (speech: [Int], silence: [Int]) {
        let n = Self.rate / 100
        var powers: [(Int, Double)] = []
        var start = from
        while start + n <= clean.count {
            powers.append((start, clean[start..<start + n].reduce(0) { $0 + Double($1 * $1) } / Double(n)))
            start += n
        }
        let loudest = powers.map(\.1).max() ?? 0
        return (powers.filter { $0.1 > loudest * pow(10, -2.5) }.map(\.0), powers.filter { $0.1 == 0 }.map(\.0))
    }

    private func meanPower(_ x: [Float], frames: [Int], delay: Int) -> Double {
        let n = Self.rate / 100
        var sum = 0.0, count = 0
        for start in frames where start + delay + n <= x.count {
            for i in start + delay..<start + delay + n { sum += Double(x[i] * x[i]) }
            count += n
        }
        return sum / Double(max(1, count))
    }

    private func speechFramesDB(_ x: [Float], reference clean: [Float], delay: Int, from: Int) -> Float {
        Float(10 * log10(meanPower(x, frames: frameClasses(clean: clean, from: from).speech, delay: delay)))
    }

    private func speechToNoise(clean: [Float], signal: [Float], delay: Int, from: Int) -> (ratioDB: Float, speechDB: Float, noiseDB: Float) {
        let classes = frameClasses(clean: clean, from: from)
        // Silent frames near speech would catch the processor's tails; take those at least 50 ms from any speech.
        let speechSet = Set(classes.speech)
        let n = Self.rate / 100
        let quiet = classes.silence.filter { s in !(-5...5).contains { speechSet.contains(s + $0 * n) } }
        let speech = meanPower(signal, frames: classes.speech, delay: delay)
        let noise = meanPower(signal, frames: quiet, delay: delay)
        return (Float(10 * log10(speech / noise)), Float(10 * log10(speech)), Float(10 * log10(noise)))
    }

    /// The lag in 0...maxLag at which `y` best matches `x` (normalized cross-correlation).
    private func crossCorrelationPeak(_ x: [Float], _ y: [Float], maxLag: Int) -> Int {
        var best = -Double.infinity, bestLag = -1
        for lag in 0...maxLag {
            var dot = 0.0, energy = 0.0
            var i = 0
            while i + lag < y.count && i < x.count {
                dot += Double(x[i] * y[i + lag])
                energy += Double(y[i + lag] * y[i + lag])
                i += 1
            }
            let score = energy > 0 ? dot / energy.squareRoot() : 0
            if score > best { best = score; bestLag = lag }
        }
        return bestLag
    }

    private func fmt(_ x: Float) -> String { String(format: "%.1f", x) }
}

/// Feeds a mono signal through one node in blocks and collects channel 0.
final class MonoRenderHarness {
    let node: AudioNode
    let input: AudioBuffer
    let output: AudioBuffer
    private let bus: UnsafeMutablePointer<AudioBlock>

    init(node: AudioNode, sampleRate: Double, maximumBlockSize: Int) {
        self.node = node
        node.allocate(spec: ProcessSpec(sampleRate: sampleRate, maximumBlockSize: maximumBlockSize),
                      inputChannelCounts: [1], outputChannelCount: 1)
        node.reset()
        input = AudioBuffer(channelCount: 1, capacity: maximumBlockSize)
        output = AudioBuffer(channelCount: 1, capacity: maximumBlockSize)
        bus = .allocate(capacity: 1)
    }

    deinit { bus.deallocate() }

    func run(_ signal: [Float], blockSize: Int) -> [Float] {
        var result: [Float] = []
        result.reserveCapacity(signal.count)
        var start = 0
        while start < signal.count {
            let n = min(blockSize, signal.count - start, input.capacity)
            for i in 0..<n { input[0][i] = signal[start + i] }
            bus[0] = input.block(frames: n)
            node.render(inputs: UnsafeBufferPointer(start: bus, count: 1), output: output.block(frames: n))
            result += UnsafeBufferPointer(start: output[0], count: n)
            start += n
        }
        return result
    }
}
