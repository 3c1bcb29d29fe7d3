import CSndFile
import Glibc

/// The libsndfile and POSIX calls a take's writer thread makes on its file,
/// as a table of swappable functions, after swift-system's `Mocking.swift`
/// and ALSA's `PCMCalls`: the default `live` table calls the real functions;
/// a test copies it and replaces any entry to make the disk slow, fill up,
/// or fail a sync or a close at any point.
///
/// The table covers every call the writer makes on the take's file once it
/// is open: writing frames, bringing the header up to date, flushing to the
/// disk, closing, and the error texts. Opening the file happens on the
/// control thread in `Recorder.start`, before the writer exists; its failures
/// (an existing file, a missing or read-only folder) are real conditions a
/// test sets up on the file system.
///
/// A fault is what the real call would do on a failing disk: a full disk
/// writes the frames that fit and returns fewer than asked, and `errorText`
/// then says why, as libsndfile would.
///
/// - Thread: writer (every entry is called on the take's `rec-writer` thread).
/// - Realtime: unsafe (file I/O; never called on the audio thread).
public struct SoundFileCalls: Sendable {
    public typealias SoundFile = OpaquePointer

    /// `sf_writef_float(file, frames, count)`: writes `count` interleaved
    /// frames; returns how many were written, fewer than `count` on an error.
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    public var writeFrames: @Sendable (SoundFile, UnsafePointer<Float>, sf_count_t) -> sf_count_t
    /// `sf_command(file, SFC_UPDATE_HEADER_NOW, nil, 0)`: rewrites the header
    /// to match the frames written so far (WAV takes).
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O).
    public var updateHeader: @Sendable (SoundFile) -> Int32
    /// `fdatasync(fd)`: the data written so far reaches the disk.
    /// - Thread: writer.
    /// - Realtime: unsafe (blocks until the disk has the data).
    public var syncData: @Sendable (Int32) -> Int32
    /// `fsync(fd)`: data and metadata reach the disk, after the file is closed.
    /// - Thread: writer.
    /// - Realtime: unsafe (blocks until the disk has the data).
    public var sync: @Sendable (Int32) -> Int32
    /// `sf_close(file)`: finishes the file; nonzero is a libsndfile error code.
    /// The descriptor stays open (the file was opened with `sf_open_fd`, close_desc false).
    /// - Thread: writer.
    /// - Realtime: unsafe (file I/O, frees).
    public var closeSoundFile: @Sendable (SoundFile) -> Int32
    /// `close(fd)`.
    /// - Thread: writer.
    /// - Realtime: unsafe (syscall).
    public var closeDescriptor: @Sendable (Int32) -> Int32
    /// `sf_strerror(file)`: the text of the file's last error (after a short write).
    /// - Thread: writer.
    /// - Realtime: safe (returns a string the file's handle holds).
    public var errorText: @Sendable (SoundFile) -> UnsafePointer<CChar>
    /// `sf_error_number(code)`: the text of an error code `closeSoundFile` returned.
    /// - Thread: writer.
    /// - Realtime: safe (returns a static string).
    public var errorCodeText: @Sendable (Int32) -> UnsafePointer<CChar>

    public init(
        writeFrames: @escaping @Sendable (SoundFile, UnsafePointer<Float>, sf_count_t) -> sf_count_t,
        updateHeader: @escaping @Sendable (SoundFile) -> Int32,
        syncData: @escaping @Sendable (Int32) -> Int32,
        sync: @escaping @Sendable (Int32) -> Int32,
        closeSoundFile: @escaping @Sendable (SoundFile) -> Int32,
        closeDescriptor: @escaping @Sendable (Int32) -> Int32,
        errorText: @escaping @Sendable (SoundFile) -> UnsafePointer<CChar>,
        errorCodeText: @escaping @Sendable (Int32) -> UnsafePointer<CChar>
    ) {
        self.writeFrames = writeFrames
        self.updateHeader = updateHeader
        self.syncData = syncData
        self.sync = sync
        self.closeSoundFile = closeSoundFile
        self.closeDescriptor = closeDescriptor
        self.errorText = errorText
        self.errorCodeText = errorCodeText
    }

    /// The real libsndfile and POSIX functions.
    public static let live = SoundFileCalls(
        writeFrames: { sf_writef_float($0, $1, $2) },
        updateHeader: { sf_command($0, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) },
        syncData: { fdatasync($0) },
        sync: { fsync($0) },
        closeSoundFile: { sf_close($0) },
        closeDescriptor: { Glibc.close($0) },
        errorText: { sf_strerror($0) },
        errorCodeText: { sf_error_number($0) }
    )
}
