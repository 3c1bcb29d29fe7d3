import CSndFile
import Foundation
import Recording
import Synchronization

/// Failing disks for the writer thread, built from the live call table by
/// replacing entries: everything not replaced is the real libsndfile call.
extension SoundFileCalls {
    /// A slow disk: every write waits on `gate` first, then writes for real.
    /// Signal `gate` once to let the writes through (it stays open).
    /// - Thread: writer.
    /// - Realtime: unsafe (blocks on the semaphore, file I/O).
    static func slowDisk(gate: DispatchSemaphore) -> SoundFileCalls {
        var calls = SoundFileCalls.live
        let write = calls.writeFrames
        calls.writeFrames = { file, frames, count in
            gate.wait()
            gate.signal()
            return write(file, frames, count)
        }
        return calls
    }

    /// A disk with room for `capacity` frames: writes go through for real
    /// until it is full; the write that does not fit writes what fits and
    /// returns fewer frames than asked, every later write returns 0, and the
    /// file's error text is then libsndfile's for `ENOSPC`
    /// ("System error : No space left on device.").
    /// Counts the frames of every file written through the returned table:
    /// give each take its own.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    static func fullDisk(afterFrames capacity: Int) -> SoundFileCalls {
        let disk = FillingDisk(capacity: capacity)
        var calls = SoundFileCalls.live
        let write = calls.writeFrames, errorText = calls.errorText
        calls.writeFrames = { file, frames, count in
            let fits = min(Int(count), disk.room)
            let done = fits > 0 ? Int(write(file, frames, sf_count_t(fits))) : 0
            disk.used.add(max(0, done), ordering: .relaxed)
            if done < Int(count) { disk.isFull.store(true, ordering: .releasing) }
            return sf_count_t(done)
        }
        calls.errorText = { file in
            disk.isFull.load(ordering: .acquiring) ? UnsafePointer(disk.noSpaceText) : errorText(file)
        }
        return calls
    }
}

/// The state of `SoundFileCalls.fullDisk`: frames written, whether it is full,
/// and the error text libsndfile gives for a write that hit `ENOSPC`.
private final class FillingDisk: Sendable {
    let capacity: Int
    let used = Atomic<Int>(0)
    let isFull = Atomic<Bool>(false)
    /// "System error : <strerror(ENOSPC)>.", as libsndfile words a failed system call.
    nonisolated(unsafe) let noSpaceText: UnsafeMutablePointer<CChar>

    init(capacity: Int) {
        self.capacity = capacity
        noSpaceText = strdup("System error : \(String(cString: strerror(ENOSPC))).")
    }

    deinit { free(noSpaceText) }

    /// Frames that still fit.
    var room: Int { max(0, capacity - used.load(ordering: .relaxed)) }
}
