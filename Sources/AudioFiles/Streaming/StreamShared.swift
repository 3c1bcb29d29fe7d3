import Dispatch
import Engine
import Synchronization

/// What a `SoundFileStream`'s three threads share: the ring of stereo frames
/// and its markers (reader → audio), the commands (control → reader), the
/// reader's wake-up, and the counters each side publishes. The reader thread
/// holds this, never the stream, so the stream's deinit can stop the thread.
final class StreamShared: @unchecked Sendable {
    /// Interleaved stereo frames at the session's rate: reader → audio.
    let ring: SampleRing
    /// Where the frames in `ring` change meaning: reader → audio.
    let markers: SPSCQueue<StreamMarker>
    /// Seeks and loops: control → reader.
    let commands: SPSCQueue<StreamCommand>
    /// Signalled by the control thread after a command; the reader also wakes
    /// by itself every `StreamReader.pollMilliseconds` to top up the ring.
    /// The audio thread never signals it (a system call that may wake a thread).
    let wake = DispatchSemaphore(value: 0)

    // MARK: Shared (atomics)
    let running = Atomic<Bool>(true)
    /// Written by the reader: the generation it reads, the file frame it has
    /// read up to, and the loop passes it has written in that generation.
    let readerGeneration = Atomic<Int>(0)
    let readerFrame = Atomic<Int>(0)
    let readerWraps = Atomic<Int>(0)
    /// Written by the reader: the generation whose last frame is in the ring (−1: none).
    let readerEndedGeneration = Atomic<Int>(-1)
    /// Written by the reader: samples from the file that were NaN, ±Inf or
    /// 2^16 and over, written as 0.
    let repairedSamples = Atomic<Int>(0)
    /// Written by the audio thread: the generation it plays (whose start it
    /// reached), the track frame it plays next, the loop passes it has played
    /// in that generation, and the generation whose end it reached (−1: none).
    let landedGeneration = Atomic<Int>(0)
    let position = Atomic<Int>(0)
    let playedWraps = Atomic<Int>(0)
    let endedGeneration = Atomic<Int>(-1)

    // MARK: Reader and control threads
    /// The read error that ended the stream early, if any.
    let failure = Mutex<AudioFileError?>(nil)

    init(ringFrames: Int) {
        ring = SampleRing(capacity: ringFrames * 2)
        markers = SPSCQueue(capacity: 256)
        commands = SPSCQueue(capacity: 64)
    }
}
