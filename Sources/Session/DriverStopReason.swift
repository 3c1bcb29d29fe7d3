#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a driver's render loop ended. Codes are negative errno values, as
/// libasound and most system calls return them.
public enum DriverStopReason: Sendable, Hashable, CustomStringConvertible {
    /// `stop()` was called.
    case requested
    /// The input came to its end and everything after it has been rendered
    /// (an offline driver's file, with its tail).
    case endOfInput
    /// The system suspended the device; `resumeAfterSuspend` continues.
    case suspended(StreamDirection)
    /// The device is gone (unplugged, disconnected), or its server died and
    /// recovery failed.
    case deviceLost(StreamDirection, code: Int32)
    /// Xrun recovery did not work (prepare or start failed, or xruns came back
    /// before a single period went through, too many times in a row).
    case recoveryFailed(StreamDirection, code: Int32)
    /// Any other error from a read, write or wait.
    case ioError(StreamDirection, code: Int32)

    /// The system's text for a negative errno code ("No such device").
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code < 0 ? -code : code))
    }

    public var description: String {
        switch self {
        case .requested: "stopped on request"
        case .endOfInput: "the input ended"
        case let .suspended(d): "\(d) device suspended by the system"
        case let .deviceLost(d, code): "\(d) device lost (\(Self.describe(code)))"
        case let .recoveryFailed(d, code): "\(d) device could not recover from an xrun (\(Self.describe(code)))"
        case let .ioError(d, code): "\(d) device error (\(Self.describe(code)))"
        }
    }
}
