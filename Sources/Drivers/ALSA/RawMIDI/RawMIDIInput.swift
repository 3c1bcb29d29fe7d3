import Engine
import MIDI
import Sequencing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--midi-in PATH`: reads a MIDI 1.0 byte stream from a raw MIDI device
/// (`/dev/snd/midiC1D0`), a FIFO or a regular file on its own thread
/// (`midi-in`), parses it with `MIDIByteParser`, and sends the messages into
/// one `MIDIInputPort`, stamped with the monotonic clock as they are read.
///
/// Life cycle (control thread): `init` opens the path, so a missing path, a
/// directory or a permission problem is a one-line `RawMIDIError` before
/// anything starts; `start()` starts the reader; `stop()` wakes and joins it.
/// Read `status` at any time. Call `stop()` before dropping the input.
///
/// How each kind of path ends:
/// - **regular file**: read at once (a quick way to send a handful of
///   messages; timed playback is `MIDIFilePlayer`'s job); at its end the notes
///   it left on are released and the state becomes `ended`.
/// - **FIFO**: opened non-blocking, so opening does not wait for a writer.
///   When a writer closes, its notes are released and the reader waits for
///   the next writer (without spinning: see `reopenFIFO()`).
/// - **device**: a terminal device is put in raw mode (`makeRawIfTerminal`).
///   A read error (`EIO`, `ENODEV`: unplugged) or end of data (a
///   hung-up terminal device) releases the notes and ends the reader with
///   `disconnected`.
///
/// Active Sensing (MIDI 1.0): once the sender has sent one 0xFE, more than
/// 300 ms without any byte means the connection is lost, and the notes are
/// released. The reader thread is the port's only producer: every `send` and
/// `releaseAllNotes` happens there (or, before `start()`, in `stop()`).
///
/// - Realtime: unsafe (opens files, starts a thread). The reader thread is not
///   the audio thread; it blocks in `poll`. Only the port connects it to the
///   audio thread, and that never blocks.
public final class RawMIDIInput: @unchecked Sendable {
    /// What the path is.
    public enum Kind: String, Sendable {
        /// A character device: a raw MIDI port, a serial line, a pseudo-terminal.
        case device
        case fifo
        case file
    }

    /// The name of the reader thread (`ps -L`, `top -H`).
    public static let threadName = "midi-in"
    /// MIDI 1.0: after an Active Sensing message, silence longer than this means the connection is lost.
    public static let activeSensingTimeoutNanoseconds: UInt64 = 300_000_000

    public let path: String
    public let kind: Kind
    /// The lane into the engine. This input is its only producer.
    public let port: MIDIInputPort

    // MARK: Shared
    private let published = Mutex(RawMIDIInputStatus())
    /// The stop signal: `stop()` writes a byte; the reader polls the read end.
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32

    // MARK: Reader thread only (the control thread's until `start()`)
    private var fd: Int32

    // MARK: Control thread only
    private var thread: RealtimeThread?
    private var finished = false

    /// Opens `path` for reading. Nothing is read until `start()`.
    /// - Throws: `RawMIDIError`, one line naming the path and what to try.
    /// - Realtime: unsafe (opens files). Control thread.
    public init(path: String, port: MIDIInputPort) throws(RawMIDIError) {
        self.path = path
        self.port = port
        var info = stat()
        if stat(path, &info) != 0 { throw RawMIDIError.openFailed(path: path, code: errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .device
        case S_IFDIR: throw .isDirectory(path: path)
        case S_IFSOCK: throw .unsupportedFileType(path: path, kind: "socket")
        case S_IFBLK: throw .unsupportedFileType(path: path, kind: "block device")
        default: throw .unsupportedFileType(path: path, kind: "special file")
        }
        fd = try Self.openForReading(path)
        if kind == .device { Self.makeRawIfTerminal(fd) }
        var pipeFDs: [Int32] = [-1, -1]
        if pipe(&pipeFDs) != 0 {
            let code = errno
            close(fd)
            throw .systemCallFailed(path: path, call: "pipe2", code: code)
        }
        wakeReadFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
        // Non-blocking, so that a second stop() can never block on a full pipe.
        for wakeFD in pipeFDs {
            _ = fcntl(wakeFD, F_SETFD, FD_CLOEXEC)
            _ = fcntl(wakeFD, F_SETFL, O_NONBLOCK)
        }
    }

    deinit {
        // A running reader holds `self`, so deinit means it never started or has been joined.
        if fd >= 0 { close(fd) }
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    /// Non-blocking, so that a FIFO without a writer and a busy device answer
    /// at once; `O_NOCTTY`, so that a terminal device never becomes ours.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (opens a file)
    private static func openForReading(_ path: String) throws(RawMIDIError) -> Int32 {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd < 0 { throw RawMIDIError.openFailed(path: path, code: errno) }
        return fd
    }

    /// A terminal device (a serial MIDI interface, `/dev/ttyUSB0`) starts in
    /// line mode, which holds bytes back until a newline and rewrites some of
    /// them (CR to LF). MIDI needs every byte as sent, at once: raw mode. The
    /// line speed is left as it was set (`stty`).
    private static func makeRawIfTerminal(_ fd: Int32) {
        guard isatty(fd) == 1 else { return }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { return }
        cfmakeraw(&settings)
        _ = tcsetattr(fd, TCSANOW, &settings)
    }

    // MARK: Control thread

    /// Starts the reader thread. Does nothing when started before or stopped.
    /// - Realtime: unsafe (creates a thread). Control thread.
    public func start() {
        guard thread == nil, !finished else { return }
        published.withLock { $0.state = .waiting }
        thread = RealtimeThread(name: Self.threadName) { [self] in run() }
    }

    /// Ends the reader (waking it from `poll`), joins it, and releases the
    /// notes this input holds. Returns promptly however the reader was blocked.
    /// Safe to call more than once.
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
            port.releaseAllNotes(at: .hostNanoseconds(MIDIInputPort.hostTimeNow))
            published.withLock { $0.state = .stopped }
        }
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }

    // MARK: Any thread

    /// A snapshot of the state and the counters.
    /// - Thread: any
    /// - Realtime: unsafe (locks a mutex)
    public var status: RawMIDIInputStatus { published.withLock { $0 } }

    /// Whether a message from a live input goes to the engine.
    ///
    /// Forwarded: channel voice and mode messages, System Reset, Start,
    /// Continue, Stop, Song Position, Song Select and Tune Request. Not
    /// forwarded: Timing Clock and MIDI Time Code quarter frames (Busker does
    /// not follow an external clock, and at 24 clocks per quarter note they
    /// would be most of the queue), Active Sensing (consumed by the input to
    /// watch the connection) and SysEx markers (the payload cannot travel in a
    /// `MIDIMessage`, and no instrument reads SysEx).
    /// - Thread: midi-in
    /// - Realtime: safe
    public static func forwardsToEngine(_ message: MIDIMessage) -> Bool {
        switch message {
        case .timingClock, .timeCodeQuarterFrame, .activeSensing, .systemExclusive: false
        default: true
        }
    }

    // MARK: Reader thread

    /// What the reader thread keeps between reads.
    private struct ReaderState {
        var parser = MIDIByteParser()
        var counters: RawMIDIInputStatus
        /// Active Sensing: set once the sender sent 0xFE; the time of its last byte.
        var sensing = false
        var lastByteTime: UInt64 = 0
        /// FIFO sessions in a row that ended without a byte (see `reopenFIFO`).
        var emptySessions = 0
        var sessionBytes = 0

        /// How long `poll` may wait, in milliseconds: until Active Sensing's deadline, or for ever (-1).
        /// Rounded up, so the wake-up is never early and the loop never spins.
        func pollTimeout() -> Int32 {
            guard sensing else { return -1 }
            let deadline = lastByteTime + RawMIDIInput.activeSensingTimeoutNanoseconds
            let now = MIDIInputPort.hostTimeNow
            return now >= deadline ? 0 : Int32((deadline - now + 999_999) / 1_000_000)
        }
    }

    /// What the reader does after one wake-up.
    private enum ReaderStep {
        case readOn
        /// Publish this state and end the thread.
        case end(RawMIDIInputStatus.State)
    }

    /// The size of the read buffer, in bytes.
    private static let readCapacity = 512

    /// The reader's loop: poll the input and the wake pipe, read, parse, send.
    /// - Thread: midi-in
    /// - Realtime: unsafe (blocks in `poll`, allocates, locks the status mutex)
    private func run() {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.readCapacity)
        defer { buffer.deallocate() }
        var reader = ReaderState(counters: published.withLock { $0 })
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].fd = fd
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, reader.pollTimeout())
            let step: ReaderStep
            if ready < 0 {
                step = pollFailed()
            } else if fds[1].revents != 0 {
                releaseNotes()
                step = .end(.stopped)
            } else if ready == 0 {
                checkActiveSensing(&reader)
                step = .readOn
            } else {
                step = readInput(into: buffer, &reader, inputEvents: fds[0].revents)
            }
            if case .end(let state) = step {
                publish(state, &reader)
                return
            }
        }
    }

    /// Copies the reader's counters and the parser's statistics (and `state`, if any) into `status`.
    /// - Thread: midi-in
    /// - Realtime: unsafe (locks the status mutex)
    private func publish(_ state: RawMIDIInputStatus.State? = nil, _ reader: inout ReaderState) {
        if let state { reader.counters.state = state }
        reader.counters.parser = reader.parser.statistics
        let snapshot = reader.counters
        published.withLock { $0 = snapshot }
    }

    /// Releases every note this input holds, now.
    /// - Thread: midi-in (or the control thread before `start()`)
    /// - Realtime: safe (the port never blocks)
    private func releaseNotes() {
        port.releaseAllNotes(at: .hostNanoseconds(MIDIInputPort.hostTimeNow))
    }

    /// `poll` failed: an interruption reads on, anything else ends the reader.
    /// - Thread: midi-in
    /// - Realtime: safe (reads errno; the port never blocks)
    private func pollFailed() -> ReaderStep {
        let code = errno
        if code == EINTR { return .readOn }
        releaseNotes()
        return .end(.disconnected(.systemCallFailed(path: path, call: "poll", code: code)))
    }

    /// `poll` timed out: past Active Sensing's deadline the connection is lost,
    /// so its notes end and any half message is forgotten.
    /// - Thread: midi-in
    /// - Realtime: unsafe (locks the status mutex)
    private func checkActiveSensing(_ reader: inout ReaderState) {
        guard reader.sensing && MIDIInputPort.hostTimeNow >= reader.lastByteTime + Self.activeSensingTimeoutNanoseconds else { return }
        releaseNotes()
        reader.sensing = false
        reader.parser.reset()
        reader.counters.activeSensingTimeouts += 1
        publish(.sensingTimedOut, &reader)
    }

    /// Reads what the input has and sends the messages in it to the port.
    /// - Thread: midi-in
    /// - Realtime: unsafe (reads a file, locks the status mutex)
    private func readInput(into buffer: UnsafeMutablePointer<UInt8>, _ reader: inout ReaderState, inputEvents: Int16) -> ReaderStep {
        let count = read(fd, buffer, Self.readCapacity)
        if count > 0 {
            receive(UnsafeBufferPointer(start: buffer, count: count), &reader)
            publish(.receiving, &reader)
            return .readOn
        }
        if count == 0 { return endOfData(&reader) }
        let code = errno
        if code == EINTR { return .readOn }
        if code == EAGAIN && inputEvents & Int16(POLLERR | POLLNVAL) == 0 { return .readOn }
        releaseNotes()
        return .end(.disconnected(.lost(path: path, code: code == EAGAIN ? EIO : code)))
    }

    /// Parses `bytes`, read just now, and sends the messages that go to the engine.
    /// - Thread: midi-in
    /// - Realtime: safe (the port never blocks)
    private func receive(_ bytes: UnsafeBufferPointer<UInt8>, _ reader: inout ReaderState) {
        let now = MIDIInputPort.hostTimeNow
        reader.lastByteTime = now
        reader.sessionBytes += bytes.count
        reader.counters.bytesRead += bytes.count
        var parser = reader.parser
        for byte in bytes {
            parser.parse(byte) { output in
                guard case .message(let message) = output else { return }
                switch message {
                case .activeSensing:
                    if kind != .file { reader.sensing = true }
                    reader.counters.messagesFiltered += 1
                case .systemExclusive:
                    reader.counters.sysExMessages += 1
                default:
                    if Self.forwardsToEngine(message) {
                        port.send(message, at: .hostNanoseconds(now))
                        reader.counters.messagesForwarded += 1
                    } else {
                        reader.counters.messagesFiltered += 1
                    }
                }
            }
        }
        reader.parser = parser
    }

    /// End of data: a regular file is done; a device that hung up is gone
    /// (a disconnected tty reads as end of data); a FIFO's writer closed, and
    /// the reader waits for the next one.
    /// - Thread: midi-in
    /// - Realtime: unsafe (opens a file, blocks, locks the status mutex)
    private func endOfData(_ reader: inout ReaderState) -> ReaderStep {
        releaseNotes()
        switch kind {
        case .file: return .end(.ended)
        case .device: return .end(.disconnected(.lost(path: path, code: 0)))
        case .fifo: break
        }
        reader.counters.writersClosed += 1
        reader.parser.reset()
        reader.sensing = false
        reader.emptySessions = reader.sessionBytes == 0 ? reader.emptySessions + 1 : 0
        reader.sessionBytes = 0
        if reader.emptySessions > 1, waitForStop(milliseconds: 100) { return .end(.stopped) }
        if let error = reopenFIFO() { return .end(.disconnected(error)) }
        publish(.waiting, &reader)
        return .readOn
    }

    /// Replaces the FIFO's descriptor with a fresh one after its writer closed.
    ///
    /// A FIFO descriptor that has seen a writer go reports `POLLHUP` for ever
    /// after; a descriptor opened while no writer is connected blocks in
    /// `poll` until one connects. The new descriptor is opened before the old
    /// one is closed, so the pipe (and anything a quick next writer already
    /// wrote into it) never goes away in between.
    /// - Returns: nil, or why the FIFO could not be opened again.
    /// - Thread: midi-in
    /// - Realtime: unsafe (opens and closes a file)
    private func reopenFIFO() -> RawMIDIError? {
        let fresh: Int32
        do throws(RawMIDIError) {
            fresh = try Self.openForReading(path)
        } catch {
            return error
        }
        close(fd)
        fd = fresh
        return nil
    }

    /// Waits up to `milliseconds` for the stop signal: a pause that `stop()` cuts short.
    /// - Returns: true when stop was requested.
    /// - Thread: midi-in
    /// - Realtime: unsafe (blocks)
    private func waitForStop(milliseconds: Int32) -> Bool {
        var wake = pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)
        return poll(&wake, 1, milliseconds) > 0
    }
}
