import AudioFiles
import CSndFile
import Engine
import Foundation
import Loudness
import Synchronization

/// One take: opens the file, arms a `RecordingTap`, and runs a writer thread
/// (`rec-writer`) that drains the tap's ring through libsndfile until `stop()`.
///
/// The file is playable at every moment: the header is brought up to date
/// every `headerUpdateSeconds` (SFC_UPDATE_HEADER_NOW) and the data flushed to
/// the disk every `syncSeconds` (fdatasync), so a crash or a power cut loses at
/// most the last second. WAV takes are RF64 with auto-downgrade.
///
/// A write error (disk full, file too large) stops the take, not the audio:
/// the tap is disarmed, the status says why, and the file is cut back to its
/// last whole frame with a correct header. Frames the writer could not keep up
/// with are counted, filled with silence and logged (`TakeLog`).
///
/// The writer also measures what it writes (EBU R 128 through libebur128:
/// integrated loudness, loudness range, true peak), so the take's report
/// gives the loudness of exactly the file's frames; the audio thread does
/// nothing more for it.
///
/// Call `stop()`: the writer thread holds the recorder until then, so
/// dropping the last reference neither stops nor frees a take in progress.
public final class Recorder: @unchecked Sendable {
    public struct Options: Sendable {
        /// How often the header is rewritten (at least once a second, as promised).
        public var headerUpdateSeconds = 0.25
        /// How often written data is flushed to the disk.
        public var syncSeconds = 1.0
        public var chunkFrames = 4096
        /// How long the writer sleeps when the ring is empty.
        public var pollMilliseconds = 10
        /// Where to write the take's MIDI events as a Standard MIDI File (needs a tap with MIDI).
        public var midiPath: String?
        /// Frames added to MIDI event positions: the chain's latency after the instruments.
        public var midiLatencyFrames = 0
        /// Record exactly this many frames, then stop taking frames (`--duration`, an input file's length).
        public var frameLimit: Int?
        /// Leave the tap's switch alone: another recorder on the same switch starts the take.
        public var startsTake = true
        /// The libsndfile and POSIX calls the writer thread makes on the file;
        /// replace entries to make the disk slow or fail.
        public var calls: SoundFileCalls = .live
        /// Measure the take's loudness on the writer thread (`TakeReport.loudness`).
        public var measuresLoudness = true
        public init() {}
    }

    public let path: String
    public let format: RecordingFormat
    public let sampleRate: Int
    public let channelCount: Int
    public let tap: RecordingTap
    private let options: Options

    // MARK: Shared between the control thread and the writer
    private let framesWritten = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)
    private let finishRequested = Atomic<Bool>(false)
    private let error = Mutex<RecordingError?>(nil)
    private let pendingXruns = Mutex<[Int]>([])
    /// Silenced blocks to log: where, how many, whose output.
    private let pendingSilenced = Mutex<[(frame: Int, blocks: Int, from: String)]>([])
    private let xrunTotal = Atomic<Int>(0)

    // MARK: Control thread only
    private var writer: RealtimeThread?
    private var lastDriverXruns: Int?
    /// The engine's silenced-block count at the last call, and what rose since the last log line.
    private var lastSilencedBlocks: Int?
    private var silencedNotLogged = 0
    private var lastSilencedLogFrame: Int?
    private var finalReport: TakeReport?
    /// Writer thread results, read after join.
    private var gapsSeen: [DroppedSpan] = []
    private var xrunsSeen: [Int] = []
    private var midiCount = 0
    private var logPath: String?
    private var loudness: LoudnessReport?

    private init(path: String, format: RecordingFormat, sampleRate: Int, channelCount: Int, tap: RecordingTap, options: Options) {
        self.path = path
        self.format = format
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.tap = tap
        self.options = options
    }

    /// Opens `path` and starts recording what `tap` renders from its next block.
    /// - Parameters:
    ///   - force: overwrite an existing file; without it an existing file is an error.
    /// - Throws: `RecordingError` before anything is armed: the audio is untouched.
    /// - Realtime: unsafe (opens a file, starts a thread). Control thread.
    public static func start(tap: RecordingTap, path: String, format: RecordingFormat, sampleRate: Int,
                             force: Bool = false, options: Options = Options()) throws(RecordingError) -> Recorder {
        // A file-size limit (ulimit -f) must be a write error we report, not a signal that kills the audio.
        signal(SIGXFSZ, SIG_IGN)
        // The MIDI file follows the take's rule (new, or force), checked first so
        // a refusal touches nothing. Without force, creating it claims the name.
        var createdMIDI = false
        if let midiPath = options.midiPath {
            let existed = access(midiPath, F_OK) == 0
            let midiFD = open(midiPath, O_WRONLY | O_CREAT | (force ? 0 : O_EXCL), 0o644)
            guard midiFD >= 0 else {
                if errno == EEXIST { throw .exists(path: midiPath) }
                throw .cannotCreate(path: midiPath, reason: String(cString: strerror(errno)).lowercased())
            }
            close(midiFD)
            createdMIDI = !existed
        }
        func unclaimMIDI() { if createdMIDI, let midiPath = options.midiPath { unlink(midiPath) } }
        let fd = open(path, O_RDWR | O_CREAT | (force ? O_TRUNC : O_EXCL), 0o644)
        guard fd >= 0 else {
            let code = errno
            unclaimMIDI()
            if code == EEXIST { throw .exists(path: path) }
            throw .cannotCreate(path: path, reason: String(cString: strerror(code)).lowercased())
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(tap.channelCount)
        info.format = format.sndfileFormat
        guard sf_format_check(&info) != 0 else {
            close(fd)
            unlink(path)
            unclaimMIDI()
            throw .unsupported(path: path, reason: "\(format.rawValue) cannot hold \(tap.channelCount) channels at \(sampleRate) Hz")
        }
        guard let handle = sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) else {
            let reason = SoundFileErrorText.clean(String(cString: sf_strerror(nil)))
            close(fd)
            unlink(path)
            unclaimMIDI()
            throw .cannotCreate(path: path, reason: reason)
        }
        if format.isWAV { _ = sf_command(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) }
        if format != .wavFloat { _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE)) }
        // The header is on disk before the first frame: a take killed at once is still a WAV.
        if format.isWAV { _ = sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
        // A log left by an earlier take of this name (--force) is not this take's:
        // its losses must not appear under this take's summary. This take's log
        // is there from its start, so a kill leaves one beside the take.
        unlink(TakeLog.path(forTake: path))
        let log = TakeLog(takePath: path, sampleRate: sampleRate, channelCount: tap.channelCount)
        log.begin()
        // The MIDI file is a valid (empty) SMF from the start, as the WAV is.
        if let midiPath = options.midiPath {
            try? MIDITakeFile.write(events: [], sampleRate: sampleRate, to: midiPath)
        }

        let recorder = Recorder(path: path, format: format, sampleRate: sampleRate, channelCount: tap.channelCount,
                                tap: tap, options: options)
        // Leftovers of an earlier take (there should be none) are not this take's.
        recorder.discardStaleFrames()
        let file = OpenFile(handle: handle, fd: fd)
        if options.startsTake {
            tap.arm(midiLatencyFrames: options.midiLatencyFrames, frameLimit: options.frameLimit ?? 0)
        } else {
            tap.prepareTake(midiLatencyFrames: options.midiLatencyFrames, frameLimit: options.frameLimit ?? 0)
        }
        recorder.writer = RealtimeThread(name: "rec-writer") { recorder.writeLoop(file, log: log) }
        return recorder
    }

    /// The libsndfile handle and its descriptor, handed to the writer thread.
    private final class OpenFile: @unchecked Sendable {
        let handle: OpaquePointer
        let fd: Int32
        init(handle: OpaquePointer, fd: Int32) { self.handle = handle; self.fd = fd }
    }

    private func discardStaleFrames() {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
        defer { scratch.deallocate() }
        while tap.ring.read(into: scratch, count: 4096) > 0 {}
        while tap.gaps.pop() != nil {}
        while tap.midiQueue?.pop() != nil {}
    }

    // MARK: Control thread

    /// The take as it stands, for the screen.
    public var status: RecordingStatus {
        if let r = finalReport {
            return RecordingStatus(state: r.error == nil ? .stopped : .failed, path: path, sampleRate: sampleRate,
                                   framesRecorded: r.framesRecorded, framesWritten: r.frames, droppedFrames: r.droppedFrames,
                                   xruns: r.xrunFrames.count, error: r.error?.description)
        }
        let isFailed = failed.load(ordering: .acquiring)
        return RecordingStatus(state: isFailed ? .failed : .recording, path: path, sampleRate: sampleRate,
                               framesRecorded: isFailed ? framesWritten.load(ordering: .relaxed) : tap.framesSeen,
                               framesWritten: framesWritten.load(ordering: .relaxed),
                               droppedFrames: tap.droppedFrames, xruns: xrunTotal.load(ordering: .relaxed),
                               error: isFailed ? error.withLock { $0?.description } : nil)
    }

    /// Whether the take has the frames `Options.frameLimit` asked for.
    public var isComplete: Bool { tap.hasReachedLimit }

    /// Whether a write error stopped the take.
    public var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Logs an xrun at take frame `frame` (default: where the take is now).
    public func noteXrun(at frame: Int? = nil) {
        let at = frame ?? tap.framesSeen
        pendingXruns.withLock { $0.append(at) }
        xrunTotal.add(1, ordering: .relaxed)
    }

    /// Follows a driver's xrun counter: every increase since the last call is
    /// logged at the take's current position. Call it from the control loop.
    public func followXruns(total: Int) {
        if let last = lastDriverXruns, total > last {
            for _ in last..<total { noteXrun() }
        }
        lastDriverXruns = total
    }

    /// Follows the engine's count of blocks silenced for a fault
    /// (`RenderEngine.silencedBlockCount`): a rise is logged at the take's
    /// current position, one line per second of take at most (a storm is
    /// summed into the next line).
    /// - Parameter from: the nodes whose output held the faults, for the line.
    /// - Thread: control
    /// - Realtime: unsafe (takes a lock the writer shares)
    public func followSilencedBlocks(total: Int, from: String) {
        defer { lastSilencedBlocks = total }
        guard let last = lastSilencedBlocks else { return }
        silencedNotLogged += max(0, total - last)
        guard silencedNotLogged > 0 else { return }
        let at = tap.framesSeen
        if let logged = lastSilencedLogFrame, at - logged < sampleRate { return }
        let blocks = silencedNotLogged
        pendingSilenced.withLock { $0.append((at, blocks, from)) }
        silencedNotLogged = 0
        lastSilencedLogFrame = at
    }

    /// Ends the take: disarms the tap, waits for the audio thread to let go
    /// (not at all when `audioHasStopped`, at most half a second otherwise),
    /// drains the rest, finalizes the file and the MIDI file.
    /// - Realtime: unsafe (joins a thread). Control thread.
    @discardableResult
    public func stop(audioHasStopped: Bool = false) -> TakeReport {
        if let finalReport { return finalReport }
        tap.disarm()
        if !audioHasStopped {
            let deadline = Date().addingTimeInterval(0.5)
            while tap.isRecordingOnAudioThread && Date() < deadline { usleep(1000) }
        }
        finishRequested.store(true, ordering: .releasing)
        writer?.join()
        writer = nil
        var report = TakeReport(path: path, sampleRate: sampleRate, channelCount: channelCount,
                                frames: framesWritten.load(ordering: .acquiring),
                                framesRecorded: tap.framesSeen, droppedFrames: tap.droppedFrames, gaps: gapsSeen,
                                xrunFrames: xrunsSeen, error: error.withLock { $0 }, logPath: logPath,
                                midiPath: options.midiPath, midiEvents: midiCount, droppedMIDIEvents: tap.droppedMIDIEvents,
                                loudness: loudness)
        report.isCrashSafe = format != .flac && format != .ogg
        finalReport = report
        return report
    }

    // MARK: Writer thread

    /// What the writer thread has written and seen of the take, and its buffers.
    private struct WriterState {
        let file: OpenFile
        let log: TakeLog
        let chunkFrames: Int
        /// One chunk of frames read from the ring.
        let chunk: UnsafeMutablePointer<Float>
        /// One chunk of silence, written in place of dropped frames.
        let zeros: UnsafeMutablePointer<Float>
        /// Everything that goes into the file (silence for gaps too) is measured as it goes in.
        let meter: LoudnessMeter?
        var fileFrames = 0
        var gaps: [DroppedSpan] = []
        var xruns: [Int] = []
        var midi: [RecordedMIDIEvent] = []
        var midiWritten = 0
        var lastHeader: Double
        var lastSync: Double
        var lastMIDI: Double
        var failure: RecordingError?

        init(file: OpenFile, log: TakeLog, chunkFrames: Int, channelCount: Int, meter: LoudnessMeter?, now: Double) {
            self.file = file
            self.log = log
            self.chunkFrames = chunkFrames
            self.meter = meter
            chunk = .allocate(capacity: chunkFrames * channelCount)
            zeros = .allocate(capacity: chunkFrames * channelCount)
            zeros.initialize(repeating: 0, count: chunkFrames * channelCount)
            lastHeader = now
            lastSync = now
            lastMIDI = now
        }

        func deallocate() {
            chunk.deallocate()
            zeros.deallocate()
        }
    }

    /// The body of the `rec-writer` thread: drains the tap into the file
    /// through `options.calls` until `stop()`, then finalizes the file.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O, allocates, sleeps).
    private func writeLoop(_ file: OpenFile, log: TakeLog) {
        let meter = options.measuresLoudness ? try? LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate) : nil
        var state = WriterState(file: file, log: log, chunkFrames: options.chunkFrames, channelCount: channelCount,
                                meter: meter, now: Self.now())
        defer { state.deallocate() }
        while true {
            let finishing = finishRequested.load(ordering: .acquiring)
            let moved = drainOnce(&state)
            collectEvents(&state)
            keepFilesCurrent(&state, at: Self.now())
            if moved { continue }
            // The audio thread has let go (or stopped) and everything it wrote is out.
            if finishing { break }
            usleep(UInt32(options.pollMilliseconds * 1000))
        }
        // A gap still open at the end: its frames were counted, put silence in their place.
        if state.failure == nil, let gap = tap.openGap { putGap(gap, &state) }
        while let event = tap.midiQueue?.pop() { state.midi.append(event) }
        if tap.droppedMIDIEvents > 0 { log.droppedMIDI(tap.droppedMIDIEvents) }
        closeFile(&state)
        if let midiPath = options.midiPath {
            try? MIDITakeFile.write(events: state.midi, sampleRate: sampleRate, to: midiPath)
        }
        publishResults(state)
    }

    /// Writes `n` frames from `p`; false (and the failure recorded) when the write failed.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    private func put(_ p: UnsafePointer<Float>, _ n: Int, _ state: inout WriterState) -> Bool {
        let calls = options.calls
        let done = Int(calls.writeFrames(state.file.handle, p, sf_count_t(n)))
        state.meter?.add(p, frames: max(0, done))
        state.fileFrames += done
        framesWritten.store(state.fileFrames, ordering: .releasing)
        if done < n {
            let reason = SoundFileErrorText.clean(String(cString: calls.errorText(state.file.handle)))
            fail(.writeFailed(path: path, reason: reason), &state)
            return false
        }
        return true
    }

    /// Records the take's first failure and stops the take, not the audio:
    /// the tap stops copying at its next block.
    /// - Thread: writer.
    /// - Realtime: unsafe (locks, file I/O).
    private func fail(_ e: RecordingError, _ state: inout WriterState) {
        guard state.failure == nil else { return }
        state.failure = e
        error.withLock { $0 = e }
        failed.store(true, ordering: .releasing)
        tap.disarm()
        state.log.writeError(e, at: state.fileFrames)
    }

    /// Writes silence in place of the frames of `gap` and logs it.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    private func putGap(_ gap: DroppedSpan, _ state: inout WriterState) {
        state.gaps.append(gap)
        state.log.droppedFrames(gap)
        var left = gap.count
        while left > 0 {
            let n = min(left, state.chunkFrames)
            if !put(state.zeros, n, &state) { return }
            left -= n
        }
    }

    /// Moves what is ready from the ring into the file; true when anything moved.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    private func drainOnce(_ state: inout WriterState) -> Bool {
        let available = tap.ring.availableToRead / channelCount
        if state.failure != nil {
            // After a failure, keep the ring empty so the audio thread never waits on it.
            let n = tap.ring.read(into: state.chunk, count: min(available, state.chunkFrames) * channelCount)
            var popped = false
            while tap.gaps.pop() != nil { popped = true }
            return n > 0 || popped
        }
        var toRead = min(available, state.chunkFrames)
        // The ring holds no frame from after a gap the writer has not been told of.
        if let gap = tap.gaps.peek() {
            if gap.start <= state.fileFrames {
                _ = tap.gaps.pop()
                putGap(gap, &state)
                return true
            }
            toRead = min(toRead, gap.start - state.fileFrames)
        }
        guard toRead > 0 else { return false }
        tap.ring.read(into: state.chunk, count: toRead * channelCount)
        _ = put(state.chunk, toRead, &state)
        return true
    }

    /// Takes the MIDI events, xruns and silenced blocks reported since the last
    /// round, and logs the last two.
    /// - Thread: writer.
    /// - Realtime: unsafe (locks, file I/O).
    private func collectEvents(_ state: inout WriterState) {
        while let event = tap.midiQueue?.pop() { state.midi.append(event) }
        for frame in pendingXruns.withLock({ p -> [Int] in defer { p.removeAll() }; return p }) {
            state.xruns.append(frame)
            state.log.xrun(at: frame)
        }
        for silenced in pendingSilenced.withLock({ p in defer { p.removeAll() }; return p }) {
            state.log.silenced(blocks: silenced.blocks, from: silenced.from, at: silenced.frame)
        }
    }

    /// Keeps the files playable: the header rewritten, the data flushed and the
    /// MIDI file rewritten, each when its interval has passed at time `t`.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    private func keepFilesCurrent(_ state: inout WriterState, at t: Double) {
        let calls = options.calls
        if format.isWAV && state.failure == nil && t - state.lastHeader >= options.headerUpdateSeconds {
            _ = calls.updateHeader(state.file.handle)
            state.lastHeader = t
        }
        if t - state.lastSync >= options.syncSeconds {
            _ = calls.syncData(state.file.fd)
            state.lastSync = t
        }
        if let midiPath = options.midiPath, state.midi.count != state.midiWritten, t - state.lastMIDI >= 2 {
            try? MIDITakeFile.write(events: state.midi, sampleRate: sampleRate, to: midiPath)
            state.midiWritten = state.midi.count
            state.lastMIDI = t
        }
    }

    /// Finalizes the header, closes the file and, after a failure, cuts a WAV
    /// back to what was written whole.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    private func closeFile(_ state: inout WriterState) {
        let calls = options.calls, file = state.file
        if format.isWAV { _ = calls.updateHeader(file.handle) }
        let closeResult = calls.closeSoundFile(file.handle)
        if closeResult != 0 && state.failure == nil {
            fail(.writeFailed(path: path, reason: String(cString: calls.errorCodeText(closeResult))), &state)
        }
        _ = calls.sync(file.fd)
        _ = calls.closeDescriptor(file.fd)
        if state.failure != nil && format.isWAV {
            // Everything before the failed write stays valid: whole frames, sizes that match.
            if let repaired = try? WAVRepair.repair(path: path) {
                framesWritten.store(repaired.framesAfter, ordering: .releasing)
            }
        }
    }

    /// Leaves the writer's results for `stop()` and ends the take's log with its summary.
    /// - Thread: writer (before `stop()` joins it).
    /// - Realtime: unsafe (file I/O).
    private func publishResults(_ state: WriterState) {
        gapsSeen = state.gaps
        xrunsSeen = state.xruns
        midiCount = state.midi.filter { $0.message.channel != nil }.count
        loudness = state.meter?.report
        // Every take's log ends with its summary; the report points at it only when something was lost.
        let log = state.log
        let lost = log.hasEntries
        log.summary(TakeReport(path: path, sampleRate: sampleRate, channelCount: channelCount,
                               frames: framesWritten.load(ordering: .relaxed), framesRecorded: tap.framesSeen,
                               droppedFrames: tap.droppedFrames, gaps: state.gaps, xrunFrames: state.xruns, error: state.failure,
                               logPath: log.path, midiPath: nil, midiEvents: 0, droppedMIDIEvents: 0, loudness: loudness))
        if lost { logPath = log.path }
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
