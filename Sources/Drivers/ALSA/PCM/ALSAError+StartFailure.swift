import Session
#if canImport(Glibc)
import Glibc
#endif

extension ALSAError: DriverError {
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
