import Chains
import CommandLineInterface
import Control
import Instruments
import XCTest

/// What the library targets throw, as the command line reports it: the
/// option that asked named, exit status 2 for a request that cannot be, 1
/// for what failed on the way.
final class CommandLineErrorConversionTests: XCTestCase {
    private func reported(_ error: ChainError) -> (String, Int32) {
        let converted = CommandLineError(error)
        return (converted.description, converted.exitCode)
    }

    func testAChainsRequestErrorIsAUsageErrorNamingTheOption() {
        XCTAssertEqual(reported(.missingInputChannel(strip: 2, channel: 3, inputChannelCount: 2)).0,
                       "--inputs: strip 2 reads channel 3, but the input has 2 channels")
        XCTAssertEqual(reported(.bankConflict(instrument: "bandoneon", presetBank: 0, bank: 5)).0,
                       "--instrument bandoneon is bank 0 and --bank says 5: give one of them")
        XCTAssertEqual(reported(.instrumentNotInFont("kazoo")).0,
                       SamplerError.unknownInstrument("kazoo").description + "; busker instruments lists the SoundFont's own names")
        XCTAssertEqual(reported(.stripValue(key: .gain, text: "loud")).0, "gain needs a number, not 'loud'")
        XCTAssertEqual(reported(.stripValue(key: .mute, text: "yes")).0, "mute takes on or off, not 'yes'")
        XCTAssertEqual(reported(.unknownKit("nokit")).0, DrumKitError.unknownKit(name: "nokit").description)
        for error: ChainError in [.missingInputChannel(strip: 1, channel: 2, inputChannelCount: 1),
                                  .stripValue(key: .pan, text: "x"), .instrument(.ambiguousInstrument("a", candidates: ["ab", "ac"])),
                                  .instrumentNotInFont("kazoo"), .bankConflict(instrument: "b", presetBank: 0, bank: 1),
                                  .unknownKit("nokit")] {
            XCTAssertEqual(reported(error).1, 2, "\(error)")
        }
    }

    func testAFileTheChainCannotReadIsARuntimeFailureInItsOwnWords() {
        let font = SamplerError.soundFontNotFound(path: "/no/font.sf2", origin: "--soundfont")
        XCTAssertEqual(reported(.soundFont(font)).0, font.description)
        XCTAssertEqual(reported(.soundFont(font)).1, 1)
        let kit = DrumKitError.kitInUse(manifestPath: "/kits/a/kit.json")
        XCTAssertEqual(reported(.kit(kit)).0, kit.description)
        XCTAssertEqual(reported(.kit(kit)).1, 1)
    }

    /// A real socket: an address that is not numeric is --osc-bind's usage
    /// error; a port another socket holds is a runtime failure with the hint.
    func testAnOSCServerThatCannotListenIsReportedByItsOption() throws {
        XCTAssertThrowsError(try OSCServer(bindAddress: "localhost", port: 9000)) { error in
            XCTAssertEqual(error as? OSCServerError, .addressNotNumeric("localhost"))
            let converted = (error as? OSCServerError).map(CommandLineError.init)
            XCTAssertEqual(converted?.description,
                           "--osc-bind takes a numeric address such as 127.0.0.1, 0.0.0.0 or ::1; not 'localhost'")
            XCTAssertEqual(converted?.exitCode, 2)
        }
        let holder = try OSCServer(port: 0)
        XCTAssertThrowsError(try OSCServer(port: holder.port)) { error in
            guard case let .cannotListen(address, port, _, inUse)? = error as? OSCServerError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(address, "127.0.0.1")
            XCTAssertEqual(port, holder.port)
            XCTAssertTrue(inUse)
            let converted = (error as? OSCServerError).map(CommandLineError.init)
            XCTAssertEqual(converted?.exitCode, 1)
            XCTAssertTrue(converted?.description.hasPrefix("OSC: cannot listen on 127.0.0.1 port \(holder.port): ") == true)
            XCTAssertTrue(converted?.description.hasSuffix(" (another program has it: choose another --osc port)") == true)
        }
    }
}
