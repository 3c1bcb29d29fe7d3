#if canImport(Glibc)
import Glibc
#endif

/// Why `--midi-in PATH` could not be opened, or why reading it stopped.
///
/// Every case prints as one line that names the path and says what to try:
/// that line is what a user at a terminal sees.
public enum RawMIDIError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Nothing exists at the path.
    case notFound(path: String)
    /// The path is a directory.
    case isDirectory(path: String)
    /// A socket or block device: not a byte stream Busker reads MIDI from.
    case unsupportedFileType(path: String, kind: String)
    /// Not allowed to open the path for reading (`EACCES`/`EPERM`).
    case permissionDenied(path: String)
    /// Another program has the raw MIDI device open (`EBUSY`).
    case busy(path: String)
    /// A device node with no device behind it (`ENXIO`/`ENODEV`: unplugged, driver gone).
    case noDevice(path: String)
    /// Reading stopped: an error (`EIO`, `ENODEV`: the device was unplugged or
    /// its driver went away), or `code` 0 when the device hung up (a
    /// terminal-style device reports its loss as end of data). The input's
    /// notes were released.
    case lost(path: String, code: Int32)
    /// Any other failure of `open`, `read` or `poll`; `code` is the errno.
    case systemCallFailed(path: String, call: String, code: Int32)

    /// The error for an `open` (or `stat`) of `path` that failed with `errno` `code`.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (String work)
    public static func openFailed(path: String, code: Int32) -> RawMIDIError {
        switch code {
        case ENOENT, ENOTDIR: .notFound(path: path)
        case EISDIR: .isDirectory(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        case EBUSY: .busy(path: path)
        case ENXIO, ENODEV: .noDevice(path: path)
        default: .systemCallFailed(path: path, call: "open", code: code)
        }
    }

    public var description: String {
        switch self {
        case let .notFound(path):
            return "no MIDI input at '\(path)': no such file; give a raw MIDI device (/dev/snd/midiC1D0, see `busker devices`), a FIFO (mkfifo) or a file"
        case let .isDirectory(path):
            return "'\(path)' is a directory; --midi-in reads a raw MIDI device (/dev/snd/midiC1D0), a FIFO or a file"
        case let .unsupportedFileType(path, kind):
            return "'\(path)' is a \(kind); --midi-in reads a raw MIDI device (/dev/snd/midiC1D0), a FIFO or a file"
        case let .permissionDenied(path):
            return "no permission to read '\(path)'; for a /dev/snd device add yourself to the 'audio' group (sudo usermod -aG audio $USER) and log in again"
        case let .busy(path):
            return "MIDI device '\(path)' is busy: another program (or Busker's own --midi auto, which reads the same port) has it open; add --midi none, or leave out --midi-in and use --midi"
        case let .noDevice(path):
            return "MIDI device '\(path)' has no device behind it (unplugged?); plug it in, or check `busker devices`"
        case let .lost(path, code):
            let why = code == 0 ? "the device hung up" : String(cString: strerror(code))
            return "MIDI input '\(path)' was lost (\(why)); its notes were released; reconnect it and restart"
        case let .systemCallFailed(path, call, code):
            return "\(call) failed on MIDI input '\(path)': \(String(cString: strerror(code)))"
        }
    }
}
