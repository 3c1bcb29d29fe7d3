import CJACK
import Chains
import Control
import Engine
import Foundation
import JACK
import Sessions
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
        let sources = try MIDISources(midi: "none", midiIn: nil)
        let control = LiveMIDIControl(inputs: sources)
        var options = JACKDriver.Options(clientName: "busker-live", inputChannels: 1, connections: .none)
        options.midiInput = true
        let driver = try JACKDriver(options: options)
        XCTAssertTrue(driver.portNames.contains("midi_in"))
        let input = try XCTUnwrap(driver.midiIn)
        // As the session attaches it: the driver's own input joins the MIDI control's sources.
        sources.attach(input)
        XCTAssertTrue(sources.ports.contains { $0 === input.port })
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
        // JACK reports the connection on its notification thread; let it reach the process graph.
        let start = driver.cyclesRendered
        XCTAssertTrue(JACKTestClient.wait { driver.cyclesRendered > start + 20 })

        var settings = LiveSettings()
        // Pressed and let go: one press toggles the mic (the default map's CC 64). A cycle the
        // server skipped (an xrun: the test VM's host stalls) loses its events, so such a press
        // is sent again, at most five times; a press lost without an xrun fails the test.
        var changes = LiveMIDIControl.Changes()
        var received = false
        for _ in 1...5 where !received {
            let xruns = driver.xrunCount
            XCTAssertNotNil(sender.send([.init(frame: 3, bytes: [0xB0, 64, 127]), .init(frame: 40, bytes: [0xB0, 64, 0])]))
            received = JACKTestClient.wait(seconds: 2) {
                changes = control.poll(settings: &settings, micOn: true)
                return changes.toggleMic
            }
            if !received && driver.xrunCount == xruns { break }
            if !received { print("the press was lost in a skipped cycle (\(driver.xrunCount - xruns) xruns); once more") }
        }
        XCTAssertTrue(received, "the footswitch on midi_in did not reach the MIDI control")
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
