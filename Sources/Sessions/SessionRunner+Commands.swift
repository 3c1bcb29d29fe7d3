import ALSA
import CommandLineInterface
import Engine
import Foundation
import Session

/// The commands' side of the session runner: this process's signals, and
/// the last line a command prints or throws.
extension SessionRunner {
    /// A runner that takes this process's signals (`StopSignals`), really
    /// stops it on Ctrl-Z, watches the devices as the driver says and opens
    /// the same route again with the same options when asked to.
    public convenience init(command: String, driver: any AudioDriver, engine: RenderEngine, policy: SessionPolicy) {
        self.init(command: command, driver: driver, engine: engine, policy: policy, watcher: driver.makeDeviceWatcher(),
                  takeSignals: { StopSignals.take() }, suspendProcess: { StopSignals.stopProcess() })
    }

    /// Says the last line (exit 0) or throws it as the one-line error (exit 1).
    /// - Parameter consequence: what the loss meant, e.g. "; the mic is off".
    public func report(quitKey: String, consequence: String, output: SessionOutput = .standard) throws {
        switch state {
        case .stopped(.user):
            output.line("busker \(command): stopped (\(quitKey)). xruns: \(xruns)")
        case let .stopped(.signal(s)):
            output.line("busker \(command): stopped by \(s). xruns: \(xruns)")
        case .stopped(.songEnded):
            output.line("busker \(command): the song ended. xruns: \(xruns)")
        case let .stopped(.deviceLost(what)):
            throw SessionError.failed("stopped: device lost: \(what)\(consequence). xruns: \(xruns)")
        case let .stopped(.error(what)):
            throw SessionError.failed("stopped: device error: \(what)\(consequence). xruns: \(xruns)")
        case .stopped(.interrupted):
            // Headless: nobody could press space. --auto-resume is the way to keep going by itself.
            throw SessionError.failed("\(state.statusText)\(consequence) (--auto-resume restarts by itself). xruns: \(xruns)")
        case let .failed(failure):
            throw SessionError.failed(failure.message)
        default:
            output.line("busker \(command): \(state.statusText). xruns: \(xruns)")
        }
    }
}

