import AudioFiles
import Engine
import Foundation
import Session
import Synchronization

/// The output side of an offline run, which both offline drivers share: the
/// file, the ring the `audio-render` thread fills, the `file-writer` thread
/// that drains the ring into the file, the flags the run's threads share, and
/// how the run ends (the file renamed into place, or removed when the run
/// failed or was cut short).
///
/// The file is written beside the named one and renamed over it only when
/// complete (`OutputReplacement`): a failure or an interrupt leaves a file
/// that was there byte for byte as it was.
///
/// Life cycle, on the control thread: `init` creates the temporary file
/// (nothing is left behind when it throws); `startWriter()` starts
/// `file-writer`; the render thread `push`es blocks and sets `renderDone`
/// when it is through; the control thread `end(failure:)`s the run after
/// joining its own threads, or `abandon()`s it.
final class OfflineOutput: @unchecked Sendable {
    let path: String
    let channelCount: Int
    /// The temporary file and the rename that makes it `path`.
    let replacement: OutputReplacement
    let ring: SampleRing

    // MARK: Shared (atomics)
    /// Set by whichever thread fails (or by `abandon`): every thread of the run stops.
    let abort = Atomic<Bool>(false)
    /// The render thread is through: the writer drains what is left and stops.
    let renderDone = Atomic<Bool>(false)
    /// The writer is through; `writeError` is set before it.
    let writerDone = Atomic<Bool>(false)
    /// Frames in the file so far.
    let framesWritten = Atomic<Int>(0)

    // MARK: Written by one thread before a flag the reader acquires
    /// The first write error (writer, before `writerDone`).
    private(set) var writeError: (any Error)?
    /// The render thread's name, copied there without allocating before its first block.
    let threadNameBytes = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 32)

    // MARK: Control thread only
    private var writer: SoundFileWriter?
    private var thread: RealtimeThread?

    /// Creates the temporary output file and a ring of four times `blockFrames` (at least 16384 frames).
    /// - Throws: `AudioFileError` for a folder, an unknown extension, a refused format or no permission.
    /// - Thread: control
    /// - Realtime: unsafe (creates a file, allocates)
    init(path: String, sampleRate: Int, channelCount: Int, sampleFormat: SampleFormat, blockFrames: Int) throws(AudioFileError) {
        let replacement = try OutputReplacement(target: path)
        // A file-size limit (ulimit -f) must be a write error the run reports
        // (and the partial file removed), not a signal that kills the process.
        signal(SIGXFSZ, SIG_IGN)
        writer = try SoundFileWriter(path: replacement.writePath, sampleRate: sampleRate, channelCount: channelCount,
                                     sampleFormat: sampleFormat, shownPath: path)
        self.replacement = replacement
        self.path = path
        self.channelCount = channelCount
        ring = SampleRing(capacity: max(blockFrames, 16384) * channelCount * 4)
        threadNameBytes.initialize(repeating: 0)
    }

    deinit {
        thread?.join()
        threadNameBytes.deallocate()
    }

    /// The render thread's name, once it has run.
    /// - Thread: control
    /// - Realtime: unsafe (makes a String)
    var renderThreadName: String { String(cString: threadNameBytes.baseAddress!) }

    /// Starts `file-writer`: it moves whole chunks from the ring into the file
    /// until the render thread is done, then the rest; after a write error it
    /// keeps the ring empty and sets `abort`.
    /// - Thread: control
    /// - Realtime: unsafe (creates a thread)
    func startWriter() {
        guard let writer, thread == nil else { return }
        thread = RealtimeThread(name: "file-writer") { [self] in
            writeError = RingDrain.drain(ring, channels: channelCount, into: writer,
                                         renderDone: { self.renderDone.load(ordering: .acquiring) },
                                         abort: { self.abort.store(true, ordering: .releasing) }) { written in
                self.framesWritten.store(Int(written), ordering: .relaxed)
            }
            writerDone.store(true, ordering: .releasing)
        }
    }

    /// The first write error, once the writer is through (nil before).
    /// - Thread: control
    /// - Realtime: safe
    var finishedWriteError: (any Error)? {
        writerDone.load(ordering: .acquiring) ? writeError : nil
    }

    /// Ends the run after the control thread joined its own threads: waits for
    /// the writer, closes the file, and renames it into place; when the run
    /// failed, removes it instead (a file that was at `path` stays as it was).
    /// - Parameter failure: what failed elsewhere in the run (the reader), if anything.
    /// - Returns: the frames written, and the run's first error: a write error,
    ///   else `failure`, else one from closing or renaming the file.
    /// - Thread: control
    /// - Realtime: unsafe (joins a thread, closes, renames or removes a file)
    func end(failure: (any Error)?) -> (frames: Int64, error: (any Error)?) {
        thread?.join()
        thread = nil
        let frames = writer?.framesWritten ?? 0
        var closeError: (any Error)?
        do {
            try writer?.close()
        } catch {
            closeError = error
        }
        writer = nil
        if let error = writeError ?? failure ?? closeError {
            replacement.discard()
            return (frames, error)
        }
        do {
            try replacement.commit()
        } catch {
            return (frames, error)
        }
        return (frames, nil)
    }

    /// Cuts the run short: every thread of the run is told to stop; once the
    /// caller has joined its own threads, `discard()` removes the partial temporary file.
    /// - Thread: control
    /// - Realtime: safe
    func abandon() {
        abort.store(true, ordering: .releasing)
    }

    /// After `abandon()` and the caller's joins: waits for the writer, closes
    /// and removes the temporary file (a file that was at `path` stays as it was).
    /// - Thread: control
    /// - Realtime: unsafe (joins a thread, removes a file)
    func discard() {
        thread?.join()
        thread = nil
        try? writer?.close()
        writer = nil
        replacement.discard()
    }

    // MARK: Audio thread

    /// Interleaves `frames` frames of `block` from `offset` into `scratch` and
    /// pushes them into the ring, waiting while it is full (the writer drains
    /// it); gives up when the run is aborted.
    /// - Parameter scratch: room for `frames × channelCount` samples, allocated before the run.
    /// - Thread: audio
    /// - Realtime: safe (offline: it waits on the ring in `ThreadWait.pause`; no allocation)
    func push(_ block: AudioBuffer, offset: Int, frames: Int, scratch: UnsafeMutablePointer<Float>, wait: inout ThreadWait) {
        Interleaving.interleave(block, offset: offset, channels: channelCount, frames: frames, into: scratch)
        var done = 0
        while done < frames * channelCount && !abort.load(ordering: .relaxed) {
            let n = ring.write(scratch + done, count: frames * channelCount - done)
            if n == 0 { wait.pause() } else { wait.reset() }
            done += n
        }
    }

    /// Records the calling thread's name (the render thread's, for the report).
    /// - Thread: audio
    /// - Realtime: safe (one prctl system call)
    func recordRenderThreadName() {
        RealtimeThread.copyCurrentName(into: threadNameBytes)
    }
}

/// Why an offline driver refuses what a device driver would do.
public enum OfflineRunError: DriverError, Equatable {
    /// An offline run reads its input once: it cannot start again.
    case runsOnce(path: String)
    /// Files are not suspended, so there is nothing to resume.
    case notSuspended(path: String)

    public var description: String {
        switch self {
        case let .runsOnce(path): "the offline run writing '\(path)' has run; it cannot start again"
        case let .notSuspended(path): "the offline run writing '\(path)' is not suspended; there is nothing to resume"
        }
    }

    public var startFailure: StartFailure {
        switch self {
        case let .runsOnce(path), let .notSuspended(path): StartFailure(kind: .other, device: "file:" + path, message: description)
        }
    }
}
