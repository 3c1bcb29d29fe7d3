import Instruments
import XCTest

final class GeneralMIDITests: XCTestCase {
    func testProgramTableHasEveryProgramOnce() {
        XCTAssertEqual(GeneralMIDI.programNames.count, 128)
        XCTAssertEqual(Set(GeneralMIDI.programNames).count, 128)
        XCTAssertEqual(GeneralMIDI.programNames[0], "Acoustic Grand Piano")
        XCTAssertEqual(GeneralMIDI.programNames[13], "Xylophone")
        XCTAssertEqual(GeneralMIDI.programNames[127], "Gunshot")
    }

    func testNamesAndAliasesResolveIgnoringCaseAndPunctuation() {
        XCTAssertEqual(GeneralMIDI.program(named: "piano"), 0)
        XCTAssertEqual(GeneralMIDI.program(named: "Xylophone"), 13)
        XCTAssertEqual(GeneralMIDI.program(named: "acoustic guitar (nylon)"), 24)
        XCTAssertEqual(GeneralMIDI.program(named: "Honky-Tonk piano"), 3)
        XCTAssertNil(GeneralMIDI.program(named: "theremin"))
        XCTAssertNil(GeneralMIDI.program(named: "  "))
        for (alias, program) in GeneralMIDI.programAliases {
            XCTAssertTrue((0..<128).contains(program), alias)
        }
    }

    func testAPlayersPartOfANameFindsTheProgramsItCouldMean() {
        XCTAssertEqual(GeneralMIDI.programs(matching: "piano"), [0], "an alias is exact")
        XCTAssertEqual(GeneralMIDI.programs(matching: "Acoustic Guitar (nylon)"), [24])
        XCTAssertEqual(GeneralMIDI.programs(matching: "Acoustic Guitar"), [24, 25], "the start of two names")
        XCTAssertEqual(GeneralMIDI.programs(matching: "acoustic gr"), [0])
        XCTAssertEqual(GeneralMIDI.programs(matching: "nylon"), [24], "part of one name")
        XCTAssertEqual(GeneralMIDI.programs(matching: "church"), [19])
        XCTAssertEqual(GeneralMIDI.programs(matching: "Pad"), Array(88...95), "a start wins over a part (no 'Drawbar Organ')")
        XCTAssertEqual(GeneralMIDI.programs(matching: "theremin"), [])
        XCTAssertEqual(GeneralMIDI.programs(matching: " - "), [])
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "nylon").program, 24)
        XCTAssertThrowsError(try SamplerInstrument.resolve(instrument: "Acoustic Guitar")) { error in
            XCTAssertEqual(error as? SamplerError, .ambiguousInstrument("Acoustic Guitar", candidates: ["Acoustic Guitar (nylon)", "Acoustic Guitar (steel)"]))
        }
    }

    func testPercussionMapCoversTheGMRange() {
        XCTAssertEqual(GeneralMIDI.percussionNames.count, 47)
        XCTAssertEqual(Set(GeneralMIDI.percussionNames.keys), Set(35...81))
        XCTAssertEqual(GeneralMIDI.percussionNames[42], "Closed Hi-Hat")
    }
}
