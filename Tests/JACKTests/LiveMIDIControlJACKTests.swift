import CJACK
import Engine
import Foundation
import JACK
import Rig
import XCTest

/// The live mic's MIDI control on JACK: `busker live --driver jack`'s
/// pieces (a `JACKDriver` with `midi_in`, `LiveMIDIControl` reading its
/// sources on the control thread) on a jackd dummy server; a test client
/// presses the footswitch (CC 64) into `midi_in`.
final class LiveMIDIControlJACKTests: XCTestCase {
    private var server: JACKServerFixture?

    override func setUpWithError() throws {
        server = try JACKServerFixture(name: "busker-jlivemidi")
    }

    override func tearDownWithError() throws {
        server?.stop()
    }

    func testAFootswitchOnMidiInTogglesTheMicAndADisconnectReleasesIt() throws {
        let control = try LiveMIDIControl(midi: "none", midiIn: nil, jackMIDI: true)
        let input = try XCTUnwrap(control.sources.jack)
        var options = JACKDriver.Options(clientName: "busker-live", inputChannels: 1, connections: .none)
        options.midiInput = true
        let driver = try JACKDriver(options: options)
        XCTAssertTrue(driver.portNames.contains("midi_in"))
        XCTAssertTrue(input.plug(into: driver))
        let engine = RenderEngine()
        // The process thread stops (the client closes) before the engine's plans go.
        defer {
            driver.close()
            engine.releaseAll()
        }
        try driver.start(engine: engine)

        let sender = try JACKMIDISender(name: "footswitch")
        defer { sender.close() }
        JACKTestClient.connect(sender.client, sender.portName, "busker-live:midi_in")
        XCTAssertTrue(JACKTestClient.wait { input.connectedSourceCount == 1 })

        var settings = LiveSettings()
        // Pressed and let go: one press toggles the mic (the default map's CC 64).
        XCTAssertNotNil(sender.send([.init(frame: 3, bytes: [0xB0, 64, 127]), .init(frame: 40, bytes: [0xB0, 64, 0])]))
        var changes = LiveMIDIControl.Changes()
        XCTAssertTrue(JACKTestClient.wait {
            changes = control.poll(settings: &settings, micOn: true)
            return changes.toggleMic
        }, "the footswitch on midi_in did not reach the MIDI control")
        XCTAssertEqual(input.readCount, 2)
        XCTAssertEqual(input.malformedCount, 0)

        // The sender goes away: its release reaches the control thread too.
        XCTAssertEqual(jack_disconnect(sender.client, sender.portName, "busker-live:midi_in"), 0)
        XCTAssertTrue(JACKTestClient.wait { input.disconnectReleaseCount == 1 })
        XCTAssertTrue(JACKTestClient.wait {
            _ = control.poll(settings: &settings, micOn: false)
            return input.port.deliveredCount == 3
        }, "2 messages and the release, taken by the control thread")
        XCTAssertEqual(input.port.droppedCount, 0)
    }
}
