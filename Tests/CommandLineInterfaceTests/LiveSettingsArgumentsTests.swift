import Chains
import CommandLineInterface
import DSP
import XCTest

/// `busker live`'s strip and bus options, read into `LiveSettings` and
/// printed back (`commandLineArguments()`), and their one-line errors.
final class LiveSettingsArgumentsTests: XCTestCase {
    private func parse(_ arguments: [String]) throws -> LiveSettings { try LiveSettings(commandLine: arguments) }

    private func assertUsageError(_ arguments: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(arguments), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
            XCTAssertEqual((error as? CommandLineError)?.exitCode, 2, file: file, line: line)
        }
    }

    func testInputsMakeTheStrips() throws {
        XCTAssertEqual(try parse([]).strips.map(\.channels), [[1]])
        XCTAssertEqual(try parse(["--inputs", "1,2"]).strips.map(\.channels), [[1], [2]])
        XCTAssertEqual(try parse(["--inputs", "1+2"]).strips.map(\.channels), [[1, 2]])
        XCTAssertEqual(try parse(["--inputs", "1+2,3"]).strips.map(\.channels), [[1, 2], [3]])
        XCTAssertEqual(try parse(["--inputs", "2"]).strips.map(\.sourceLabel), ["in 2"])
    }

    func testGlobalOptionsSetEveryStripAndStripOverridesWin() throws {
        let s = try parse(["--inputs", "1,2", "--gain", "6", "--pan", "-0.25", "--bass", "+3", "--gate", "--gate-threshold", "-40",
                           "--reverb", "20", "--strip", "2:gain=-3,mute=on,gate=off,reverb=0", "--volume", "0.5", "--room", "hall",
                           "--no-howl-guard"])
        XCTAssertEqual(s.strips[0].gainDB, 6)
        XCTAssertEqual(s.strips[0].pan, -0.25)
        XCTAssertEqual(s.strips[1].pan, -0.25)
        XCTAssertEqual(s.strips.map(\.bassDB), [3, 3])
        XCTAssertEqual(s.strips.map(\.gateThresholdDB), [-40, -40])
        XCTAssertEqual(s.strips[1].gainDB, -3)
        XCTAssertEqual(s.strips.map(\.mute), [false, true])
        XCTAssertEqual(s.strips.map(\.noiseGate), [true, false])
        XCTAssertEqual(s.strips.map(\.reverbSendPercent), [20, 0])
        XCTAssertEqual(s.volume, 0.5)
        XCTAssertEqual(s.room, .hall)
        XCTAssertFalse(s.howlGuard)
    }

    /// The printed arguments read back into exactly the same settings, Float
    /// for Float, and are the short form: nothing for the defaults.
    func testCommandLineArgumentsRebuildExactlyTheseSettings() throws {
        XCTAssertEqual(LiveSettings().commandLineArguments(), [])
        var two = LiveSettings()
        two.strips = [StripSettings(channels: [1]), StripSettings(channels: [2, 3])]
        two.strips[0].pan = -0.3
        two.strips[1].pan = 0.7
        two.strips[0].bassDB = 4.5
        two.strips[1].bassDB = 4.5
        two.strips[1].noiseGate = true
        two.strips[1].gateThresholdDB = -61.3
        two.strips[0].mute = true
        two.volume = 0.35
        XCTAssertEqual(two.commandLineArguments(),
                       ["--inputs", "1,2+3", "--bass", "4.5", "--strip", "1:pan=-0.3,mute=on",
                        "--strip", "2:pan=0.7,gate=on,gate-threshold=-61.3", "--volume", "0.35"])
        XCTAssertEqual(try parse(two.commandLineArguments()), two)

        // Arbitrary values, many strips: the round trip is exact.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var s = LiveSettings()
            let count = Int.random(in: 1...4, using: &generator)
            s.strips = (0..<count).map { _ in
                let first = Int.random(in: 1...8, using: &generator)
                var strip = StripSettings(channels: Bool.random(using: &generator) ? [first] : [first, first + 1])
                func pick(_ range: ClosedRange<Float>, _ fallback: Float) -> Float {
                    Bool.random(using: &generator) ? fallback : Float.random(in: range, using: &generator)
                }
                strip.gainDB = pick(StripSettings.gainRange, 0)
                strip.pan = pick(StripSettings.panRange, 0)
                strip.mute = Bool.random(using: &generator)
                strip.highPassHz = pick(VoiceSettings.highPassRange, 80)
                strip.noiseGate = Bool.random(using: &generator)
                strip.gateThresholdDB = pick(VoiceSettings.gateThresholdRange, -50)
                strip.compressor = Bool.random(using: &generator)
                strip.compressorMakeupDB = pick(VoiceSettings.compressorMakeupRange, 6)
                strip.voiceProcessing = Bool.random(using: &generator)
                strip.bassDB = pick(VoiceSettings.bassRange, 0)
                strip.trebleDB = pick(VoiceSettings.trebleRange, 0)
                strip.boostDB = pick(VoiceSettings.boostRange, 0)
                strip.reverbSendPercent = pick(StripSettings.reverbSendRange, 0)
                return strip
            }
            s.volume = Bool.random(using: &generator) ? 0.3 : Float.random(in: 0...1, using: &generator)
            s.room = RoomPreset.allCases.randomElement(using: &generator)!
            s.howlGuard = Bool.random(using: &generator)
            let arguments = s.commandLineArguments()
            XCTAssertEqual(try parse(arguments), s, "\(arguments)")
        }
    }

    func testBadInputsAndStripOptionsAreOneLineUsageErrors() {
        let forms = "--inputs takes capture channels counted from 1, a comma between strips and + to sum, as 1, 1,2 or 1+2; not "
        assertUsageError(["--inputs", ""], forms + "''")
        assertUsageError(["--inputs", "1,,2"], forms + "'1,,2'")
        assertUsageError(["--inputs", "left"], forms + "'left'")
        assertUsageError(["--inputs", "1+"], forms + "'1+'")
        assertUsageError(["--inputs", "0"], "--inputs: channel 0 is out of range 1…64 (channels count from 1)")
        assertUsageError(["--inputs", "1+1"], "--inputs: '1+1' sums a channel twice")
        assertUsageError(["--strip", "2:gain=3"], "--strip 2: there is 1 strip (--inputs makes more)")
        assertUsageError(["--inputs", "1,2", "--strip", "3:gain=3"], "--strip 3: there are 2 strips (--inputs makes more)")
        assertUsageError(["--strip", "gain=3"], "--strip takes N:key=value,… as in 2:pan=0.5,bass=3; not 'gain=3'")
        assertUsageError(["--strip", "1:loud=3"], "--strip 1: 'loud=3' is not key=value with a key among gain, pan, mute, high-pass, gate, "
                         + "gate-threshold, compressor, makeup, voice-processing, bass, treble, boost, reverb")
        assertUsageError(["--strip", "1:gain=x"], "--strip 1: gain needs a number, not 'x'")
        assertUsageError(["--strip", "1:mute=yes"], "--strip 1: mute takes on or off, not 'yes'")
        assertUsageError(["--strip", "1:pan=2"], "--strip 1: pan 2 is out of range -1…1")
        assertUsageError(["--gain", "30"], "--gain 30 dB is out of range -24…24 dB")
        assertUsageError(["--pan", "left"], "--pan needs a number, not 'left'")
        assertUsageError(["--gate-threshold", "-40"], "--gate-threshold goes with --gate")
        assertUsageError(["--volume", "2"], "--volume 2 is out of range 0…1")
        assertUsageError(["--room", "cave"], "--room must be one of small, medium, large, hall, not 'cave'")
    }
}
