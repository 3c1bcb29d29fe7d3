import Foundation
import InstrumentTestSupport
import Instruments
import MIDI
import XCTest

/// RMS of `x[range]`.
func samplerRMS(_ x: [Float], _ range: Range<Int>) -> Double {
    var sum = 0.0
    for i in range { sum += Double(x[i]) * Double(x[i]) }
    return (sum / Double(max(1, range.count))).squareRoot()
}

/// Ten voices, releases, the sustain pedal, note timing, channels: the
/// sampler's behaviour measured on its output.
final class SamplerNodeTests: XCTestCase {
    let rate = 48_000
    /// Ten keys over three octaves: C3 E3 G3 C4 E4 G4 C5 E5 G5 C6.
    let chord: [UInt8] = [48, 52, 55, 60, 64, 67, 72, 76, 79, 84]

    func testATenNoteChordSoundsTenNotes() throws {
        for font in [SamplerTestRig.smallFont, SamplerTestRig.fluidR3] {
            // How many voices the font's piano uses per note (a stereo preset: two).
            let single = try SamplerTestRig(soundFont: font)
            single.send(.noteOn(channel: 0, note: 60, velocity: 100), at: 0)
            _ = single.render(frames: 4_800)
            let perNote = single.node.activeVoiceCount
            XCTAssertGreaterThanOrEqual(perNote, 1, font)

            let rig = try SamplerTestRig(soundFont: font)
            for key in chord { rig.send(.noteOn(channel: 0, note: key, velocity: 100), at: 0) }
            let sound = rig.renderMono(frames: 4_800)
            XCTAssertEqual(rig.node.activeVoiceCount, chord.count * perNote, "\(font): \(perNote) voice(s) per note")
            XCTAssertGreaterThanOrEqual(rig.node.activeVoiceCount, 10)
            print("chord \(font): \(perNote) voice(s) per note, \(rig.node.activeVoiceCount) voices for ten notes, RMS \(samplerRMS(sound, 2_400..<4_800))")

            // All notes off (CC 123) releases them all; all sound off (CC 120) silences at once.
            rig.send(.controlChange(channel: 0, controller: 123, value: 0), at: rig.frame)
            _ = rig.render(frames: 48_000 * 3)
            XCTAssertEqual(rig.node.activeVoiceCount, 0, "\(font): released voices end")
        }
    }

    func testPolyphonyLimitStealsVoices() throws {
        let rig = try SamplerTestRig(polyphony: 8)
        for (i, key) in chord.enumerated() { rig.send(.noteOn(channel: 0, note: key, velocity: 100), at: Int64(i * 64)) }
        let sound = rig.renderMono(frames: 4_800)
        XCTAssertEqual(rig.node.activeVoiceCount, 8, "ten notes on eight voices: two stolen")
        XCTAssertGreaterThan(samplerRMS(sound, 2_400..<4_800), 0.001)
    }

    /// After a note-off the piano's envelope releases: still sounding right
    /// after, and falling, not an instant drop.
    func testNoteOffReleasesWithADecayNotACut() throws {
        let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3)
        rig.send(.noteOn(channel: 0, note: 60, velocity: 110), at: 0)
        rig.send(.noteOff(channel: 0, note: 60, velocity: 64), at: 24_000)
        let sound = rig.renderMono(frames: 24_000 + 2 * rate)
        let window = 480  // 10 ms
        let before = samplerRMS(sound, 24_000 - window..<24_000)
        let envelope = (0..<100).map { samplerRMS(sound, 24_000 + $0 * window..<24_000 + ($0 + 1) * window) }
        print("release: 10 ms RMS before note-off \(before), after: \(envelope.prefix(12).map { String(format: "%.5f", $0) })")
        XCTAssertGreaterThan(envelope[0], 0.5 * before, "the first 10 ms after the note-off keep most of the level")
        XCTAssertGreaterThan(envelope[4], 0.05 * before, "still sounding 40 ms after the note-off")
        // Falling: each 50 ms stretch quieter than the one before, until it is gone.
        let stretches = stride(from: 0, to: 100, by: 5).map { envelope[$0..<$0 + 5].reduce(0, +) / 5 }
        for i in 1..<stretches.count where stretches[i - 1] > 1e-5 {
            XCTAssertLessThan(stretches[i], stretches[i - 1], "50 ms stretch \(i)")
        }
        XCTAssertLessThan(envelope[99], 0.01 * before, "gone within a second")
    }

    /// The sustain pedal holds released notes until it lifts, then they release.
    func testSustainPedalHoldsReleasedNotesUntilItLifts() throws {
        let noteOff: Int64 = 12_000, lift: Int64 = 60_000
        func play(pedal: Bool) throws -> (sound: [Float], voicesBeforeLift: Int, voicesAfter: Int) {
            let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3)
            if pedal { rig.send(.controlChange(channel: 0, controller: 64, value: 127), at: 0) }
            rig.send(.noteOn(channel: 0, note: 60, velocity: 110), at: 0)
            rig.send(.noteOff(channel: 0, note: 60, velocity: 64), at: noteOff)
            if pedal { rig.send(.controlChange(channel: 0, controller: 64, value: 0), at: lift) }
            var sound = rig.renderMono(frames: Int(lift))
            let before = rig.node.activeVoiceCount
            sound += rig.renderMono(frames: 2 * rate)
            return (sound, before, rig.node.activeVoiceCount)
        }
        let dry = try play(pedal: false), held = try play(pedal: true)
        let heldWindow = Int(lift) - 9_600..<Int(lift)  // the 200 ms before the pedal lifts
        let dryLevel = samplerRMS(dry.sound, heldWindow), heldLevel = samplerRMS(held.sound, heldWindow)
        let afterLift = samplerRMS(held.sound, Int(lift) + 48_000..<Int(lift) + 57_600)
        let justAfterLift = samplerRMS(held.sound, Int(lift)..<Int(lift) + 480)
        print("sustain: 0.8 s after note-off RMS \(dryLevel) without pedal, \(heldLevel) with; 10 ms after lift \(justAfterLift), 1 s after lift \(afterLift)")
        // Without the pedal only the release's last whisper is left (its voices may still be counted).
        XCTAssertGreaterThan(held.voicesBeforeLift, 0, "with the pedal it still sounds")
        XCTAssertGreaterThan(heldLevel, 100 * max(dryLevel, 1e-7))
        XCTAssertGreaterThan(justAfterLift, 0.3 * heldLevel, "lifting releases, it does not cut")
        XCTAssertLessThan(afterLift, 0.01 * heldLevel, "and then it decays away")
        XCTAssertEqual(held.voicesAfter, 0)
    }

    /// A note-on at frame k starts at the first 64-frame boundary of
    /// FluidSynth's grid at or after k, whatever Busker's block size.
    func testNoteStartsOnFluidSynthsSixtyFourFrameGrid() throws {
        let reference = try SamplerTestRig(blockSize: 512)
        reference.send(.noteOn(channel: 0, note: 72, velocity: 100), at: 0)
        let referenceSound = reference.render(frames: 4_096).left
        guard let referenceOnset = referenceSound.firstIndex(where: { abs($0) > 1e-6 }) else { return XCTFail("silent") }

        var measured: [String] = []
        for (blockSize, frames) in [(512, [1, 17, 63, 64, 65, 100, 127, 128, 300, 511]), (333, [0, 5, 200, 332, 333, 700]), (64, [10, 64, 1_000])] {
            for k in frames {
                let rig = try SamplerTestRig(blockSize: blockSize)
                rig.send(.noteOn(channel: 0, note: 72, velocity: 100), at: Int64(k))
                let sound = rig.render(frames: 4_096 + 1_024).left
                guard let onset = sound.firstIndex(where: { abs($0) > 1e-6 }) else { XCTFail("silent at \(k)"); continue }
                let start = onset - referenceOnset
                let grid = (k + 63) / 64 * 64
                measured.append("\(k)→\(start)")
                XCTAssertEqual(start, grid, "note-on at frame \(k), blocks of \(blockSize)")
                XCTAssertGreaterThanOrEqual(start, k, "never early")
                XCTAssertLessThan(start - k, 64, "within FluidSynth's 64-frame grid")
                // The same sound, shifted: the note is otherwise unaffected.
                let difference = (0..<3_000).map { abs(sound[start + referenceOnset + $0] - referenceSound[referenceOnset + $0]) }.max() ?? 0
                XCTAssertLessThan(difference, 1e-6, "at \(k)")
            }
        }
        print("note-on frame → start frame: \(measured.joined(separator: ", "))")
    }

    /// The default channel set leaves GM percussion (channel 10) to the drum
    /// kit; a configured set takes exactly its channels.
    func testChannelFilter() throws {
        let melodic = try SamplerTestRig()
        melodic.send(.noteOn(channel: 9, note: 38, velocity: 100), at: 0)
        let ignored = melodic.renderMono(frames: 2_400)
        XCTAssertEqual(samplerRMS(ignored, 0..<2_400), 0)
        XCTAssertEqual(melodic.node.activeVoiceCount, 0)
        melodic.send(.noteOn(channel: 15, note: 60, velocity: 100), at: melodic.frame)
        _ = melodic.renderMono(frames: 2_400)
        XCTAssertGreaterThan(melodic.node.activeVoiceCount, 0)

        let onlyThree = try SamplerTestRig(channels: SamplerChannelSet(channels: [2]))
        onlyThree.send(.noteOn(channel: 0, note: 60, velocity: 100), at: 0)
        _ = onlyThree.renderMono(frames: 2_400)
        XCTAssertEqual(onlyThree.node.activeVoiceCount, 0)
        onlyThree.send(.noteOn(channel: 2, note: 60, velocity: 100), at: onlyThree.frame)
        _ = onlyThree.renderMono(frames: 2_400)
        XCTAssertGreaterThan(onlyThree.node.activeVoiceCount, 0)
        XCTAssertEqual(SamplerChannelSet.melodic.channels, [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15])
    }

    /// Velocity, volume, pitch bend, program change and system reset reach FluidSynth.
    func testMessagesReachTheSynth() throws {
        let rig = try SamplerTestRig(instrument: .xylophone, preloading: [0, 80])
        let window = 2_400..<7_200
        func level(_ messages: [MIDIMessage], note: UInt8 = 72, velocity: UInt8 = 100) -> Double {
            let start = rig.frame
            for m in messages { rig.send(m, at: start) }
            rig.send(.noteOn(channel: 0, note: note, velocity: velocity), at: start)
            let sound = rig.renderMono(frames: 7_200)
            rig.send(.controlChange(channel: 0, controller: 120, value: 0), at: rig.frame)
            // Reset controllers (CC 121) leaves volume and pan alone (GM RP-015): restore them too.
            rig.send(.controlChange(channel: 0, controller: 121, value: 0), at: rig.frame)
            rig.send(.controlChange(channel: 0, controller: 7, value: 100), at: rig.frame)
            rig.send(.controlChange(channel: 0, controller: 10, value: 64), at: rig.frame)
            _ = rig.render(frames: 512)
            return samplerRMS(sound, window)
        }
        let loud = level([], velocity: 127), soft = level([], velocity: 30)
        XCTAssertGreaterThan(loud, 2 * soft, "velocity")
        let quiet = level([.controlChange(channel: 0, controller: 7, value: 20)])
        XCTAssertLessThan(quiet, 0.3 * level([]), "volume (CC 7)")
        let bent = try zeroCrossingRate(rig, messages: [.pitchBend(channel: 0, value: 16383)])
        let straight = try zeroCrossingRate(rig, messages: [.pitchBend(channel: 0, value: 8192)])
        XCTAssertEqual(bent / straight, pow(2, 2.0 / 12), accuracy: 0.03, "full bend up is two semitones")
        XCTAssertGreaterThan(level([.controlChange(channel: 0, controller: 64, value: 127),
                                    .controlChange(channel: 0, controller: 1, value: 127),
                                    .channelPressure(channel: 0, pressure: 90),
                                    .polyPressure(channel: 0, note: 72, pressure: 90),
                                    .controlChange(channel: 0, controller: 10, value: 0)]), 0.0001)
        // A system reset keeps the configured instrument (not the piano everywhere).
        let xylophone = level([])
        rig.send(.systemReset, at: rig.frame)
        _ = rig.render(frames: 512)
        XCTAssertEqual(level([]), xylophone, accuracy: xylophone * 0.05, "after a reset: the xylophone again")
        let piano = level([.programChange(channel: 0, program: 0)])
        XCTAssertNotEqual(piano, xylophone, accuracy: xylophone * 0.05, "program change")
    }

    /// Zero crossings per second of a note played after `messages` (a pitch gauge that needs no FFT).
    private func zeroCrossingRate(_ rig: SamplerTestRig, messages: [MIDIMessage]) throws -> Double {
        let start = rig.frame
        for m in messages { rig.send(m, at: start) }
        rig.send(.programChange(channel: 0, program: 80), at: start)  // Lead 1 (square): a clean waveform
        rig.send(.noteOn(channel: 0, note: 57, velocity: 100), at: start)
        let sound = rig.renderMono(frames: 24_000)
        rig.send(.controlChange(channel: 0, controller: 120, value: 0), at: rig.frame)
        rig.send(.pitchBend(channel: 0, value: 8192), at: rig.frame)
        rig.send(.programChange(channel: 0, program: 13), at: rig.frame)
        _ = rig.render(frames: 512)
        var crossings = 0
        for i in 4_801..<24_000 where (sound[i - 1] < 0) != (sound[i] < 0) { crossings += 1 }
        return Double(crossings) / (Double(24_000 - 4_800) / Double(rate))
    }

    /// A new SoundFont handed over while a note plays: the old synth fades out
    /// over 10 ms (no click), is retired and deleted on this thread, and the new one plays.
    func testHandingOverANewSynthFadesTheOldOneAndRetiresIt() throws {
        let rig = try SamplerTestRig(blockSize: 64)
        weak var first: SamplerSynth?
        do {
            let synth = try rig.node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3))
            first = synth
        }
        rig.send(.noteOn(channel: 0, note: 60, velocity: 110), at: 0)
        let playing = rig.renderMono(frames: 9_600)
        XCTAssertEqual(rig.node.handoverCount, 1, "a synth loaded before the first block is taken at once")
        XCTAssertNotNil(first)
        try rig.node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.smallFont, instrument: .xylophone))
        XCTAssertTrue(rig.node.hasPendingSynth)
        let during = rig.renderMono(frames: 960)  // collects retired synths at the end
        XCTAssertEqual(rig.node.handoverCount, 2)
        XCTAssertFalse(rig.node.hasPendingSynth)
        XCTAssertNil(first, "the old synth was retired and deleted on the control thread")
        let largestStep = zip(during.dropFirst(), during).map { abs($0 - $1) }.max() ?? 0
        let typicalStep = zip(playing.dropFirst(), playing).suffix(4_800).map { abs($0 - $1) }.max() ?? 0
        print("handover: largest sample step during the fade \(largestStep), while playing \(typicalStep)")
        XCTAssertLessThanOrEqual(largestStep, typicalStep * 1.5, "the fade does not click")
        XCTAssertGreaterThan(samplerRMS(during, 0..<240), 0.001, "the old note fades, it is not cut")
        XCTAssertEqual(samplerRMS(during, 480..<960), 0, "and is gone after 10 ms")
        XCTAssertEqual(rig.node.activeVoiceCount, 0)
        rig.send(.noteOn(channel: 0, note: 72, velocity: 100), at: rig.frame)
        XCTAssertGreaterThan(samplerRMS(rig.renderMono(frames: 4_800), 2_400..<4_800), 0.001, "the new synth plays")
    }
}
