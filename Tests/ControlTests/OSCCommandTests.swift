import Control
import XCTest

/// The OSC address space of docs/osc.md, validated without a socket: every
/// address, its query form, and every kind of refusal.
final class OSCCommandTests: XCTestCase {
    private func command(_ address: String, _ arguments: [OSCArgument] = [], strips: Int = 2) throws(OSCCommand.Refusal) -> OSCCommand {
        try OSCCommand(OSCMessage(address, arguments), stripCount: strips)
    }

    private func refusal(_ address: String, _ arguments: [OSCArgument] = [], strips: Int = 2) -> OSCCommand.Refusal? {
        do {
            _ = try command(address, arguments, strips: strips)
            return nil
        } catch {
            return error
        }
    }

    func testEveryAddressSetsItsControl() throws {
        XCTAssertEqual(try command("/busker/mic", [.int32(0)]), .turn(.mic, on: false))
        XCTAssertEqual(try command("/busker/mic", [.float32(1)]), .turn(.mic, on: true))
        XCTAssertEqual(try command("/busker/mic", [.true]), .turn(.mic, on: true))
        XCTAssertEqual(try command("/busker/mic", [.false]), .turn(.mic, on: false))
        XCTAssertEqual(try command("/busker/volume", [.float32(0.15)]), .set(.volume, 0.15))
        XCTAssertEqual(try command("/busker/volume", [.int32(1)]), .set(.volume, 1))
        XCTAssertEqual(try command("/busker/volume", [.float64(0.5)]), .set(.volume, 0.5))
        XCTAssertEqual(try command("/busker/volume", [.int64(0)]), .set(.volume, 0))
        XCTAssertEqual(try command("/busker/strip/1/gain", [.float32(-24)]), .set(.gain(strip: 1), -24))
        XCTAssertEqual(try command("/busker/strip/2/pan", [.float32(-0.5)]), .set(.pan(strip: 2), -0.5))
        XCTAssertEqual(try command("/busker/strip/2/bass", [.float32(12)]), .set(.bass(strip: 2), 12))
        XCTAssertEqual(try command("/busker/strip/1/treble", [.int32(-12)]), .set(.treble(strip: 1), -12))
        XCTAssertEqual(try command("/busker/strip/1/reverb", [.float32(100)]), .set(.reverb(strip: 1), 100))
        XCTAssertEqual(try command("/busker/strip/2/mute", [.int32(1)]), .turn(.mute(strip: 2), on: true))
        XCTAssertEqual(try command("/busker/preset", [.string("gig")]), .loadPreset("gig"))
        XCTAssertEqual(try command("/busker/preset", [.symbol("gig 2")]), .loadPreset("gig 2"))
        XCTAssertEqual(try command("/busker/strip/16/gain", [.float32(3)], strips: 16), .set(.gain(strip: 16), 3))
    }

    func testAnAddressWithoutAValueIsAQuery() throws {
        XCTAssertEqual(try command("/busker/mic"), .query(.mic))
        XCTAssertEqual(try command("/busker/volume"), .query(.volume))
        XCTAssertEqual(try command("/busker/strip/2/mute"), .query(.mute(strip: 2)))
        XCTAssertEqual(try command("/busker/strip/1/bass"), .query(.bass(strip: 1)))
        XCTAssertEqual(try command("/busker/preset"), .queryPreset)
        XCTAssertEqual(try command("/busker/state"), .queryState)
    }

    func testUnknownAddressesAreToldApartFromBadValues() {
        for address in ["/busker", "/busker/", "/busker/mic/", "/busker/Mic", "/busker/strip/1", "/busker/strip/1/gain/x",
                        "/busker/strip/0/gain", "/busker/strip/01/gain", "/busker/strip/17/gain", "/busker/strip/+1/gain",
                        "/busker/strip/-1/gain", "/busker/strip/1/boost", "/busker/strip//gain", "/busker/strips", "/mic",
                        "/busker/volume/1", "//busker/volume", "/busker//volume", "/busker/strip/١/gain"] {
            XCTAssertEqual(refusal(address, [.float32(0)]), .unknownAddress, address)
        }
    }

    func testWrongTypesAndCountsAreRefused() {
        XCTAssertEqual(refusal("/busker/volume", [.string("0.5")]), .wrongType("a number (i, h, f or d), not 's'"))
        XCTAssertEqual(refusal("/busker/volume", [.true]), .wrongType("a number (i, h, f or d), not 'T'"))
        XCTAssertEqual(refusal("/busker/volume", [.other("b")]), .wrongType("a number (i, h, f or d), not 'b'"))
        XCTAssertEqual(refusal("/busker/volume", [.float32(0.1), .float32(0.2)]), .wrongType("at most one argument, not 2"))
        XCTAssertEqual(refusal("/busker/mic", [.string("on")]), .wrongType("1 or 0 (i, f, T or F), not 's'"))
        XCTAssertEqual(refusal("/busker/preset", [.int32(1)]), .wrongType("a preset name (s), not 'i'"))
        XCTAssertEqual(refusal("/busker/state", [.int32(1)]), .wrongType("no argument"))
    }

    func testValuesOutOfRangeAreRefusedNotClamped() {
        let cases: [(String, OSCArgument)] = [
            ("/busker/volume", .float32(1.01)), ("/busker/volume", .float32(-0.01)), ("/busker/volume", .float32(.nan)),
            ("/busker/volume", .float32(.infinity)), ("/busker/volume", .float64(-.infinity)), ("/busker/volume", .int64(.max)),
            ("/busker/strip/1/gain", .float32(24.5)), ("/busker/strip/1/pan", .int32(2)), ("/busker/strip/1/bass", .float32(-13)),
            ("/busker/strip/1/treble", .float64(12.000001)), ("/busker/strip/1/reverb", .float32(101)),
            ("/busker/mic", .int32(2)), ("/busker/mic", .float32(0.5)), ("/busker/strip/1/mute", .int32(-1)),
            // A double just above the range must not round into it as a Float and pass.
            ("/busker/volume", .float64(1.000000001)),
        ]
        for (address, argument) in cases {
            guard case .outOfRange = refusal(address, [argument]) else {
                XCTFail("\(address) \(argument.text): \(String(describing: refusal(address, [argument])))")
                continue
            }
        }
    }

    func testAStripTheSessionLacksIsRefused() {
        XCTAssertEqual(refusal("/busker/strip/3/gain", [.float32(0)], strips: 2), .noSuchStrip(3))
        XCTAssertEqual(refusal("/busker/strip/2/mute", strips: 1), .noSuchStrip(2))
    }

    func testPresetNamesThatCannotNameAFileAreRefused() {
        for name in ["", "../etc/passwd", ".hidden", "a/b", "tab\there"] {
            guard case .badPresetName = refusal("/busker/preset", [.string(name)]) else {
                XCTFail("'\(name)' was taken")
                continue
            }
        }
    }
}
