import ALSA
import CALSA
import Foundation
import MIDI
import Sequencing
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The ALSA sequencer input, tested where it is pure: event conversion on
/// `snd_seq_event_t` values built here, `--midi` parsing and resolution, the
/// auto-connect choice over port descriptions, and the routing of sources to
/// ports with their releases (drained through a `MIDIScheduler`, as the
/// audio thread does). Opening the real sequencer is tested for its error on
/// machines without one, and for the client's life cycle where there is one.
final class SequencerMIDIInputTests: XCTestCase {
    // MARK: Building events

    private static let busker = SequencerAddress(client: 129, port: 0)
    private static let keyboard = SequencerAddress(client: 20, port: 0)
    private static let pads = SequencerAddress(client: 24, port: 0)

    private func event(_ type: snd_seq_event_type, from source: SequencerAddress = keyboard) -> snd_seq_event_t {
        var event = snd_seq_event_t()
        event.type = snd_seq_event_type_t(type.rawValue)
        event.source = snd_seq_addr_t(client: source.client, port: source.port)
        event.dest = snd_seq_addr_t(client: Self.busker.client, port: Self.busker.port)
        return event
    }

    private func note(_ type: snd_seq_event_type, channel: UInt8, note: UInt8, velocity: UInt8,
                      from source: SequencerAddress = keyboard) -> snd_seq_event_t {
        var event = event(type, from: source)
        event.data.note = snd_seq_ev_note_t(channel: channel, note: note, velocity: velocity, off_velocity: 0, duration: 0)
        return event
    }

    private func control(_ type: snd_seq_event_type, channel: UInt8 = 0, parameter: UInt32 = 0, value: Int32,
                         from source: SequencerAddress = keyboard) -> snd_seq_event_t {
        var event = event(type, from: source)
        event.data.control = snd_seq_ev_ctrl_t(channel: channel, unused: (0, 0, 0), param: parameter, value: value)
        return event
    }

    /// An announcement from System:Announce about `address`.
    private func announcement(_ type: snd_seq_event_type, about address: SequencerAddress) -> snd_seq_event_t {
        var event = event(type, from: .systemAnnounce)
        event.data.addr = snd_seq_addr_t(client: address.client, port: address.port)
        return event
    }

    private func subscription(_ type: snd_seq_event_type, sender: SequencerAddress, dest: SequencerAddress) -> snd_seq_event_t {
        var event = event(type, from: .systemAnnounce)
        event.data.connect = snd_seq_connect_t(sender: snd_seq_addr_t(client: sender.client, port: sender.port),
                                               dest: snd_seq_addr_t(client: dest.client, port: dest.port))
        return event
    }

    // MARK: Event conversion

    func testChannelEventsConvertToTheirMessages() {
        let convert = SequencerEventConverter.messages(for:)
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_NOTEON, channel: 9, note: 36, velocity: 127)),
                       [.noteOn(channel: 9, note: 36, velocity: 127)])
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 60, velocity: 0)),
                       [.noteOn(channel: 0, note: 60, velocity: 0)], "velocity 0 kept as sent")
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_NOTEOFF, channel: 2, note: 61, velocity: 40)),
                       [.noteOff(channel: 2, note: 61, velocity: 40)])
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_KEYPRESS, channel: 1, note: 62, velocity: 90)),
                       [.polyPressure(channel: 1, note: 62, pressure: 90)])
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_NOTEON, channel: 0x13, note: 0xC0, velocity: 0x85)),
                       [.noteOn(channel: 3, note: 0x40, velocity: 5)], "masked to 4 and 7 bits")
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CONTROLLER, channel: 4, parameter: 64, value: 127)),
                       [.controlChange(channel: 4, controller: 64, value: 127)])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CONTROLLER, parameter: 7, value: 300)),
                       [.controlChange(channel: 0, controller: 7, value: 127)], "clamped")
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CONTROLLER, parameter: 200, value: 1)), [], "no such controller")
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_PGMCHANGE, channel: 5, value: 33)),
                       [.programChange(channel: 5, program: 33)])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CHANPRESS, channel: 6, value: 70)),
                       [.channelPressure(channel: 6, pressure: 70)])
    }

    func testPitchBendIsShiftedFromSignedToTheWireValue() {
        let bend = { (value: Int32) in SequencerEventConverter.messages(for: self.control(SND_SEQ_EVENT_PITCHBEND, channel: 1, value: value)) }
        XCTAssertEqual(bend(-8192), [.pitchBend(channel: 1, value: 0)])
        XCTAssertEqual(bend(0), [.pitchBend(channel: 1, value: 8192)])
        XCTAssertEqual(bend(8191), [.pitchBend(channel: 1, value: 16383)])
        XCTAssertEqual(bend(-1), [.pitchBend(channel: 1, value: 8191)])
        XCTAssertEqual(bend(20000), [.pitchBend(channel: 1, value: 16383)], "clamped")
        XCTAssertEqual(bend(-20000), [.pitchBend(channel: 1, value: 0)], "clamped")
    }

    func testFourteenBitControllersAndParameterNumbersBecomeTheirControlChanges() {
        let convert = SequencerEventConverter.messages(for:)
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CONTROL14, channel: 2, parameter: 7, value: 1000)), [
            .controlChange(channel: 2, controller: 7, value: 7),     // 1000 >> 7
            .controlChange(channel: 2, controller: 39, value: 104),  // 1000 & 127
        ])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_CONTROL14, parameter: 64, value: 130)),
                       [.controlChange(channel: 0, controller: 64, value: 2)])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_NONREGPARAM, channel: 3, parameter: 0x0102, value: 0x0203)), [
            .controlChange(channel: 3, controller: 99, value: 2),
            .controlChange(channel: 3, controller: 98, value: 2),
            .controlChange(channel: 3, controller: 6, value: 4),
            .controlChange(channel: 3, controller: 38, value: 3),
        ])
        // RPN 0 (pitch bend sensitivity) = 2 semitones.
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_REGPARAM, parameter: 0, value: 2 << 7)), [
            .controlChange(channel: 0, controller: 101, value: 0),
            .controlChange(channel: 0, controller: 100, value: 0),
            .controlChange(channel: 0, controller: 6, value: 2),
            .controlChange(channel: 0, controller: 38, value: 0),
        ])
    }

    func testSystemEventsConvertAndTheRestAreLeftOut() {
        let convert = SequencerEventConverter.messages(for:)
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_SONGPOS, value: 300)), [.songPosition(300)])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_SONGSEL, value: 5)), [.songSelect(5)])
        XCTAssertEqual(convert(control(SND_SEQ_EVENT_QFRAME, value: 0x23)), [.timeCodeQuarterFrame(0x23)])
        let single: [(snd_seq_event_type, MIDIMessage)] = [
            (SND_SEQ_EVENT_TUNE_REQUEST, .tuneRequest), (SND_SEQ_EVENT_START, .start),
            (SND_SEQ_EVENT_CONTINUE, .continue), (SND_SEQ_EVENT_STOP, .stop),
            (SND_SEQ_EVENT_CLOCK, .timingClock), (SND_SEQ_EVENT_SENSING, .activeSensing),
            (SND_SEQ_EVENT_RESET, .systemReset),
        ]
        for (type, message) in single {
            XCTAssertEqual(convert(event(type)), [message], "\(type)")
        }
        var sysEx = event(SND_SEQ_EVENT_SYSEX)
        sysEx.flags = UInt8(SND_SEQ_EVENT_LENGTH_VARIABLE)
        XCTAssertEqual(convert(sysEx), [])
        XCTAssertTrue(SequencerEventConverter.isSysEx(sysEx))
        XCTAssertEqual(convert(note(SND_SEQ_EVENT_NOTE, channel: 0, note: 60, velocity: 100)), [], "queue-only NOTE events")
        XCTAssertEqual(convert(announcement(SND_SEQ_EVENT_PORT_START, about: Self.keyboard)), [])
        XCTAssertEqual(convert(event(SND_SEQ_EVENT_TEMPO)), [])
    }

    // MARK: --midi parsing and resolution

    func testSpecifierParsing() throws {
        func parsed(_ text: String) throws -> (SequencerPortSpecifier.Client, UInt8) {
            let specifier = try SequencerPortSpecifier(parsing: text)
            return (specifier.client, specifier.port)
        }
        XCTAssertTrue(try parsed("20:0") == (.number(20), 0))
        XCTAssertTrue(try parsed("20") == (.number(20), 0))
        XCTAssertTrue(try parsed("20.1") == (.number(20), 1))
        XCTAssertTrue(try parsed(" 24:3 ") == (.number(24), 3))
        XCTAssertTrue(try parsed("Keystation:0") == (.name("Keystation"), 0))
        XCTAssertTrue(try parsed("Keystation") == (.name("Keystation"), 0))
        XCTAssertTrue(try parsed("Keystation Mini 32:1") == (.name("Keystation Mini 32"), 1))
        XCTAssertTrue(try parsed("Midi Through:0") == (.name("Midi Through"), 0))
        XCTAssertTrue(try parsed("A:B:2") == (.name("A:B"), 2), "the port follows the last colon")
        XCTAssertTrue(try parsed("E.M.U. Xmidi") == (.name("E.M.U. Xmidi"), 0), "dots in names")

        for bad in ["", "  ", ":0", "20:x", "20:", "20:256", "300:0", "Keystation:one"] {
            XCTAssertThrowsError(try SequencerPortSpecifier(parsing: bad), "'\(bad)'") { error in
                guard case .invalidSpecifier? = error as? SequencerError else { return XCTFail("\(error)") }
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertEqual(try SequencerSourceSelection(argument: "auto"), .automatic)
        XCTAssertEqual(try SequencerSourceSelection(argument: "AUTO"), .automatic)
        XCTAssertEqual(try SequencerSourceSelection(argument: "20:0"),
                       .port(SequencerPortSpecifier(client: .number(20), port: 0)))
    }

    /// A sequencer as `aconnect -l` might show it on a desk with two keyboards.
    private let desk: [SequencerPortDescription] = {
        typealias D = SequencerPortDescription
        let both: D.Capabilities = [.read, .write, .subscribeRead, .subscribeWrite]
        let hardware: D.Types = [.midiGeneric, .hardware, .port]
        return [
            D(address: .init(client: 0, port: 0), clientName: "System", portName: "Timer",
              capabilities: both, types: []),
            D(address: .init(client: 0, port: 1), clientName: "System", portName: "Announce",
              capabilities: [.read, .subscribeRead], types: []),
            D(address: .init(client: 14, port: 0), clientName: "Midi Through", portName: "Midi Through Port-0",
              capabilities: both, types: [.midiGeneric, .software]),
            D(address: .init(client: 20, port: 0), clientName: "Keystation Mini 32", portName: "Keystation Mini 32 MIDI 1",
              capabilities: both, types: hardware),
            D(address: .init(client: 24, port: 0), clientName: "Keystation 49", portName: "Keystation 49 MIDI 1",
              capabilities: both, types: hardware),
            D(address: .init(client: 24, port: 1), clientName: "Keystation 49", portName: "Keystation 49 Out",
              capabilities: [.write, .subscribeWrite], types: hardware),
            D(address: .init(client: 28, port: 0), clientName: "Studio Hub", portName: "Private",
              capabilities: [.read, .subscribeRead, .noExport], types: hardware),
            D(address: .init(client: 128, port: 0), clientName: "VMPK Output", portName: "out",
              capabilities: [.read, .subscribeRead], types: [.midiGeneric, .application]),
            D(address: .init(client: 129, port: 0), clientName: "Busker", portName: "Busker MIDI in",
              capabilities: [.write, .subscribeWrite], types: [.midiGeneric, .application]),
        ]
    }()

    private func resolve(_ text: String) throws -> SequencerPortDescription {
        try SequencerPortSpecifier(parsing: text).resolve(in: desk, ownClient: 129)
    }

    private func resolutionError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> SequencerError? {
        do {
            let found = try resolve(text)
            XCTFail("'\(text)' resolved to \(found)", file: file, line: line)
            return nil
        } catch let error as SequencerError {
            XCTAssertFalse(error.description.contains("\n"), error.description, file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testSpecifierResolution() throws {
        XCTAssertEqual(try resolve("20:0").address, SequencerAddress(client: 20, port: 0))
        XCTAssertEqual(try resolve("Keystation Mini").address, SequencerAddress(client: 20, port: 0))
        XCTAssertEqual(try resolve("keystation mini:0").address, SequencerAddress(client: 20, port: 0), "any case, at last")
        XCTAssertEqual(try resolve("Keystation 49:0").address, SequencerAddress(client: 24, port: 0))
        XCTAssertEqual(try resolve("VMPK").address, SequencerAddress(client: 128, port: 0), "software, when named")

        guard case let .ambiguousClient(_, candidates)? = resolutionError("Keystation") else { return XCTFail() }
        XCTAssertEqual(candidates, ["20 Keystation Mini 32", "24 Keystation 49"])

        XCTAssertEqual(resolutionError("24:1"), .notASource(desk[5]))
        XCTAssertEqual(resolutionError("28:0"), .notASource(desk[6]), "private ports are not sources")

        let missing = resolutionError("Nope:0")
        guard case let .portNotFound(text, available)? = missing else { return XCTFail("\(String(describing: missing))") }
        XCTAssertEqual(text, "Nope:0")
        XCTAssertEqual(available.map(\.address.description), ["14:0", "20:0", "24:0", "128:0"])
        XCTAssertTrue(missing!.description.contains("20:0 Keystation Mini 32 / Keystation Mini 32 MIDI 1"), missing!.description)
        print("error line: \(missing!)")
        XCTAssertEqual(resolutionError("24:7").map { if case .portNotFound = $0 { true } else { false } }, true)
        XCTAssertEqual(resolutionError("Busker").map { if case .portNotFound = $0 { true } else { false } }, true,
                       "Busker's own client is never a source")
        XCTAssertTrue(SequencerError.portNotFound("x", available: []).description.contains("no MIDI sources exist"))

        // An exact name wins over a longer one it starts.
        let twins = [
            SequencerPortDescription(address: .init(client: 40, port: 0), clientName: "Foo Bar", portName: "a",
                                     capabilities: [.read, .subscribeRead], types: [.hardware]),
            SequencerPortDescription(address: .init(client: 41, port: 0), clientName: "Foo", portName: "b",
                                     capabilities: [.read, .subscribeRead], types: [.hardware]),
        ]
        XCTAssertEqual(try SequencerPortSpecifier(parsing: "Foo").resolve(in: twins, ownClient: nil).address.client, 41)
    }

    func testAutoConnectTakesEveryHardwareSourceAndNothingElse() throws {
        let chosen = SequencerPortDescription.autoConnectSelection(from: desk.reversed(), ownClient: 129)
        XCTAssertEqual(chosen.map(\.address.description), ["20:0", "24:0"])
        XCTAssertEqual(try SequencerSourceSelection.automatic.initialSources(among: desk, ownClient: 129), chosen)
        XCTAssertEqual(try SequencerSourceSelection.automatic.initialSources(among: Array(desk.prefix(3)), ownClient: 129), [],
                       "no hardware yet is no error: Busker waits")
        XCTAssertEqual(try SequencerSourceSelection(argument: "24").initialSources(among: desk, ownClient: 129), [desk[4]])

        // Midi Through under another number is still Midi Through.
        var through = desk[2]
        through.address = SequencerAddress(client: 30, port: 0)
        through.types = [.midiGeneric, .hardware]
        XCTAssertFalse(through.isHardwareSource)

        // Following the graph: a keyboard plugged in later (new client number).
        let replugged = SequencerPortDescription(address: .init(client: 32, port: 0), clientName: "Keystation Mini 32",
                                                 portName: "Keystation Mini 32 MIDI 1",
                                                 capabilities: [.read, .subscribeRead], types: [.midiGeneric, .hardware, .port])
        XCTAssertTrue(SequencerSourceSelection.automatic.follows(replugged, ownClient: 129))
        XCTAssertFalse(SequencerSourceSelection.automatic.follows(desk[7], ownClient: 129), "software is not auto-connected")
        XCTAssertFalse(SequencerSourceSelection.automatic.follows(desk[8], ownClient: 129))
        XCTAssertTrue(try SequencerSourceSelection(argument: "Keystation Mini").follows(replugged, ownClient: 129))
        XCTAssertFalse(try SequencerSourceSelection(argument: "Keystation Mini:1").follows(replugged, ownClient: 129))
        XCTAssertFalse(try SequencerSourceSelection(argument: "20:0").follows(replugged, ownClient: 129))
    }

    // MARK: Source slots and routing

    func testSlotPoolLendsAndTakesBack() {
        var slots = SequencerSourceSlots(capacity: 2)
        let a = SequencerAddress(client: 20, port: 0), b = SequencerAddress(client: 20, port: 1), c = SequencerAddress(client: 24, port: 0)
        XCTAssertEqual(slots.assign(a), 0)
        XCTAssertEqual(slots.assign(a), 0, "the same source keeps its slot")
        XCTAssertEqual(slots.assign(b), 1)
        XCTAssertNil(slots.assign(c), "full")
        XCTAssertEqual(slots.free(a), 0)
        XCTAssertNil(slots.free(a))
        XCTAssertEqual(slots.assign(c), 0, "a freed slot is lent again")
        XCTAssertEqual(slots.freeClient(20), [1])
        XCTAssertEqual(slots.assignments.map(\.source), [c])
        XCTAssertEqual(slots.source(inSlot: 0), c)
    }

    /// The audio side of a pool: one scheduler draining every port.
    private final class Engine {
        let ports = SequencerMIDIInput.makePortPool(count: 3)
        let scheduler: MIDIScheduler
        private var sampleTime: Int64 = 0
        init() { scheduler = MIDIScheduler(ports: ports, watchdogSeconds: 0) }

        /// One cycle at `hostTime`: what it delivered.
        func cycle(at hostTime: UInt64) -> [MIDIMessage] {
            scheduler.beginCycle(sampleTime: sampleTime, frameCount: 64, sampleRate: 48000, hostTime: hostTime)
            sampleTime += 64
            return (0..<scheduler.events.count).map { scheduler.events[$0].message }
        }
    }

    func testEachSourcePlaysThroughItsOwnPortAndLeavingReleasesOnlyItsNotes() {
        let engine = Engine()
        let router = SequencerEventRouter(ports: engine.ports, ownAddress: Self.busker)
        var t: UInt64 = 1_000_000_000
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 60, velocity: 100), at: t)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 64, velocity: 90, from: Self.pads), at: t)
        router.route(control(SND_SEQ_EVENT_CONTROLLER, channel: 0, parameter: 64, value: 127), at: t)
        router.route(event(SND_SEQ_EVENT_CLOCK), at: t)
        t += 1_000_000
        XCTAssertEqual(engine.cycle(at: t), [
            .noteOn(channel: 0, note: 60, velocity: 100),
            .controlChange(channel: 0, controller: 64, value: 127),
            .noteOn(channel: 0, note: 64, velocity: 90),
        ])
        XCTAssertEqual(router.slots.slot(of: Self.keyboard), 0)
        XCTAssertEqual(router.slots.slot(of: Self.pads), 1)
        XCTAssertEqual(engine.ports.map(\.deliveredCount), [2, 1, 0])
        XCTAssertEqual(router.counters.messagesForwarded, 3)
        XCTAssertEqual(router.counters.messagesFiltered, 1, "the clock")
        XCTAssertEqual(engine.scheduler.heldCount, 2)

        // Someone else's connection going away is none of Busker's business.
        let elsewhere = SequencerAddress(client: 130, port: 0)
        XCTAssertNil(router.route(subscription(SND_SEQ_EVENT_PORT_UNSUBSCRIBED, sender: Self.keyboard, dest: elsewhere), at: t))
        XCTAssertEqual(engine.cycle(at: t + 1), [])

        // The keyboard is unplugged: its note and its pedal are released, the pads' note is not.
        t += 1_000_000
        XCTAssertEqual(router.route(announcement(SND_SEQ_EVENT_PORT_EXIT, about: Self.keyboard), at: t), .portExited(Self.keyboard))
        XCTAssertEqual(engine.cycle(at: t + 1), [
            .noteOff(channel: 0, note: 60, velocity: 0),
            .controlChange(channel: 0, controller: 64, value: 0),
        ])
        XCTAssertEqual(engine.scheduler.heldCount, 1)
        XCTAssertNil(router.slots.slot(of: Self.keyboard))

        // The pads are disconnected from Busker (aconnect -d): their note is released.
        t += 1_000_000
        XCTAssertEqual(router.route(subscription(SND_SEQ_EVENT_PORT_UNSUBSCRIBED, sender: Self.pads, dest: Self.busker), at: t),
                       .unsubscribed(sender: Self.pads))
        XCTAssertEqual(engine.cycle(at: t + 1), [.noteOff(channel: 0, note: 64, velocity: 0)])
        XCTAssertEqual(engine.scheduler.heldCount, 0)

        // A new source takes a freed port; a whole client leaving releases all its ports.
        let synth = SequencerAddress(client: 40, port: 2)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 3, note: 50, velocity: 70, from: synth), at: t)
        XCTAssertEqual(router.slots.slot(of: synth), 0)
        XCTAssertEqual(engine.cycle(at: t + 1), [.noteOn(channel: 3, note: 50, velocity: 70)])
        XCTAssertEqual(router.route(announcement(SND_SEQ_EVENT_CLIENT_EXIT, about: SequencerAddress(client: 40, port: 0)), at: t + 2),
                       .clientExited(40))
        XCTAssertEqual(engine.cycle(at: t + 3), [.noteOff(channel: 3, note: 50, velocity: 0)])
        XCTAssertEqual(router.counters.releases, 3)
    }

    func testNoticesAndStopReleasesEverySource() {
        let engine = Engine()
        let router = SequencerEventRouter(ports: engine.ports, ownAddress: Self.busker)
        XCTAssertEqual(router.route(announcement(SND_SEQ_EVENT_PORT_START, about: Self.pads), at: 1), .portStarted(Self.pads))
        XCTAssertEqual(router.route(subscription(SND_SEQ_EVENT_PORT_SUBSCRIBED, sender: Self.pads, dest: Self.busker), at: 1),
                       .subscribed(sender: Self.pads))
        XCTAssertNil(router.route(announcement(SND_SEQ_EVENT_CLIENT_START, about: Self.pads), at: 1))
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 9, note: 36, velocity: 127, from: Self.pads), at: 2)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 72, velocity: 64), at: 2)
        XCTAssertEqual(engine.cycle(at: 3).count, 2)
        router.releaseAll(at: 4)
        XCTAssertEqual(Set(engine.cycle(at: 5)), [.noteOff(channel: 9, note: 36, velocity: 0), .noteOff(channel: 0, note: 72, velocity: 0)])
        XCTAssertEqual(router.slots.assignments.count, 0)
        XCTAssertEqual(engine.scheduler.heldCount, 0)
    }

    func testActiveSensingSilenceReleasesThatSourceOnly() {
        let engine = Engine()
        let router = SequencerEventRouter(ports: engine.ports, ownAddress: Self.busker)
        let ms: UInt64 = 1_000_000
        XCTAssertNil(router.nextActiveSensingDeadline)
        router.route(event(SND_SEQ_EVENT_SENSING), at: 1000 * ms)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 60, velocity: 100), at: 1100 * ms)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 1, note: 61, velocity: 100, from: Self.pads), at: 1100 * ms)
        XCTAssertEqual(engine.cycle(at: 1101 * ms).count, 2)
        XCTAssertEqual(router.nextActiveSensingDeadline, 1400 * ms, "300 ms after the keyboard's last event")
        router.checkActiveSensing(at: 1399 * ms)
        XCTAssertEqual(engine.cycle(at: 1399 * ms), [])
        router.checkActiveSensing(at: 1400 * ms)
        XCTAssertEqual(engine.cycle(at: 1401 * ms), [.noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(router.counters.activeSensingTimeouts, 1)
        XCTAssertNil(router.nextActiveSensingDeadline, "unwatched until its next Active Sensing")
        XCTAssertEqual(engine.scheduler.heldCount, 1, "the pads never sent Active Sensing")
        XCTAssertEqual(router.counters.messagesFiltered, 1)
    }

    func testFullPoolDropsAndCountsAndSystemAndSysExAreNotPlayed() {
        let port = MIDIInputPort(name: "only")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        let router = SequencerEventRouter(ports: [port], ownAddress: Self.busker)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 60, velocity: 100), at: 1)
        router.route(note(SND_SEQ_EVENT_NOTEON, channel: 0, note: 62, velocity: 100, from: Self.pads), at: 1)
        XCTAssertEqual(router.counters.droppedWithoutSlot, 1)
        router.route(event(SND_SEQ_EVENT_SYSEX), at: 1)
        XCTAssertEqual(router.counters.sysExEvents, 1)
        router.route(event(SND_SEQ_EVENT_START, from: .systemAnnounce), at: 1)
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: 48000, hostTime: 2)
        XCTAssertEqual(scheduler.events.count, 1)
        XCTAssertEqual(scheduler.events[0].message, .noteOn(channel: 0, note: 60, velocity: 100))
    }

    // MARK: The real sequencer

    func testOpenErrorMapping() {
        XCTAssertEqual(SequencerError.forOpen(code: -ENOENT, message: "x", deviceExists: false), .unavailable(detail: "x"))
        XCTAssertEqual(SequencerError.forOpen(code: -EACCES, message: "", deviceExists: true), .permissionDenied)
        XCTAssertEqual(SequencerError.forOpen(code: -ENOENT, message: "Unknown SEQ default", deviceExists: true),
                       .callFailed(call: "snd_seq_open", code: -ENOENT, detail: "Unknown SEQ default"))
        for error in [SequencerError.unavailable(detail: "x"), .permissionDenied,
                      .callFailed(call: "snd_seq_open", code: -ENOENT, detail: "y")] {
            XCTAssertFalse(error.description.contains("\n"))
        }
    }

    func testWithoutASequencerOpeningIsAOneLineError() throws {
        guard access("/dev/snd/seq", F_OK) != 0 else { throw XCTSkip("this machine has an ALSA sequencer") }
        let ports = SequencerMIDIInput.makePortPool()
        XCTAssertEqual(ports.count, SequencerMIDIInput.defaultPoolSize)
        XCTAssertThrowsError(try SequencerMIDIInput(selection: .automatic, ports: ports)) { error in
            guard case .unavailable? = error as? SequencerError else { return XCTFail("\(error)") }
            let line = "\(error)"
            XCTAssertFalse(line.contains("\n"), line)
            XCTAssertTrue(line.hasPrefix("ALSA sequencer unavailable (/dev/snd/seq missing"), line)
            print("error line: \(line)")
        }
        guard case .failure(.unavailable) = SequencerMIDIInput.listInputs() else {
            return XCTFail("listing: \(SequencerMIDIInput.listInputs())")
        }
        let text = SequencerMIDIInput.listingText(SequencerMIDIInput.listInputs())
        XCTAssertFalse(text.contains("\n"), text)
        XCTAssertTrue(text.contains("ALSA sequencer unavailable"), text)
    }

    func testListingText() {
        let text = SequencerMIDIInput.listingText(.success([desk[3], desk[7]]))
        XCTAssertEqual(text.split(separator: "\n").count, 3)
        XCTAssertTrue(text.contains("  20:0 Keystation Mini 32 / Keystation Mini 32 MIDI 1 (hardware)"), text)
        XCTAssertTrue(text.contains("  128:0 VMPK Output / out\n") || text.hasSuffix("  128:0 VMPK Output / out"), text)
        XCTAssertTrue(SequencerMIDIInput.listingText(.success([])).contains("(none)"))
    }

    /// Only where the kernel has a sequencer (not on the VM these tests were written on).
    func testClientLifeCycleOnARealSequencer() throws {
        guard access("/dev/snd/seq", F_OK) == 0 else { throw XCTSkip("no ALSA sequencer (/dev/snd/seq) here") }
        let engine = Engine()
        let input = try SequencerMIDIInput(selection: .automatic, ports: engine.ports)
        XCTAssertGreaterThanOrEqual(input.address.client, 64, "an application client")
        XCTAssertEqual(input.status.state, .notStarted)
        input.start()
        XCTAssertEqual(input.status.state, .running)
        XCTAssertTrue(ALSATestSupport.threadNames().contains(SequencerMIDIInput.threadName))
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            input.stop()
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success, "stop() did not return")
        XCTAssertEqual(input.status.state, .stopped)
        if case .failure(let error) = SequencerMIDIInput.listInputs() { XCTFail("\(error)") }
    }
}
