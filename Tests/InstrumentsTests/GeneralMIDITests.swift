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

    func testPercussionMapCoversTheGMRange() {
        XCTAssertEqual(GeneralMIDI.percussionNames.count, 47)
        XCTAssertEqual(Set(GeneralMIDI.percussionNames.keys), Set(35...81))
        XCTAssertEqual(GeneralMIDI.percussionNames[42], "Closed Hi-Hat")
    }
}
