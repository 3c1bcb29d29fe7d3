import Engine
import MIDI
import Synchronization

/// Gathers every MIDI source's events at the start of each audio cycle and
/// places them at their frames, for the instruments to read from `events`.
///
/// Live sources stamp events with the monotonic clock. The scheduler maps the
/// interval between the previous cycle's start and this one's onto this
/// cycle's frames, so events keep their spacing and land one cycle after they
/// arrived: a constant delay instead of the jitter of applying everything at
/// the block start (the same trade JACK's MIDI makes). Events stamped with a
/// sample time land on that exact frame, events stamped with a frame of the
/// cycle (JACK MIDI, queued on the audio thread just before this cycle) on
/// that frame of this cycle, and `.now` events at frame 0.
///
/// Every source has its own `HeldNotes`: when a source asks for a release (it
/// stopped, disconnected or was lost) exactly its notes get note-offs. A
/// watchdog ends any note held longer than `watchdogSeconds`.
public final class MIDIScheduler: RenderCycleObserver, @unchecked Sendable {
    /// The current block's events. Instruments hold this reference.
    public let events: MIDIEventBuffer
    /// The sources, fixed when the scheduler is built.
    public let ports: [MIDIInputPort]
    /// An optional MIDI file player, run on the audio thread.
    public let filePlayer: MIDIFilePlayer?
    /// Keys down and notes struck, for the screen.
    public let activity = NoteActivity()

    // MARK: Shared (atomics)
    private let watchdogMilliseconds = Atomic<Int>(0)
    private let watchdogReleases = Atomic<Int>(0)
    private let releaseEverything = Atomic<Bool>(false)
    private let eventsDelivered = Atomic<Int>(0)
    private let heldNoteCount = Atomic<Int>(0)
    private let overflowed = Atomic<Int>(0)

    // MARK: Audio thread only
    private let trackers: [HeldNotes]
    /// Per port, the offset of its last event in this cycle: where its releases go.
    private let lastOffsets: UnsafeMutablePointer<Int>
    /// Cycle slots kept free for releases, which must never be dropped.
    private let releaseReserve: Int
    private var previousHostTime: UInt64 = 0
    private var cycleStart: Int64 = 0
    private var cycleFrames = 0
    private var framesSinceWatchdog = 0

    /// - Parameter watchdogSeconds: notes held longer are ended; 0 turns the watchdog off.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(ports: [MIDIInputPort], filePlayer: MIDIFilePlayer? = nil, watchdogSeconds: Double = 30, eventCapacity: Int = 2048) {
        self.ports = ports
        self.filePlayer = filePlayer
        events = MIDIEventBuffer(capacity: eventCapacity)
        releaseReserve = min(64, eventCapacity / 4)
        trackers = ports.map { _ in HeldNotes() }
        lastOffsets = .allocate(capacity: max(1, ports.count))
        lastOffsets.initialize(repeating: 0, count: max(1, ports.count))
        self.watchdogSeconds = watchdogSeconds
    }

    deinit {
        lastOffsets.deallocate()
    }

    // MARK: Any thread (atomics; the control thread sets and reads them)

    /// Notes held longer than this are ended by the watchdog; 0 (or less) turns it off.
    /// - Thread: any (the audio thread's watchdog reads it)
    /// - Realtime: safe (an atomic load or store)
    public var watchdogSeconds: Double {
        get { Double(watchdogMilliseconds.load(ordering: .relaxed)) / 1000 }
        set { watchdogMilliseconds.store(max(0, Int((newValue * 1000).rounded())), ordering: .relaxed) }
    }

    /// Ends every note of every source at the next cycle: for stop and device loss.
    /// - Thread: any
    /// - Realtime: safe (an atomic store)
    public func releaseAllNotes() { releaseEverything.store(true, ordering: .releasing) }

    /// Notes the watchdog has ended since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var watchdogReleaseCount: Int { watchdogReleases.load(ordering: .relaxed) }
    /// Messages taken from the sources and the file player since start (activity for the TUI).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var deliveredCount: Int { eventsDelivered.load(ordering: .relaxed) }
    /// Events dropped because a cycle held more than the buffer's capacity.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var overflowCount: Int { overflowed.load(ordering: .relaxed) }
    /// Notes held across all sources at the last cycle.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var heldCount: Int { heldNoteCount.load(ordering: .relaxed) }

    // MARK: Audio thread

    /// Collects the events due in the cycle `sampleTime ..< sampleTime + frameCount`.
    /// - Parameters:
    ///   - sampleTime: the cycle's first frame on the engine timeline.
    ///   - hostTime: CLOCK_MONOTONIC nanoseconds at the cycle's start.
    /// - Thread: audio
    /// - Realtime: safe
    public func beginCycle(sampleTime: Int64, frameCount: Int, sampleRate: Double, hostTime: UInt64) {
        events.beginCycle()
        cycleStart = sampleTime
        cycleFrames = frameCount
        let everything = releaseEverything.exchange(false, ordering: .acquiring)
        var delivered = 0
        var held = 0
        var releasePostponed = false
        for index in 0..<ports.count {
            let port = ports[index]
            let tracker = trackers[index]
            // A source's events stay in the order it sent them: none is placed
            // before one already placed, whatever its stamp says.
            var lastOffset = 0
            drain: while let pending = port.queue.peek() {
                guard let found = offset(of: pending.time, frameCount: frameCount, hostTime: hostTime) else { break }
                let at = max(found, lastOffset)
                switch pending.item {
                case .message(let message):
                    // Room is kept for releases; what does not fit waits in the queue for the next cycle.
                    guard events.freeSpace > releaseReserve else { break drain }
                    tracker.observe(message, at: sampleTime + Int64(at))
                    events.insert(message, at: at)
                    delivered += 1
                case .releaseAllNotes:
                    guard events.freeSpace >= tracker.count + 16 else { break drain }
                    tracker.releaseAll { events.insert($0, at: at) }
                }
                _ = port.queue.pop()
                lastOffset = at
            }
            // A release that did not fit in the queue is carried out once
            // everything sent before it has been delivered.
            let flagged = port.queue.peek() == nil && port.releaseRequested.load(ordering: .acquiring)
            if flagged || everything {
                if events.freeSpace >= tracker.count + 16 {
                    if flagged { port.releaseRequested.store(false, ordering: .relaxed) }
                    tracker.releaseAll { events.insert($0, at: lastOffset) }
                } else if everything {
                    releasePostponed = true
                }
            }
            lastOffsets[index] = lastOffset
            if delivered > 0 { port.delivered.add(delivered, ordering: .relaxed) }
            eventsDelivered.add(delivered, ordering: .relaxed)
            delivered = 0
            held += tracker.count
        }
        if releasePostponed { releaseEverything.store(true, ordering: .releasing) }
        if let filePlayer {
            if everything { filePlayer.releaseHeld(at: 0, cycleStart: sampleTime, into: events) }
            let before = events.cycleCount
            filePlayer.renderCycle(frameCount: frameCount, cycleStart: sampleTime, into: events)
            eventsDelivered.add(events.cycleCount - before, ordering: .relaxed)
            held += filePlayer.heldNotes.count
        }
        runWatchdog(sampleRate: sampleRate)
        events.forEachInCycle { activity.observe($0) }
        heldNoteCount.store(held, ordering: .relaxed)
        overflowed.store(events.overflowCount, ordering: .relaxed)
        previousHostTime = hostTime
    }

    /// Shows instruments only the block `offset ..< offset + frameCount` of the cycle.
    /// - Thread: audio
    /// - Realtime: safe
    public func showBlock(offset: Int, frameCount: Int) {
        events.showBlock(offset: offset, frameCount: frameCount)
    }

    /// The frame in this cycle for an event stamped `time`, or nil when it is not due yet.
    /// - Thread: audio
    /// - Realtime: safe
    private func offset(of time: MIDIEventTime, frameCount: Int, hostTime: UInt64) -> Int? {
        switch time {
        case .now:
            return 0
        case .cycleFrame(let frame):
            return min(max(0, frame), frameCount - 1)
        case .sample(let frame):
            if frame >= cycleStart + Int64(frameCount) { return nil }
            return Int(max(0, frame - cycleStart))
        case .hostNanoseconds(let stamp):
            if stamp > hostTime { return nil }
            // The first cycle has no previous start to measure from; later ones
            // map (previous start, this start] onto this cycle's frames.
            guard previousHostTime != 0, hostTime > previousHostTime, stamp > previousHostTime else { return 0 }
            let fraction = Double(stamp - previousHostTime) / Double(hostTime - previousHostTime)
            return min(frameCount - 1, Int(fraction * Double(frameCount)))
        }
    }

    /// Ends notes (and lifts sustain pedals) held past the limit, checking
    /// about every 10 ms rather than every cycle.
    /// - Thread: audio
    /// - Realtime: safe
    private func runWatchdog(sampleRate: Double) {
        let limitMilliseconds = watchdogMilliseconds.load(ordering: .relaxed)
        guard limitMilliseconds > 0 else { return }
        framesSinceWatchdog += cycleFrames
        guard framesSinceWatchdog >= Int(sampleRate / 100) else { return }
        framesSinceWatchdog = 0
        let limitFrames = Int64(Double(limitMilliseconds) * sampleRate / 1000)
        let cutoff = cycleStart - limitFrames
        var released = 0
        // Sources only: the file player ends its own notes, and a slowed-down
        // song may rightly hold a note longer than the limit.
        for index in 0..<trackers.count {
            let tracker = trackers[index]
            // Not enough room this cycle: the next check, 10 ms on, tries again.
            guard events.freeSpace >= tracker.count + 16 else { continue }
            released += tracker.releaseNotes(startedBefore: cutoff) { events.insert($0, at: lastOffsets[index]) }
        }
        if released > 0 { watchdogReleases.add(released, ordering: .relaxed) }
    }
}
