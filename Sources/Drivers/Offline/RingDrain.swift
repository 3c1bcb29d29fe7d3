import AudioFiles
import Engine

/// The writer side of the offline drivers: moves interleaved frames from the
/// render thread's ring into the file until the render thread is done. Runs
/// on the drivers' `file-writer` thread, which may block on the disk; the
/// plans the audio thread retires are freed by the control thread.
enum RingDrain {
    /// Drains `ring` into `writer` until `renderDone()` is true and the ring is empty.
    /// After the first write error the rest is read and discarded (so the render
    /// thread never waits on a full ring), and `abort()` tells the other threads to stop.
    /// - Returns: the first write error, or nil.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O, allocates, sleeps)
    static func drain(_ ring: SampleRing, channels: Int, into writer: SoundFileWriter,
                      renderDone: () -> Bool, abort: () -> Void, progress: (Int64) -> Void = { _ in }) -> Error? {
        let chunkFrames = 4096
        let chunk = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * channels)
        defer { chunk.deallocate() }
        var writeError: Error?
        while true {
            // Whole chunks only until the render thread is done: fewer, larger
            // writes, and between them the thread sleeps instead of spinning.
            let done = renderDone()
            let n = done || ring.availableToRead >= chunkFrames * channels
                ? ring.read(into: chunk, count: chunkFrames * channels) / channels : 0
            if n > 0 {
                if writeError == nil {
                    do {
                        try writer.write(chunk, frames: n)
                        progress(writer.framesWritten)
                    } catch {
                        writeError = error
                        abort()
                    }
                }
                continue
            }
            if done && ring.availableToRead == 0 { break }
            ThreadWait.nap()
        }
        return writeError
    }
}
