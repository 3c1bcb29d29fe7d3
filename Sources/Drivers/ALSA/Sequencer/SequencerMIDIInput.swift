import CALSA
import Engine
import Sequencing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--midi auto` and `--midi CLIENT:PORT`: Busker as an ALSA sequencer client.
///
/// A client named "Busker" with one port, "Busker MIDI in", that others can
/// write to and subscribe to, so it shows in `aconnect -l` and any program
/// can be connected to it. Busker subscribes it to the sources `selection`
/// names and to System:Announce, and follows the sequencer's graph on its
/// own thread (`midi-seq`): under `auto` every hardware MIDI source that
/// appears is connected; a chosen port that comes back is reconnected.
///
/// Each source that plays borrows one `MIDIInputPort` of the pool given at
/// init (`SequencerEventRouter`), so the engine tracks its notes apart from
/// the others': when it exits or is disconnected, exactly its notes are
/// released. The `midi-seq` thread is the only producer of every port in the
/// pool. `stop()` releases them all.
///
/// Life cycle (control thread): `init` opens the sequencer and connects the
/// initial sources, so "no sequencer" and "no such port" are one-line
/// `SequencerError`s before anything starts; `start()` starts the thread;
/// `stop()` wakes and joins it. Read `status` at any time.
///
/// - Realtime: unsafe (opens the sequencer, starts a thread). The `midi-seq`
///   thread blocks in `poll`; only the ports connect it to the audio thread.
public final class SequencerMIDIInput: @unchecked Sendable {
    public static let clientName = "Busker"
    public static let portName = "Busker MIDI in"
    public static let threadName = "midi-seq"
    /// How many sources can play at once with `makePortPool()`.
    public static let defaultPoolSize = 8

    public let selection: SequencerSourceSelection
    /// The pool; give the same ports to the `MIDIScheduler`.
    public let ports: [MIDIInputPort]
    /// Busker's port.
    public let address: SequencerAddress

    // MARK: Shared
    private let published: Mutex<SequencerInputStatus>
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32

    // MARK: Sequencer thread only (the control thread's before start and after join)
    private let client: SequencerClient
    private let router: SequencerEventRouter
    /// The status as the thread keeps it; `published` gets a copy.
    private var threadStatus: SequencerInputStatus

    // MARK: Control thread only
    private var thread: RealtimeThread?
    private var finished = false

    /// Ports for the pool, named "seq 1" … "seq N", to hand both to this
    /// input and to the `MIDIScheduler`.
    /// - Realtime: unsafe (allocates). Control thread.
    public static func makePortPool(count: Int = defaultPoolSize) -> [MIDIInputPort] {
        (1...max(1, count)).map { MIDIInputPort(name: "seq \($0)") }
    }

    /// Opens the sequencer as client "Busker", makes its port and connects
    /// the sources `selection` names. Nothing is read until `start()`.
    /// - Parameter ports: the pool (at least one; `makePortPool()`), also given to the scheduler.
    /// - Throws: `SequencerError`, one line: no sequencer, no such port, a refused subscription.
    /// - Realtime: unsafe. Control thread.
    public init(selection: SequencerSourceSelection, ports: [MIDIInputPort]) throws(SequencerError) {
        precondition(!ports.isEmpty, "the sequencer input needs at least one MIDIInputPort")
        self.selection = selection
        self.ports = ports
        client = try SequencerClient.open(clientName: Self.clientName)
        address = try client.createInputPort(name: Self.portName)
        let announce = client.subscribe(address, to: .systemAnnounce)
        if announce < 0 {
            throw .callFailed(call: "snd_seq_connect_from(System:Announce)", code: announce, detail: "")
        }
        router = SequencerEventRouter(ports: ports, ownAddress: address)
        threadStatus = SequencerInputStatus(address: address, selection: selection.description)
        for source in try selection.initialSources(among: client.allPorts(), ownClient: address.client) {
            let code = client.subscribe(address, to: source.address)
            if code == 0 {
                threadStatus.connectedSources.append(source)
            } else if selection.isExplicit {
                throw .subscribeFailed(source, code: code)
            } else {
                threadStatus.lastProblem = SequencerError.subscribeFailed(source, code: code).description
            }
        }
        threadStatus.sourcesBySlot = Array(repeating: nil, count: ports.count)
        published = Mutex(threadStatus)
        var pipeFDs: [Int32] = [-1, -1]
        if pipe(&pipeFDs) != 0 {
            throw .callFailed(call: "pipe", code: -errno, detail: "")
        }
        wakeReadFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
        for wakeFD in pipeFDs {
            _ = fcntl(wakeFD, F_SETFD, FD_CLOEXEC)
            _ = fcntl(wakeFD, F_SETFL, O_NONBLOCK)
        }
    }

    deinit {
        // A running thread holds `self`: deinit means it never started or was joined.
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    /// Lists the sequencer's MIDI sources (every readable port but the System
    /// client's), for `busker devices`; or why there is no sequencer.
    /// - Realtime: unsafe. Control thread.
    public static func listInputs() -> Result<[SequencerPortDescription], SequencerError> {
        do throws(SequencerError) {
            let client = try SequencerClient.open(clientName: clientName)
            return .success(SequencerPortDescription.sources(in: client.allPorts(), ownClient: client.clientID))
        } catch {
            return .failure(error)
        }
    }

    /// The listing as `busker devices` prints it: a heading and one line per
    /// source, or the one-line reason there are none.
    public static func listingText(_ listing: Result<[SequencerPortDescription], SequencerError>) -> String {
        switch listing {
        case .failure(let error):
            return "MIDI inputs (ALSA sequencer): \(error)"
        case .success(let sources):
            var lines = ["MIDI inputs (ALSA sequencer; --midi auto connects those marked hardware, --midi CLIENT:PORT picks one):"]
            if sources.isEmpty { lines.append("  (none)") }
            lines += sources.map { "  \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    // MARK: Control thread

    /// Starts the `midi-seq` thread. Does nothing when started before or stopped.
    /// - Realtime: unsafe (creates a thread). Control thread.
    public func start() {
        guard thread == nil, !finished else { return }
        threadStatus.state = .running
        let snapshot = threadStatus
        published.withLock { $0 = snapshot }
        thread = RealtimeThread(name: Self.threadName) { [self] in run() }
    }

    /// Ends the thread (waking it from `poll`), joins it, and releases every
    /// source's notes. Safe to call more than once.
    /// - Realtime: unsafe (joins a thread). Control thread.
    public func stop() {
        guard !finished else { return }
        finished = true
        if let thread {
            var byte: UInt8 = 1
            _ = write(wakeWriteFD, &byte, 1)
            thread.join()
            self.thread = nil
        } else {
            // Never started: no producer thread exists, so this one may release.
            router.releaseAll(at: MIDIInputPort.hostTimeNow)
            threadStatus.state = .stopped
            publish()
        }
    }

    // MARK: Any thread

    /// A snapshot of the state, the connected sources and the counters.
    /// - Thread: any
    /// - Realtime: unsafe (locks a mutex)
    public var status: SequencerInputStatus { published.withLock { $0 } }

    // MARK: Sequencer thread

    /// Polls the sequencer and the wake pipe; routes events; follows the graph.
    /// - Thread: midi-in
    /// - Realtime: unsafe (blocks in `poll`, allocates, locks the status mutex)
    private func run() {
        var fds = client.pollDescriptors()
        fds.append(pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0))
        let wakeIndex = fds.count - 1
        while true {
            var timeout: Int32 = -1
            if let deadline = router.nextActiveSensingDeadline {
                let now = MIDIInputPort.hostTimeNow
                timeout = now >= deadline ? 0 : Int32((deadline - now + 999_999) / 1_000_000)
            }
            for index in fds.indices { fds[index].revents = 0 }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            let code = errno
            if ready < 0 && code != EINTR {
                finish(.failed(.callFailed(call: "poll", code: -code, detail: "")))
                return
            }
            if fds[wakeIndex].revents != 0 {
                finish(.stopped)
                return
            }
            if let failure = drainEvents() {
                finish(.failed(failure))
                return
            }
            router.checkActiveSensing(at: MIDIInputPort.hostTimeNow)
            publish()
        }
    }

    /// Routes every event waiting. - Returns: an error that ends the input, or nil.
    /// - Thread: midi-in
    /// - Realtime: unsafe (syscalls, allocates)
    private func drainEvents() -> SequencerError? {
        while true {
            switch client.nextInput() {
            case .empty:
                return nil
            case .overrun:
                // The kernel dropped events, perhaps note-offs: end what is held rather than risk a stuck note.
                threadStatus.inputOverruns += 1
                router.releaseNotesAfterLoss(at: MIDIInputPort.hostTimeNow)
            case .failed(let code):
                if code == -EINTR { continue }
                return .callFailed(call: "snd_seq_event_input", code: code, detail: ALSALibrary.takeLastMessage())
            case .event(let event):
                if let notice = router.route(event, at: MIDIInputPort.hostTimeNow) { follow(notice) }
            }
        }
    }

    /// Keeps the connections up to date as ports come and go.
    /// - Thread: midi-in
    /// - Realtime: unsafe (syscalls, allocates)
    private func follow(_ notice: SequencerEventRouter.Notice) {
        switch notice {
        case .portStarted(let source):
            guard source.client != address.client, let port = client.port(at: source),
                  selection.follows(port, ownClient: address.client) else { return }
            let code = client.subscribe(address, to: source)
            if code != 0 { threadStatus.lastProblem = SequencerError.subscribeFailed(port, code: code).description }
            // Success shows up as a `.subscribed` notice, which records the source.
        case .subscribed(let sender):
            // Busker's own subscription to System:Announce is announced too; it is no source.
            guard !sender.isSystem, !threadStatus.connectedSources.contains(where: { $0.address == sender }) else { return }
            if let port = client.port(at: sender) { threadStatus.connectedSources.append(port) }
        case .portExited(let source), .unsubscribed(let source):
            threadStatus.connectedSources.removeAll { $0.address == source }
        case .clientExited(let gone):
            threadStatus.connectedSources.removeAll { $0.address.client == gone }
        }
    }

    /// Releases every source's notes and publishes the final state.
    /// - Thread: midi-in
    /// - Realtime: unsafe (allocates, locks the status mutex)
    private func finish(_ state: SequencerInputStatus.State) {
        router.releaseAll(at: MIDIInputPort.hostTimeNow)
        threadStatus.state = state
        publish()
    }

    /// Copies the thread's status, with the router's counters and slots, to `status`.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates, locks the status mutex)
    private func publish() {
        threadStatus.counters = router.counters
        for slot in threadStatus.sourcesBySlot.indices { threadStatus.sourcesBySlot[slot] = router.slots.source(inSlot: slot) }
        let snapshot = threadStatus
        published.withLock { $0 = snapshot }
    }
}
