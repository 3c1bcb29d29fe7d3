import Session
#if canImport(Glibc)
import Glibc
#endif

/// How the driver's reports read as session events: the only place where
/// ALSA's vocabulary (errno codes, stop reasons) meets the state machine's.
extension DriverStopReason {
    /// The session event for a loop that ended by itself; nil for a stop the
    /// session asked for (requested, frame limit).
    /// - Parameters: the PCM names, so the message says which device.
    public func sessionEvent(capture: String?, playback: String) -> SessionEvent? {
        func device(_ d: PCMDirection) -> String {
            "\(d == .capture ? "input" : "output") '\(d == .capture ? capture ?? playback : playback)'"
        }
        switch self {
        case .requested, .frameLimitReached:
            return nil
        case .suspended:
            return .suspended
        case let .deviceLost(d, code):
            return .deviceLost("\(device(d)) is gone (\(ALSALibrary.describe(code)))")
        case let .recoveryFailed(d, code):
            // A plugin PCM whose server died keeps answering xruns: that is a loss, not a glitch.
            return .deviceLost("\(device(d)) kept failing after xruns (\(ALSALibrary.describe(code))); its sound server may be gone")
        case let .ioError(d, code):
            return .driverError("\(device(d)): \(ALSALibrary.describe(code))")
        }
    }
}

extension ALSAError {
    /// What the state machine needs to know about a failed (re)start.
    public var startFailure: StartFailure {
        switch self {
        case let .deviceBusy(device, _, _):
            return StartFailure(kind: .busy, device: device, message: description)
        case let .unknownPCM(device, _, _), let .noSoundCard(device):
            return StartFailure(kind: .missing, device: device, message: description)
        case let .callFailed(device, _, _, code, _):
            let kind: StartFailure.Kind = switch -code {
            case EBUSY: .busy
            case ENODEV, ENOENT, ENXIO, ESHUTDOWN: .missing
            default: .other
            }
            return StartFailure(kind: kind, device: device, message: description)
        case let .permissionDenied(device, _), let .noChannels(device, _), let .channelsRefused(device, _, _, _),
             let .rateRefused(device, _, _, _), let .periodRefused(device, _, _, _), let .periodCountRefused(device, _, _, _),
             let .noSupportedFormat(device, _, _), let .noSupportedAccess(device, _):
            return StartFailure(kind: .other, device: device, message: description)
        case let .duplexMismatch(capture, _, _, _, _):
            return StartFailure(kind: .other, device: capture, message: description)
        case .invalidConfiguration, .invalidState:
            return StartFailure(kind: .other, device: "", message: description)
        }
    }
}

extension GrantedConfiguration {
    /// The format a render graph is compiled for.
    public var audioFormat: AudioFormat {
        AudioFormat(sampleRate: sampleRate, periodFrames: periodFrames,
                    inputChannels: capture?.channels ?? 0, outputChannels: playback.channels)
    }
}
