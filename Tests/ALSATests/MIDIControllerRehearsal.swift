import Chains
import Control
import Engine
import Foundation
import Sessions
import Synchronization
import XCTest

/// A MIDI controller played into `busker live`'s MIDI control, for the
/// allocation tests: a writer thread streams raw MIDI into a FIFO (footswitch
/// presses, volume, reverb and pan faders, a pad), about 1500 messages a
/// second; `LiveMIDIControl` reads it on its `midi-in` thread; `pump` is the
/// control thread's part, as `LiveSession`'s loop does it: drain, apply the
/// settings and the mic switch to the chain, collect retired plans.
final class MIDIControllerRehearsal {
    let control: LiveMIDIControl
    private(set) var micToggles = 0
    private(set) var settingsChanges = 0
    private let folder: URL
    /// Whether the writer goes on; a class, so that its thread holds it and not the rehearsal.
    private final class Switch: Sendable { let on = Atomic<Bool>(true) }
    private let writing = Switch()
    private let writerDone = DispatchSemaphore(value: 0)
    private var stopped = false

    /// Binds CC 10 to strip 2's pan and note 36 to its mute beside the defaults
    /// (CC 64 the mic, CC 7 the volume, CC 91 strip 1's reverb send), and starts playing.
    /// - Thread: control
    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-midictl-\(getpid())-\(UUID().uuidString)")
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fifo = folder.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        var map = MIDIControlMap.defaults
        map.bind(.cc(10), to: .pan(strip: 2))
        map.bind(.note(36), to: .mute(strip: 2))
        do {
            control = try LiveMIDIControl(midi: "none", midiIn: fifo, map: map)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        control.start()
        // Plain write(2), and SIGPIPE ignored: the reader may close first.
        signal(SIGPIPE, SIG_IGN)
        let writing = writing, done = writerDone
        let writer = Thread {
            defer { done.signal() }
            // Open without blocking until the reader has the FIFO open (ENXIO before), so that a
            // reader that never comes leaves the writer stoppable; then writes block as usual.
            var fd: Int32 = -1
            while fd < 0 && writing.on.load(ordering: .relaxed) {
                fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd < 0 { usleep(2000) }
            }
            guard fd >= 0 else { return }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var i = 0
            while writing.on.load(ordering: .relaxed) {
                let sweep = UInt8(abs(i % 254 - 127))
                var bytes: [UInt8] = [0xB0, 7, sweep, 0xB0, 91, sweep, 0xB0, 10, 127 - sweep]
                if i % 20 == 0 { bytes += [0xB0, 64, 127] }
                if i % 20 == 10 { bytes += [0xB0, 64, 0] }
                if i % 30 == 0 { bytes += [0x99, 36, 100, 0x89, 36, 0] }
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                i += 1
                usleep(2000)
            }
        }
        writer.start()
    }

    deinit { stop() }

    /// Messages the control's ports have delivered so far.
    var delivered: Int { control.inputs.ports.map(\.deliveredCount).reduce(0, +) }

    /// One round of the control thread: what MIDI changed goes to `chain`.
    /// - Thread: control
    func pump(settings: inout LiveSettings, chain: LiveChain, engine: RenderEngine) {
        let changes = control.poll(settings: &settings, micOn: chain.micOn)
        if changes.toggleMic {
            chain.micOn.toggle()
            micToggles += 1
        }
        if changes.settingsChanged {
            chain.apply(settings)
            settingsChanges += 1
        }
        _ = control.takeActionLines()
        engine.collectRetiredPlans()
    }

    /// Starts counting toggles and changes afresh.
    func resetCounts() {
        micToggles = 0
        settingsChanges = 0
    }

    /// Stops the writer, then the reader, and removes the FIFO.
    /// - Thread: control
    func stop() {
        guard !stopped else { return }
        stopped = true
        writing.on.store(false, ordering: .relaxed)
        writerDone.wait()
        control.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
