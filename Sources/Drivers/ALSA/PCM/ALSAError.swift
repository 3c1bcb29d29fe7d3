import Session
/// Why the ALSA driver could not open, configure or start a device.
///
/// Every case prints as one line that names the device and says what to try,
/// because that line is what a user at a terminal (or a CI log) sees.
public enum ALSAError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The PCM name is not defined in any ALSA configuration.
    case unknownPCM(device: String, direction: StreamDirection, detail: String)
    /// No sound card at all, and the name needs one (`default`, `hw:…`).
    case noSoundCard(device: String)
    /// Another program holds the device (`-EBUSY`).
    case deviceBusy(device: String, direction: StreamDirection, holders: [DeviceHolder])
    /// Not allowed to open the device node (`-EACCES`/`-EPERM`).
    case permissionDenied(device: String, direction: StreamDirection)
    /// The device has no side for this direction (a capture device with no channels).
    case noChannels(device: String, direction: StreamDirection)
    case channelsRefused(device: String, direction: StreamDirection, requested: Int, supported: ClosedRange<Int>)
    case rateRefused(device: String, direction: StreamDirection, requested: Int, detail: String)
    case periodRefused(device: String, direction: StreamDirection, requested: Int, supported: ClosedRange<Int>)
    case periodCountRefused(device: String, direction: StreamDirection, requested: Int, supported: ClosedRange<Int>)
    case noSupportedFormat(device: String, direction: StreamDirection, tried: [PCMSampleFormat])
    case noSupportedAccess(device: String, direction: StreamDirection)
    /// Capture and playback ended up with different rates or periods; a duplex loop needs both equal.
    case duplexMismatch(capture: String, playback: String, what: String, captureValue: Int, playbackValue: Int)
    /// An ALSA configuration text (an overlay given to the driver) did not parse.
    case invalidConfiguration(detail: String)
    /// Any other failure of an ALSA call while opening or setting up.
    case callFailed(device: String, direction: StreamDirection, call: String, code: Int32, detail: String)
    /// The driver is not in a state where this works (start twice, resume while running).
    case invalidState(String)

    public var description: String {
        switch self {
        case let .unknownPCM(device, direction, detail):
            let why = detail.isEmpty ? "" : " (\(detail))"
            return "no ALSA PCM named '\(device)' for \(direction)\(why); run `busker devices` to list them, or define it in ~/.asoundrc"
        case let .noSoundCard(device):
            return "no sound card found (opening '\(device)'; /dev/snd is empty or missing); without hardware, start Tools/virtual-soundcard and use the PCM it prints"
        case let .deviceBusy(device, direction, holders):
            let who = holders.isEmpty
                ? "another program"
                : holders.map(\.description).joined(separator: ", ")
            return "\(direction) device '\(device)' is busy, held by \(who); close it, or use a shared PCM such as 'default' or 'plug:dmix'"
        case let .permissionDenied(device, direction):
            return "no permission to open \(direction) device '\(device)'; add yourself to the 'audio' group (sudo usermod -aG audio $USER) and log in again"
        case let .noChannels(device, direction):
            return "'\(device)' has no \(direction) channels; choose a device with a \(direction) side (`busker devices`) with --\(direction.optionWord)"
        case let .channelsRefused(device, direction, requested, supported):
            return "\(direction) device '\(device)' refuses \(requested) channel\(requested == 1 ? "" : "s") (it takes \(Self.range(supported))); try that, or its plughw: name to let ALSA convert"
        case let .rateRefused(device, direction, requested, detail):
            return "\(direction) device '\(device)' refuses \(requested) Hz (\(detail)); try --rate 48000 or 44100, or its plughw: name"
        case let .periodRefused(device, direction, requested, supported):
            return "\(direction) device '\(device)' refuses a period of \(requested) frames (it takes \(Self.range(supported))); try --period \(Self.nearestPowerOfTwo(requested, in: supported))"
        case let .periodCountRefused(device, direction, requested, supported):
            return "\(direction) device '\(device)' refuses \(requested) periods per buffer (it takes \(Self.range(supported))); try --periods \(min(max(requested, supported.lowerBound), supported.upperBound))"
        case let .noSupportedFormat(device, direction, tried):
            return "\(direction) device '\(device)' takes none of \(tried.map(\.rawValue).joined(separator: ", ")); try its plughw: or plug: name to let ALSA convert"
        case let .noSupportedAccess(device, direction):
            return "\(direction) device '\(device)' offers neither interleaved nor non-interleaved read/write access; try its plughw: name"
        case let .duplexMismatch(capture, playback, what, c, p):
            return "capture '\(capture)' and playback '\(playback)' disagree on the \(what) (\(c) vs \(p)); use one card for both (--device) or pick a \(what) both accept"
        case let .invalidConfiguration(detail):
            return "invalid ALSA configuration: \(detail)"
        case let .callFailed(device, direction, call, code, detail):
            let extra = detail.isEmpty ? "" : " (\(detail))"
            return "\(call) failed on \(direction) device '\(device)': \(ALSALibrary.describe(code))\(extra); check the device with `busker devices`, or try another period or its plughw: name"
        case let .invalidState(what):
            return "ALSA driver: \(what)"
        }
    }

    private static func range(_ r: ClosedRange<Int>) -> String {
        r.lowerBound == r.upperBound ? "only \(r.lowerBound)" : "\(r.lowerBound)…\(r.upperBound)"
    }

    /// The power of two within `range` closest to `value`, else the nearest bound:
    /// a period suggestion a user can type.
    static func nearestPowerOfTwo(_ value: Int, in range: ClosedRange<Int>) -> Int {
        // A period of zero or less has no neighbour worth suggesting; 64 is the live default's order.
        let value = value > 0 ? value : 64
        var best = min(max(value, range.lowerBound), range.upperBound)
        var bestDistance = Int.max
        var p = 1
        while p <= range.upperBound && p > 0 {
            if p >= range.lowerBound && abs(p - value) < bestDistance {
                best = p
                bestDistance = abs(p - value)
            }
            p <<= 1
        }
        return best
    }
}
