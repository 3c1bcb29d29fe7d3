#if canImport(Glibc)
import Glibc
#endif

/// Why the ALSA sequencer input could not start, or why `--midi` named no
/// port. Every case prints as one line that says what to try.
public enum SequencerError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No sequencer device (`/dev/snd/seq` missing: no sound support in the
    /// kernel, or the snd-seq module not loaded). `detail` is libasound's message.
    case unavailable(detail: String)
    /// Not allowed to open `/dev/snd/seq`.
    case permissionDenied
    /// Any other failure of a libasound sequencer call.
    case callFailed(call: String, code: Int32, detail: String)
    /// `--midi` text that is neither `auto` nor `CLIENT:PORT`.
    case invalidSpecifier(String, reason: String)
    /// No port matches; `available` lists the MIDI sources that exist.
    case portNotFound(String, available: [SequencerPortDescription])
    /// A client name prefix that fits several clients.
    case ambiguousClient(String, candidates: [String])
    /// The port exists but sends nothing Busker could subscribe to.
    case notASource(SequencerPortDescription)
    /// Subscribing to a source failed.
    case subscribeFailed(SequencerPortDescription, code: Int32)

    /// The error for a failed `snd_seq_open` with (negative) `code`;
    /// `message` is what libasound reported, `deviceExists` whether
    /// `/dev/snd/seq` is there.
    public static func forOpen(code: Int32, message: String, deviceExists: Bool) -> SequencerError {
        let missingDevice = [ENOENT, ENODEV, ENXIO].contains(-code) && !deviceExists
        if missingDevice { return .unavailable(detail: message) }
        if [EACCES, EPERM].contains(-code) { return .permissionDenied }
        return .callFailed(call: "snd_seq_open", code: code, detail: message)
    }

    /// The one line that says what went wrong and what to try.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (builds Strings)
    public var description: String {
        switch self {
        case let .unavailable(detail):
            // libasound's usual "open /dev/snd/seq failed" adds nothing to the line.
            let why = detail.isEmpty || detail.contains("/dev/snd/seq") ? "" : "; libasound: \(detail)"
            return "ALSA sequencer unavailable (/dev/snd/seq missing: is the snd-seq module loaded? try `sudo modprobe snd-seq`)\(why); --midi-in PATH reads a raw MIDI device or a FIFO without it"
        case .permissionDenied:
            return "no permission to open the ALSA sequencer (/dev/snd/seq); add yourself to the 'audio' group (sudo usermod -aG audio $USER) and log in again"
        case let .callFailed(call, code, detail):
            let extra = detail.isEmpty ? "" : " (\(detail))"
            return "ALSA sequencer: \(call) failed: \(ALSALibrary.describe(code))\(extra)"
        case let .invalidSpecifier(text, reason):
            return "--midi '\(text)': \(reason); use auto, CLIENT:PORT as `aconnect -l` shows it (20:0), or a client name (\"Keystation:0\", \"Keystation\" for port 0)"
        case let .portNotFound(text, available):
            return "no MIDI source '\(text)'; \(Self.list(available)); see `aconnect -l` or `busker devices`"
        case let .ambiguousClient(text, candidates):
            return "--midi '\(text)' fits several clients (\(candidates.joined(separator: ", "))); give more of the name, or the client number"
        case let .notASource(port):
            return "'\(port.address) \(port.clientName) / \(port.portName)' sends no MIDI Busker can subscribe to; pick a readable port (see `aconnect -i`)"
        case let .subscribeFailed(port, code):
            return "could not connect '\(port.address) \(port.clientName) / \(port.portName)' to Busker: \(ALSALibrary.describe(code))"
        }
    }

    private static func list(_ ports: [SequencerPortDescription]) -> String {
        if ports.isEmpty { return "no MIDI sources exist (plug in a device, or start the program that sends)" }
        return "available: " + ports.map { "\($0.address) \($0.clientName) / \($0.portName)" }.joined(separator: ", ")
    }
}
