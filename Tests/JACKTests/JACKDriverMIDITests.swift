import CJACK
import Engine
import Foundation
import JACK
import Sequencing
import XCTest

/// JACK MIDI through the driver itself (not a test host) across a
/// buffer-size change, on a real jackd (dummy driver, 48 kHz, 64 frames).
///
/// Between `jack_bufsize` growing the cycle and the session's rebuild, the
/// driver outputs silence (the graph's block is shorter than the cycle), and
/// during the rebuild it is stopped. What a MIDI source sends in those cycles
/// must still arrive: a note-off lost there leaves the note held (the
/// session's all-notes-off covers notes, not a pedal or a program change).
/// The driver reads `midi_in` in those cycles too and the events land on the
/// first frame of the next rendered cycle.
final class JACKDriverMIDITests: XCTestCase {
    private var server: JACKServerFixture!
    private var clients: [() -> Void] = []

    override func setUpWithError() throws {
        server = try JACKServerFixture(name: "busker-jdmidi")
    }

    override func tearDown() {
        for close in clients.reversed() { close() }
        clients = []
        server?.stop()
    }

    func testEventsSentWhileCyclesAreSilencedLandOnTheNextRenderedCycle() throws {
        var options = JACKDriver.Options(clientName: "busker", inputChannels: 0, connections: .none)
        options.midiInput = true
        let driver = try JACKDriver(options: options)
        clients.append(driver.close)
        let input = try XCTUnwrap(driver.midiIn, "the driver reads midi_in itself")
        let scheduler = MIDIScheduler(ports: [input.port], watchdogSeconds: 30)
        let engine = RenderEngine()
        clients.append(engine.releaseAll)
        engine.attach(scheduler)
        /// The graph for the driver's current cycle length, as a rebuild makes it.
        func install() throws {
            let graph = AudioGraph(inputChannelCount: 0)
            graph.output = graph.add(EventMarkerInstrument(events: scheduler.events))
            engine.install(try graph.compile(spec: driver.processSpec))
        }
        try install()
        try driver.start(engine: engine)

        let recorder = try JACKPortRecorder(name: "recorder")
        clients.append(recorder.close)
        let sender = try JACKMIDISender(name: "sender")
        clients.append(sender.close)
        for channel in 0..<2 {
            JACKTestClient.connect(recorder.client, "busker:\(channel == 0 ? "out_L" : "out_R")", recorder.portName(channel))
        }
        JACKTestClient.connect(sender.client, sender.portName, "busker:\(JACKMIDIInput.portName)")
        XCTAssertTrue(JACKTestClient.wait { input.connectedSourceCount == 1 })

        // Note 60 held while cycles render at 64 frames.
        XCTAssertNotNil(sender.send([.init(frame: 0, bytes: [0x90, 60, 127])]))
        XCTAssertTrue(JACKTestClient.wait { scheduler.heldCount == 1 }, "the first note reached the engine")

        // The held note's mark reaches the recorder a cycle or two after the engine took the
        // note: let a few cycles go by so the window below starts after it.
        XCTAssertTrue(recorder.waitFor(frame: recorder.endFrame &+ 4 * 64))
        // 256-frame cycles on a graph built for 64: silenced until the rebuild, which this test holds back.
        let changedAt = recorder.endFrame
        try server.setBufferSize(256)
        XCTAssertTrue(JACKTestClient.wait { driver.silencedCycles >= 10 }, "\(driver.silencedCycles) cycles silenced")
        XCTAssertNotNil(sender.send([.init(frame: 100, bytes: [0x80, 60, 0]), .init(frame: 200, bytes: [0x90, 62, 127])]))
        XCTAssertTrue(JACKTestClient.wait { input.readCount == 3 }, "a silenced cycle read \(input.readCount - 1) of the 2 events")
        XCTAssertEqual(scheduler.heldCount, 1, "nothing is delivered while the engine does not render")

        // The rebuild as the session does it, without its all-notes-off: stopped, a graph for 256, started again.
        driver.stop()
        try install()
        try driver.start(engine: engine)
        let end = recorder.endFrame &+ 4800
        XCTAssertTrue(recorder.waitFor(frame: end))
        let count = Int(end &- changedAt)
        let gate = recorder.samples(0, from: changedAt, count: count)
        let marks = recorder.samples(1, from: changedAt, count: count)
        let marked = marks.indices.filter { !marks[$0].isNaN && marks[$0] != 0 }
        // Note 62 starts once, on the first frame rendered after the silence, and note 60 has ended by then.
        XCTAssertEqual(marked.count, 1, "note-ons after the change at \(marked)")
        let first = try XCTUnwrap(marked.first)
        XCTAssertEqual(marks[first], 62 / 128)
        guard first > 0 else { return XCTFail("note 62 marked on the window's first frame: no frame before it to check") }
        XCTAssertEqual(gate[first - 1], 0, "the frame before is the silenced or stopped output")
        let after = gate[first...].filter { !$0.isNaN }
        XCTAssertEqual(Set(after), [1], "one note held from the first rendered frame on: 62, not 60 as well")
        XCTAssertEqual(scheduler.heldCount, 1)
        XCTAssertEqual(input.malformedCount, 0)
    }
}
