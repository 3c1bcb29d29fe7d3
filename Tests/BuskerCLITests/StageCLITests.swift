import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// The stage on files, as `busker live --input file: --output file:` runs
/// it: a voice on the mic, a player's keyboard and pads (`--midi-in
/// FILE.mid`) and a backing song (`--song`) in one mix.
final class StageCLITests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-stage-cli") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// The mic's voice: a 300 Hz tone at −20 dBFS, mono float, `seconds` long.
    private func voice(seconds: Double = 4, amplitude: Float = 0.1) throws -> String {
        let frames = Int(seconds * 48000)
        let samples = (0..<frames).map { amplitude * sinf(2 * .pi * 300 * Float($0) / 48000) }
        let p = path("voice-\(amplitude).wav")
        let writer = try SoundFileWriter(path: p, sampleRate: 48000, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: samples)
        try writer.close()
        return p
    }

    /// What the player plays: a C major chord held 1.5 s, a melody over it,
    /// and the kit's kick and hi-hat in 16ths on channel 10.
    private func performance() throws -> String {
        var song = GMTestSong()
        for note: UInt8 in [60, 64, 67] { song.note(0.2, channel: 0, note, length: 1.5) }
        for (i, note) in [72, 74, 76, 77, 79].enumerated() { song.note(0.5 + 0.3 * Double(i), channel: 0, UInt8(note), length: 0.25) }
        for i in 0..<24 {
            song.note(0.25 + 0.125 * Double(i), channel: 9, i % 4 == 0 ? 36 : 42, velocity: 90, length: 0.05)
        }
        let p = path("keys.mid")
        try song.write(to: p, endSeconds: 3.5)
        return p
    }

    /// The backing song: a bass line (program 33) on channel 1 and a snare on its channel 10.
    private func backingSong() throws -> String {
        var song = GMTestSong()
        song.program(0, channel: 0, 33)
        for (i, note) in [36, 43, 41, 43].enumerated() { song.note(0.1 + 0.8 * Double(i), channel: 0, UInt8(note), length: 0.7) }
        for i in 0..<4 { song.note(0.5 + 0.8 * Double(i), channel: 9, 38, velocity: 80, length: 0.1) }
        let p = path("song.mid")
        try song.write(to: p, endSeconds: 3.5)
        return p
    }

    /// Runs the stage over the files into `name`, float, and reads it back.
    private func stage(_ name: String, voice: String, keys: String?, song: String?, _ extra: [String] = []) throws -> StereoRender {
        var args = ["live", "--input", "file:" + voice, "--output", "file:" + path(name), "--format", "f32", "--instrument", "piano"]
        if let keys { args += ["--midi-in", keys] }
        if let song { args += ["--song", song] }
        let r = try runBusker(args + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try StereoRender(path: path(name))
    }

    /// The cross-correlation of `a` with `b` at `lag` frames (b delayed), left channels.
    private func correlation(_ a: StereoRender, _ b: StereoRender, lag: Int) -> Double {
        let n = min(a.frameCount, b.frameCount)
        var sum = 0.0
        for i in max(0, lag)..<min(n, n + lag) { sum += Double(a.left[i]) * Double(b.left[i - lag]) }
        return sum
    }

    /// The mix is the sum of its parts: the mic alone, the keys alone, the
    /// kit alone and the song alone (each part soloed, or every part muted
    /// for the mic), rendered apart, add up to the stage's mix. The
    /// requirement: every part is in the mix at its set level, on the same
    /// frames. While the limiter is idle (the mix peaks far below its −1 dBFS
    /// ceiling, checked) the stage is linear, so what is left after
    /// subtracting the four renders is float rounding: 60 dB under the mix
    /// (a part one frame off would leave its own high frequencies, far
    /// above that). Each part is present (above −60 dBFS), and its
    /// correlation with the mix is larger at lag 0 than a block or a period
    /// away (±1024, ±64 frames). The renders' tails differ in length (each
    /// run ends when its own sound has died away), so they are compared over
    /// the first 3 s.
    func testTheMixIsTheSumOfTheMicTheKeysTheKitAndTheSong() throws {
        let voice = try voice(), keys = try performance(), song = try backingSong()
        let mix = try stage("mix.wav", voice: voice, keys: keys, song: song)
        let parts = [
            ("mic", try stage("mic.wav", voice: voice, keys: keys, song: song, ["--part", "keys:mute=on", "--part", "drums:mute=on",
                                                                                  "--part", "song:mute=on"])),
            ("keys", try stage("keys.wav", voice: voice, keys: keys, song: song, ["--part", "keys:solo=on"])),
            ("drums", try stage("drums.wav", voice: voice, keys: keys, song: song, ["--part", "drums:solo=on"])),
            ("song", try stage("song.wav", voice: voice, keys: keys, song: song, ["--part", "song:solo=on"])),
        ]
        let peak = zip(mix.left, mix.right).map { max(abs($0), abs($1)) }.max() ?? 0
        XCTAssertLessThan(20 * log10(Double(peak)), -3, "the limiter would act: the sum would not hold")
        var residual = mix
        for (name, render) in parts {
            XCTAssertGreaterThan(render.levelDB(0...3), -60, "\(name) is missing from the stage")
            residual = residual.subtracting(render)
            let atZero = correlation(mix, render, lag: 0)
            for lag in [-1024, -64, 64, 1024] {
                XCTAssertGreaterThan(atZero, correlation(mix, render, lag: lag), "\(name) is not aligned with the mix (lag \(lag))")
            }
        }
        XCTAssertLessThan(residual.levelDB(0...3), mix.levelDB(0...3) - 60, "the mix is not the sum of its parts")
    }

    /// `--part keys:level=-12` puts the keys 12 dB down in the mix, their
    /// reverb and chorus with them (the sends are post-fader, as on a desk):
    /// the keys' solo render at that level is 12 dB under the one at 0 dB
    /// (a fader is a gain: within 0.01 dB).
    func testAPartsLevelIsItsFader() throws {
        let voice = try voice(), keys = try performance()
        let unity = try stage("unity.wav", voice: voice, keys: keys, song: nil, ["--part", "keys:solo=on"])
        let down = try stage("down.wav", voice: voice, keys: keys, song: nil, ["--part", "keys:solo=on,level=-12"])
        XCTAssertEqual(down.levelDB(0.2...3) - unity.levelDB(0.2...3), -12, accuracy: 0.01)
    }

    /// The keyboard's sustain pedal sustains the piano and leaves the mic on:
    /// a note struck for 0.2 s under a pedal held to 3 s still sounds at
    /// 1.5–2.5 s (20 dB over the same note without the pedal), and the
    /// voice's 300 Hz tone in the mix is what it is with the keys muted
    /// (within 0.1 dB: the mic's bus is untouched by CC 64).
    func testTheKeyboardsSustainPedalSustainsThePianoAndLeavesTheMicOn() throws {
        let voice = try voice()
        func played(pedal: Bool) throws -> String {
            var song = GMTestSong()
            if pedal {
                song.control(0.1, channel: 0, 64, 127)
                song.control(3.0, channel: 0, 64, 0)
            }
            song.note(0.2, channel: 0, 48, velocity: 110, length: 0.2)
            let p = path("pedal-\(pedal).mid")
            try song.write(to: p, endSeconds: 3.5)
            return p
        }
        let held = try stage("held.wav", voice: voice, keys: try played(pedal: true), song: nil, ["--part", "keys:solo=on"])
        let dry = try stage("dry.wav", voice: voice, keys: try played(pedal: false), song: nil, ["--part", "keys:solo=on"])
        XCTAssertGreaterThan(held.levelDB(1.5...2.5), dry.levelDB(1.5...2.5) + 20, "the pedal did not sustain the piano")
        XCTAssertGreaterThan(held.levelDB(1.5...2.5), held.levelDB(0.2...0.4) - 30, "the sustained note died")

        let withPedal = try stage("mix-pedal.wav", voice: voice, keys: try played(pedal: true), song: nil)
        let micAlone = try stage("mic-alone.wav", voice: voice, keys: try played(pedal: true), song: nil,
                                 ["--part", "keys:mute=on", "--part", "drums:mute=on"])
        let window = Int(2.0 * 48000)..<Int(2.5 * 48000)
        let voiceInMix = ToneAnalysis.magnitude(of: withPedal.left[window], at: 300, sampleRate: 48000)
        let voiceAlone = ToneAnalysis.magnitude(of: micAlone.left[window], at: 300, sampleRate: 48000)
        XCTAssertEqual(20 * log10(voiceInMix / voiceAlone), 0, accuracy: 0.1, "the pedal changed the mic")
    }

    /// Feedback protection where feedback happens: a 10 s sustained piano
    /// chord and a held pad, with the guard on, come out as with
    /// `--no-howl-guard` (each partial within 0.5 dB): the guard watches the
    /// mic's bus, never the instruments. The negative control: the same
    /// chord through the mic, long enough for the guard to take it for a
    /// howl, is notched (a partial more than 0.5 dB down).
    func testTheHowlGuardNeverNotchesASustainedChordOrAPad() throws {
        var song = GMTestSong()
        song.program(0, channel: 1, 89)
        song.control(0, channel: 0, 64, 127)
        for note: UInt8 in [48, 55, 60, 64, 67] { song.note(0.1, channel: 0, note, velocity: 100, length: 9.5) }
        for note: UInt8 in [60, 67] { song.note(0.1, channel: 1, note, velocity: 90, length: 9.8) }
        let chord = path("chord.mid")
        try song.write(to: chord, endSeconds: 10)
        let silence = try voice(seconds: 10, amplitude: 0)
        let guarded = try stage("guarded.wav", voice: silence, keys: chord, song: nil, ["--volume", "1"])
        let open = try stage("open.wav", voice: silence, keys: chord, song: nil, ["--volume", "1", "--no-howl-guard"])
        let partials = [130.81, 196.0, 261.63, 329.63, 392.0, 523.25, 784.0]
        let window = Int(5 * 48000)..<Int(9 * 48000)
        func levels(_ render: StereoRender) -> [Double] {
            partials.map { 20 * log10(ToneAnalysis.magnitude(of: render.left[window], at: $0, sampleRate: 48000)) }
        }
        for (f, (a, b)) in zip(partials, zip(levels(guarded), levels(open))) {
            XCTAssertEqual(a, b, accuracy: 0.5, "the guard changed the chord's \(f) Hz partial")
        }

        // The negative control: the instruments' render played into the mic.
        let throughMic = path("chord-as-voice.wav")
        let mono = zip(open.left, open.right).map { 0.5 * ($0 + $1) }
        let writer = try SoundFileWriter(path: throughMic, sampleRate: 48000, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: mono)
        try writer.close()
        let micGuarded = try stage("mic-guarded.wav", voice: throughMic, keys: nil, song: nil, ["--volume", "1"])
        let micOpen = try stage("mic-open.wav", voice: throughMic, keys: nil, song: nil, ["--volume", "1", "--no-howl-guard"])
        let drops = zip(levels(micGuarded), levels(micOpen)).map { $1 - $0 }
        XCTAssertGreaterThan(drops.max() ?? 0, 0.5, "the control: the guard should notch a steady chord on the mic's bus")
    }

    /// An audio backing track at 44.1 kHz in a 48 kHz stage plays at its
    /// pitch and length: a 2 s 1 kHz tone soloed comes out as 2 s of sound
    /// (within a 10 ms window of the level's edges) at 1000 Hz (the
    /// strongest of 990…1010 Hz in 1 Hz steps; a rate mistake of 44.1 against
    /// 48 would put it at 919 or 1088 Hz).
    func testAnAudioSongAt441kHzPlaysAtItsPitchAndLengthInA48kHzStage() throws {
        let frames = 88_200
        let tone = (0..<frames).flatMap { i -> [Float] in
            let x = 0.2 * sinf(2 * .pi * 1000 * Float(i) / 44_100)
            return [x, x]
        }
        let track = path("track-44k1.wav")
        let writer = try SoundFileWriter(path: track, sampleRate: 44_100, channelCount: 2, sampleFormat: .f32)
        try writer.write(interleaved: tone)
        try writer.close()
        let out = try stage("track.wav", voice: try voice(), keys: nil, song: track, ["--part", "song:solo=on"])
        let levels = (0..<(out.frameCount / 480)).map { out.levelDB(Double($0) / 100...Double($0 + 1) / 100) }
        let sounding = levels.indices.filter { levels[$0] > -40 }
        let seconds = Double((sounding.last ?? 0) - (sounding.first ?? 0) + 1) / 100
        XCTAssertEqual(seconds, 2, accuracy: 0.02, "the song's length at 48 kHz")
        let middle = out.left[48_000..<72_000]
        XCTAssertEqual(ToneAnalysis.strongestFrequency(in: middle, among: stride(from: 990.0, through: 1010, by: 1), sampleRate: 48000),
                       1000)
    }

    /// A stage's bad requests are one line and the usage status, before any
    /// sound: an unknown part, a value out of range, a MIDI-only option on an
    /// audio song, a bar past the song; a song that is not there is one line
    /// and status 1.
    func testBadStageRequestsAreOneLine() throws {
        let voice = try voice(seconds: 0.5), song = try backingSong()
        let base = ["live", "--input", "file:" + voice, "--output", "file:" + path("x.wav"), "--instrument", "piano"]
        assertOneLineError(try runBusker(base + ["--part", "bass:level=-3"]), status: 2, mentioning: "the parts are keys, drums and song")
        assertOneLineError(try runBusker(base + ["--part", "keys:level=20"]), status: 2, mentioning: "keys level")
        assertOneLineError(try runBusker(base + ["--song", song, "--from", "300"]), status: 2, mentioning: "beyond the song")
        assertOneLineError(try runBusker(["live", "--input", "file:" + voice, "--output", "file:" + path("x.wav"), "--loop"]),
                           status: 2, mentioning: "--loop is for the stage")
        assertOneLineError(try runBusker(base + ["--song", path("nosuch.wav")]), status: 1, mentioning: "nosuch.wav")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
    }
}
