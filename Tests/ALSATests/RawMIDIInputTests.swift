import ALSA
import Foundation
import MIDI
import Sequencing
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--midi-in PATH` end to end: bytes written into a FIFO, a file or a
/// pseudo-terminal reach the engine side (a `MIDIScheduler` draining the port,
/// as the audio thread does) as exactly the right events, in order, and every
/// way an input can end releases the notes it left on.
final class RawMIDIInputTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    // MARK: Helpers

    /// The audio thread's side of one port: runs scheduler cycles on demand and
    /// keeps every message the cycles delivered, in order.
    private final class EngineSide {
        let port = MIDIInputPort(name: "midi-in")
        let scheduler: MIDIScheduler
        private(set) var received: [MIDIMessage] = []
        private var sampleTime: Int64 = 0

        init() {
            scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        }

        func runCycle() {
            scheduler.beginCycle(sampleTime: sampleTime, frameCount: 64, sampleRate: 48000,
                                 hostTime: MIDIInputPort.hostTimeNow)
            for index in 0..<scheduler.events.count { received.append(scheduler.events[index].message) }
            sampleTime += 64
        }

        /// Runs cycles until `condition` holds; fails (rather than hangs) after 10 s.
        @discardableResult
        func runCycles(until condition: () -> Bool, _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                runCycle()
                if condition() { return true }
                usleep(1000)
            }
            XCTFail("timed out waiting for \(what); received \(received)", file: file, line: line)
            return false
        }

        func runCycles(untilReceived count: Int, file: StaticString = #filePath, line: UInt = #line) {
            runCycles(until: { received.count >= count }, "\(count) messages", file: file, line: line)
        }
    }

    private func makeFIFO(_ name: String = "midi.fifo") -> String {
        let path = dir.appendingPathComponent(name).path
        XCTAssertEqual(mkfifo(path, 0o600), 0, String(cString: strerror(errno)))
        return path
    }

    /// Opens the FIFO's write end (the reader already holds the read end, so this does not block).
    private func openWriter(_ path: String) -> Int32 {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0, String(cString: strerror(errno)))
        return fd
    }

    private func write(_ fd: Int32, _ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        XCTAssertEqual(written, bytes.count, file: file, line: line)
    }

    private func waitForStatus(_ input: RawMIDIInput, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                               until condition: (RawMIDIInputStatus) -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition(input.status) { return }
            usleep(1000)
        }
        XCTFail("timed out waiting for \(what); status: \(input.status)", file: file, line: line)
    }

    // MARK: FIFO

    func testFIFOBytesArriveAsTheRightEventsInOrder() throws {
        let path = makeFIFO()
        let engine = EngineSide()
        let input = try RawMIDIInput(path: path, port: engine.port)
        XCTAssertEqual(input.kind, .fifo)
        input.start()
        defer { input.stop() }
        let writer = openWriter(path)
        defer { close(writer) }

        // Running status throughout, real-time bytes between a status and its
        // data, inside SysEx and inside running status; a SysEx cancels
        // running status, so the data byte after it is stray. Written in two
        // parts split inside a message: the parser's state spans reads.
        let first: [UInt8] = [
            0x90, 0x3C, 0xF8, 0x64,  // note on 60 (a clock in the middle)
            0x3E, 0xFA, 0x50,        // running status: note on 62; Start between its data bytes
            0xB1, 0x40,
        ]
        let second: [UInt8] = [
            0x7F,                    // CC 64 (sustain) on, channel 2
            0x07, 0xF8, 0x64,        // running status: CC 7 = 100
            0xE2, 0x00, 0x40,        // pitch bend centre, channel 3
            0xC3, 0x05, 0x06,        // program 5, then 6 by running status
            0xF0, 0x7E, 0x01, 0xF8, 0x02, 0xF7,  // SysEx with a clock inside
            0x45,                    // stray: SysEx cancelled running status
            0x80, 0x3C, 0x00,        // note off 60
            0xFC,                    // Stop
        ]
        write(writer, first)
        write(writer, second)
        let expected: [MIDIMessage] = [
            .noteOn(channel: 0, note: 60, velocity: 100),
            .start,
            .noteOn(channel: 0, note: 62, velocity: 80),
            .controlChange(channel: 1, controller: 64, value: 127),
            .controlChange(channel: 1, controller: 7, value: 100),
            .pitchBend(channel: 2, value: 8192),
            .programChange(channel: 3, program: 5),
            .programChange(channel: 3, program: 6),
            .noteOff(channel: 0, note: 60, velocity: 0),
            .stop,
        ]
        engine.runCycles(untilReceived: expected.count)
        waitForStatus(input, "every byte read") { $0.bytesRead == first.count + second.count }
        engine.runCycle()
        XCTAssertEqual(engine.received, expected)

        let status = input.status
        XCTAssertEqual(status.state, .receiving)
        XCTAssertEqual(status.messagesForwarded, expected.count)
        XCTAssertEqual(status.messagesFiltered, 3, "three timing clocks")
        XCTAssertEqual(status.sysExMessages, 1)
        XCTAssertEqual(status.parser.strayDataBytes, 1)
        XCTAssertEqual(status.parser.total, 1)
        XCTAssertTrue(ALSATestSupport.threadNames().contains(RawMIDIInput.threadName))

        // Stopping releases what is still held: note 62 and the pedal on channel 2.
        input.stop()
        XCTAssertEqual(input.status.state, .stopped)
        engine.runCycles(untilReceived: expected.count + 2)
        XCTAssertEqual(Array(engine.received.dropFirst(expected.count)), [
            .noteOff(channel: 0, note: 62, velocity: 0),
            .controlChange(channel: 1, controller: 64, value: 0),
        ])
        XCTAssertEqual(engine.scheduler.heldCount, 0)
    }

    func testWriterClosingReleasesHeldNotesAndTheNextWriterIsHeard() throws {
        let path = makeFIFO()
        let engine = EngineSide()
        let input = try RawMIDIInput(path: path, port: engine.port)
        input.start()
        defer { input.stop() }

        let writer = openWriter(path)
        write(writer, [0x91, 0x3C, 0x64, 0x40, 0x64, 0x40, 0x00, 0x90])  // ends inside a message
        close(writer)
        waitForStatus(input, "the writer's close") { $0.writersClosed == 1 }
        XCTAssertEqual(input.status.state, .waiting)
        engine.runCycles(untilReceived: 4)
        XCTAssertEqual(engine.received, [
            .noteOn(channel: 1, note: 60, velocity: 100),
            .noteOn(channel: 1, note: 64, velocity: 100),
            .noteOn(channel: 1, note: 64, velocity: 0),
            .noteOff(channel: 1, note: 60, velocity: 0),  // the release: 60 was left on
        ])
        XCTAssertEqual(engine.scheduler.heldCount, 0)

        // A new writer starts from scratch: no running status carried over
        // from the last one, so its leading data bytes are stray.
        let second = openWriter(path)
        defer { close(second) }
        write(second, [0x43, 0x50, 0x92, 0x43, 0x50])
        engine.runCycles(untilReceived: 5)
        waitForStatus(input, "the second writer's bytes") { $0.bytesRead == 13 }
        engine.runCycle()
        XCTAssertEqual(engine.received.last, .noteOn(channel: 2, note: 67, velocity: 80))
        XCTAssertEqual(engine.received.count, 5)
        XCTAssertEqual(input.status.parser.strayDataBytes, 2)
        XCTAssertEqual(input.status.state, .receiving)
    }

    func testActiveSensingSilenceReleasesNotes() throws {
        let path = makeFIFO()
        let engine = EngineSide()
        let input = try RawMIDIInput(path: path, port: engine.port)
        input.start()
        defer { input.stop() }
        let writer = openWriter(path)
        defer { close(writer) }

        // The writer stays open but falls silent after Active Sensing: the
        // connection counts as lost after 300 ms, and the note is released.
        write(writer, [0xFE, 0x90, 0x3C, 0x64])
        engine.runCycles(until: { engine.received.count >= 2 }, "the note and its release")
        XCTAssertEqual(engine.received, [
            .noteOn(channel: 0, note: 60, velocity: 100),
            .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        XCTAssertEqual(input.status.activeSensingTimeouts, 1)
        XCTAssertEqual(input.status.state, .sensingTimedOut)

        // The next byte resumes reception (in non-sensing mode until the next 0xFE).
        write(writer, [0x90, 0x3E, 0x64])
        engine.runCycles(untilReceived: 3)
        XCTAssertEqual(engine.received.last, .noteOn(channel: 0, note: 62, velocity: 100))
        waitForStatus(input, "receiving again") { $0.state == .receiving }
    }

    func testStopWhileBlockedWithoutAWriterReturnsPromptly() throws {
        let path = makeFIFO()
        let engine = EngineSide()
        let input = try RawMIDIInput(path: path, port: engine.port)
        input.start()
        waitForStatus(input, "the reader to wait") { $0.state == .waiting }
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            input.stop()
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success, "stop() did not return")
        XCTAssertEqual(input.status.state, .stopped)
        // Its release reaches the engine (nothing was held, so no messages).
        engine.runCycle()
        XCTAssertEqual(engine.received, [])
    }

    // MARK: Regular file

    func testRegularFileDeliversThenReleasesTheNotesLeftOn() throws {
        let url = dir.appendingPathComponent("notes.mid.raw")
        try Data([0x90, 0x3C, 0x64, 0x40, 0x64, 0x3C, 0x00, 0xF8, 0xB0, 0x40, 0x7F]).write(to: url)
        let engine = EngineSide()
        let input = try RawMIDIInput(path: url.path, port: engine.port)
        XCTAssertEqual(input.kind, .file)
        input.start()
        defer { input.stop() }
        waitForStatus(input, "the end of the file") { $0.state == .ended }
        engine.runCycles(untilReceived: 6)
        engine.runCycle()
        XCTAssertEqual(engine.received, [
            .noteOn(channel: 0, note: 60, velocity: 100),
            .noteOn(channel: 0, note: 64, velocity: 100),
            .noteOn(channel: 0, note: 60, velocity: 0),
            .controlChange(channel: 0, controller: 64, value: 127),
            .noteOff(channel: 0, note: 64, velocity: 0),           // released at the end
            .controlChange(channel: 0, controller: 64, value: 0),  // and the pedal lifted
        ])
        XCTAssertEqual(input.status.bytesRead, 11)
        input.stop()
        XCTAssertEqual(input.status.state, .ended, "stop after the end keeps the reason")
    }

    // MARK: Device

    /// A pseudo-terminal is a character device in line mode until the input
    /// makes it raw, and one that can be "unplugged":
    /// closing its master side hangs the slave up, as unplugging a USB serial
    /// MIDI interface does. (An unplugged ALSA raw MIDI device fails its reads
    /// with ENODEV instead, which takes the same path; no such device here.)
    func testDeviceHangUpReleasesNotesAndReportsDisconnected() throws {
        guard let (master, path) = Self.openPseudoTerminal() else { throw XCTSkip("no pseudo-terminals here") }
        let engine = EngineSide()
        let input = try RawMIDIInput(path: path, port: engine.port)
        XCTAssertEqual(input.kind, .device)
        input.start()
        defer { input.stop() }
        // 0x0D would reach the reader as 0x0A, and nothing at all before a
        // newline, unless the input put the terminal in raw mode.
        write(master, [0x99, 0x24, 0x0D, 0x26, 0x60])
        engine.runCycles(untilReceived: 2)
        close(master)
        waitForStatus(input, "the disconnect") { $0.state.isFinal }
        XCTAssertEqual(input.status.state, .disconnected(.lost(path: path, code: 0)))
        XCTAssertTrue(input.status.state.description.contains("hung up"), input.status.state.description)
        XCTAssertFalse(input.status.state.description.contains("\n"))
        engine.runCycles(untilReceived: 4)
        XCTAssertEqual(engine.received, [
            .noteOn(channel: 9, note: 36, velocity: 13),
            .noteOn(channel: 9, note: 38, velocity: 96),
            .noteOff(channel: 9, note: 36, velocity: 0),
            .noteOff(channel: 9, note: 38, velocity: 0),
        ])
    }

    /// A new pseudo-terminal: its master descriptor and the slave's path.
    /// (glibc's `unlockpt` and `ptsname` are hidden from Swift's Glibc module
    /// behind feature macros, so they are looked up at run time.)
    private static func openPseudoTerminal() -> (Int32, String)? {
        typealias Unlock = @convention(c) (Int32) -> Int32
        typealias SlaveName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let unlockSymbol = dlsym(nil, "unlockpt"), let nameSymbol = dlsym(nil, "ptsname") else { return nil }
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { return nil }
        guard unsafeBitCast(unlockSymbol, to: Unlock.self)(master) == 0,
              let name = unsafeBitCast(nameSymbol, to: SlaveName.self)(master) else {
            close(master)
            return nil
        }
        return (master, String(cString: name))
    }

    // MARK: Errors at open

    func testMissingPathGivesAOneLineError() {
        let path = dir.appendingPathComponent("no-such-port").path
        XCTAssertThrowsError(try RawMIDIInput(path: path, port: MIDIInputPort(name: "x"))) { error in
            XCTAssertEqual(error as? RawMIDIError, .notFound(path: path))
            let line = "\(error)"
            XCTAssertFalse(line.contains("\n"), line)
            XCTAssertTrue(line.contains("'\(path)'"), line)
            XCTAssertTrue(line.contains("mkfifo"), line)
            print("error line: \(line)")
        }
    }

    func testDirectoryGivesAOneLineError() {
        XCTAssertThrowsError(try RawMIDIInput(path: dir.path, port: MIDIInputPort(name: "x"))) { error in
            XCTAssertEqual(error as? RawMIDIError, .isDirectory(path: dir.path))
            XCTAssertFalse("\(error)".contains("\n"))
        }
    }

    func testPermissionDeniedGivesAOneLineError() throws {
        // The errno mapping everywhere; the real refusal only where permissions apply (not as root).
        let mapped = RawMIDIError.openFailed(path: "/dev/snd/midiC1D0", code: EACCES)
        XCTAssertEqual(mapped, .permissionDenied(path: "/dev/snd/midiC1D0"))
        XCTAssertTrue(mapped.description.contains("'audio' group"), mapped.description)
        XCTAssertEqual(RawMIDIError.openFailed(path: "p", code: EBUSY), .busy(path: "p"))
        XCTAssertEqual(RawMIDIError.openFailed(path: "p", code: ENXIO), .noDevice(path: "p"))
        guard getuid() != 0 else { throw XCTSkip("root may read any file: the refusal itself is not testable as root") }
        let url = dir.appendingPathComponent("locked")
        try Data([0x90]).write(to: url)
        XCTAssertEqual(chmod(url.path, 0), 0)
        XCTAssertThrowsError(try RawMIDIInput(path: url.path, port: MIDIInputPort(name: "x"))) { error in
            XCTAssertEqual(error as? RawMIDIError, .permissionDenied(path: url.path))
        }
    }

    func testSocketIsRefused() {
        let path = dir.appendingPathComponent("sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            _ = path.utf8CString.withUnsafeBytes { memcpy(raw.baseAddress!, $0.baseAddress!, min(raw.count - 1, $0.count)) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertThrowsError(try RawMIDIInput(path: path, port: MIDIInputPort(name: "x"))) { error in
            XCTAssertEqual(error as? RawMIDIError, .unsupportedFileType(path: path, kind: "socket"))
        }
    }

    func testForwardingPolicy() {
        XCTAssertTrue(RawMIDIInput.forwardsToEngine(.noteOn(channel: 0, note: 60, velocity: 1)))
        XCTAssertTrue(RawMIDIInput.forwardsToEngine(.controlChange(channel: 0, controller: 123, value: 0)))
        XCTAssertTrue(RawMIDIInput.forwardsToEngine(.systemReset))
        XCTAssertTrue(RawMIDIInput.forwardsToEngine(.songPosition(16)))
        XCTAssertFalse(RawMIDIInput.forwardsToEngine(.timingClock))
        XCTAssertFalse(RawMIDIInput.forwardsToEngine(.activeSensing))
        XCTAssertFalse(RawMIDIInput.forwardsToEngine(.timeCodeQuarterFrame(0x12)))
        XCTAssertFalse(RawMIDIInput.forwardsToEngine(.systemExclusive(byteCount: 3, endedWithEOX: true)))
    }
}
