import Chains
import CommandLineInterface
import Control
import XCTest

/// `busker live --preset NAME [options]`: the options given win over the
/// preset, and only they change anything.
final class LiveSettingsOverPresetTests: XCTestCase {
    private func scan(_ arguments: [String]) throws -> ArgumentScanner {
        try ArgumentScanner(arguments, valued: LiveSettings.valuedOptions, flags: LiveSettings.flagOptions)
    }

    private var preset: LiveSettings {
        LivePresetTests.unusualPreset().settings
    }

    func testNoOptionsIsThePresetExactly() throws {
        XCTAssertEqual(try LiveSettings(arguments: scan([]), over: preset), preset)
    }

    func testEachKindOfOptionChangesOnlyWhatItNames() throws {
        var expected = preset
        expected.volume = 0.2
        expected.room = .small
        for i in expected.strips.indices { expected.strips[i].bassDB = 5 }
        expected.strips[1].pan = -1
        expected.strips[1].mute = false
        let settings = try LiveSettings(arguments: scan(["--volume", "0.2", "--room", "small", "--bass", "5",
                                                         "--strip", "2:pan=-1,mute=off"]), over: preset)
        XCTAssertEqual(settings, expected)
    }

    func testInputsRemakesTheStripsKeepingEachStripsSettings() throws {
        let settings = try LiveSettings(arguments: scan(["--inputs", "1+2,3,4"]), over: preset)
        XCTAssertEqual(settings.strips.map(\.channels), [[1, 2], [3], [4]])
        var first = preset.strips[0], second = preset.strips[1]
        first.channels = [1, 2]
        second.channels = [3]
        XCTAssertEqual(settings.strips[0], first)
        XCTAssertEqual(settings.strips[1], second)
        XCTAssertEqual(settings.strips[2], StripSettings(channels: [4]), "a new strip starts at the defaults")
    }

    func testAGateThresholdNeedsTheGateOnlyWhereThePresetHasItOff() throws {
        // Strip 1 has the gate on, strip 2 off: --gate-threshold alone would reach a strip without a gate.
        XCTAssertThrowsError(try LiveSettings(arguments: scan(["--gate-threshold", "-40"]), over: preset))
        var gated = preset
        for i in gated.strips.indices { gated.strips[i].noiseGate = true }
        XCTAssertEqual(try LiveSettings(arguments: scan(["--gate-threshold", "-40"]), over: gated).strips.map(\.gateThresholdDB), [-40, -40])
    }

    func testBadOptionsAreTheCommandLinesUsageErrors() throws {
        for (arguments, message) in [(["--bass", "40"], "--bass 40 dB is out of range -12…12 dB"), (["--strip", "3:pan=0"], "--strip 3: there are 2 strips"),
                                     (["--volume", "2"], "--volume 2 is out of range 0…1")] {
            XCTAssertThrowsError(try LiveSettings(arguments: scan(arguments), over: preset)) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }
}
