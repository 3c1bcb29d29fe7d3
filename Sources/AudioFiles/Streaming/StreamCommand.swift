/// What the control thread asks of a `SoundFileStream`'s reader thread
/// (a wait-free queue; the control thread then signals the reader's semaphore).
/// Frames are the file's own.
enum StreamCommand: Sendable {
    /// Read from `frame` on, as a new generation, looping `loop` (nil: no loop).
    case seek(generation: Int, frame: Int64, loop: Range<Int64>?)
    /// Loop `loop` from now on without leaving the frames already read (nil: loop no more).
    case loop(Range<Int64>?)
}
