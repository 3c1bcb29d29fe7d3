import Chains
import Control
import DSP
import Foundation
import Glibc
import XCTest

/// `LiveController` applying OSC datagrams that arrive on a real UDP socket,
/// and presets read from a real config folder, to a session.
final class LiveControllerTests: XCTestCase {
    /// A session as the controller sees it: settings that take only strips
    /// laid out as its own, and a mic switch.
    private final class Session: LiveControlTarget {
        private(set) var settings: LiveSettings
        private(set) var micOn = true
        init(settings: LiveSettings) { self.settings = settings }

        func apply(_ settings: LiveSettings) -> Bool {
            guard settings.strips.map(\.channels) == self.settings.strips.map(\.channels),
                  (try? settings.validate()) != nil else { return false }
            self.settings = settings
            return true
        }

        func setMic(on: Bool) { micOn = on }
    }

    private var work: URL!
    private var presets: PresetStore!
    private var client: Int32 = -1

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("busker-controller-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        presets = try PresetStore(environment: ["XDG_CONFIG_HOME": work.path + "/config"])
        client = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(client, 0)
    }

    override func tearDownWithError() throws {
        close(client)
        try? FileManager.default.removeItem(at: work)
    }

    private func send(_ message: OSCMessage, to port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bytes = message.encoded()
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(client, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(sent, bytes.count)
    }

    /// Polls as the control loop does until `count` OSC lines came back, or 2 s pass.
    private func poll(_ controller: LiveController, _ session: Session, lines count: Int) -> [String] {
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(2)
        while lines.count < count && Date() < deadline {
            let actions = controller.poll(session)
            XCTAssertEqual(actions.midi, [], "no MIDI control was given")
            lines += actions.osc
            usleep(2000)
        }
        return lines
    }

    private func listening() throws -> (LiveController, port: Int) {
        let controller = LiveController()
        let osc = try LiveOSCControl(port: 0)
        osc.start()
        controller.osc = osc
        controller.presets = presets
        return (controller, osc.server.port)
    }

    func testOSCMovesTheVolumeAndTheMicAndSaysSo() throws {
        let (controller, port) = try listening()
        defer { controller.osc?.stop() }
        let session = Session(settings: LiveSettings())
        send(OSCMessage("/busker/volume", [.float32(0.5)]), to: port)
        send(OSCMessage("/busker/mic", [.int32(0)]), to: port)
        let lines = poll(controller, session, lines: 2)
        XCTAssertEqual(session.settings.volume, 0.5)
        XCTAssertFalse(session.micOn)
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("/busker/volume → volume") == true, "\(lines)")
        XCTAssertEqual(lines.last, "/busker/mic → mic off")
    }

    func testAPresetLoadsOverOSCOnlyWhenItsStripsAreTheSessions() throws {
        var gig = LiveSettings()
        gig.volume = 0.2
        gig.room = .hall
        _ = try presets.save(LivePreset(settings: gig, midi: nil), as: "gig")
        var twoStrips = LiveSettings()
        twoStrips.strips = [StripSettings(), StripSettings()]
        twoStrips.strips[1].channels = [2]
        _ = try presets.save(LivePreset(settings: twoStrips, midi: nil), as: "duo")

        let (controller, port) = try listening()
        defer { controller.osc?.stop() }
        let session = Session(settings: LiveSettings())
        send(OSCMessage("/busker/preset", [.string("gig")]), to: port)
        var lines = poll(controller, session, lines: 1)
        XCTAssertEqual(session.settings, gig)
        XCTAssertEqual(controller.presetName, "gig")
        XCTAssertEqual(lines, ["/busker/preset → preset gig"])

        send(OSCMessage("/busker/preset", [.string("duo")]), to: port)
        lines = poll(controller, session, lines: 2)
        XCTAssertEqual(session.settings, gig, "a preset with other strips changes nothing")
        XCTAssertEqual(controller.presetName, "gig")
        XCTAssertEqual(lines.last, "/busker/preset duo: refused, its strips differ from this session's (start busker live --preset duo)")
    }

    func testWithoutMIDIOrOSCAPollChangesNothing() {
        let controller = LiveController()
        let session = Session(settings: LiveSettings())
        XCTAssertEqual(controller.poll(session), LiveController.ActionLines())
        XCTAssertEqual(session.settings, LiveSettings())
        XCTAssertTrue(session.micOn)
        XCTAssertEqual(controller.loadPreset(named: "gig", into: session), "no folder for presets")
    }
}
