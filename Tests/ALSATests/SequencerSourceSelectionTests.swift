import ALSA
import XCTest

/// `--midi` given more than once: every port named is followed.
final class SequencerSourceSelectionTests: XCTestCase {
    private func port(_ client: UInt8, _ name: String) -> SequencerPortDescription {
        SequencerPortDescription(address: SequencerAddress(client: client, port: 0), clientName: name, portName: "\(name) MIDI 1",
                                 capabilities: [.read, .subscribeRead], types: [.hardware])
    }

    func testSeveralPortsAreEachFollowed() throws {
        let selection = try SequencerSourceSelection(arguments: ["20:0", "Keystation"])
        XCTAssertEqual(selection.description, "20:0, Keystation")
        XCTAssertTrue(selection.isExplicit)
        let desk = [port(20, "Launchpad"), port(24, "Keystation Mini"), port(28, "Other")]
        XCTAssertEqual(try selection.initialSources(among: desk, ownClient: 129), [desk[0], desk[1]])
        XCTAssertTrue(selection.follows(desk[1], ownClient: 129))
        XCTAssertFalse(selection.follows(desk[2], ownClient: 129))
        XCTAssertThrowsError(try SequencerSourceSelection(arguments: ["20:0", "30:0"]).initialSources(among: desk, ownClient: 129),
                             "a port named and missing is an error, as for one")
    }

    func testOneArgumentIsAsBefore() throws {
        XCTAssertEqual(try SequencerSourceSelection(arguments: []), .automatic)
        XCTAssertEqual(try SequencerSourceSelection(arguments: ["auto"]), .automatic)
        XCTAssertEqual(try SequencerSourceSelection(arguments: ["20:0"]), try SequencerSourceSelection(argument: "20:0"))
        XCTAssertThrowsError(try SequencerSourceSelection(arguments: ["auto", "20:0"]))
    }
}
