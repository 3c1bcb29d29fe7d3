import ALSA
import CommandLineInterface
import Engine
import Foundation
import JACK
import Session

/// The commands' side of the session runner: this process's signals, and
/// the last line a command prints or throws.
extension SessionRunner {
    /// A runner on an ALSA driver that takes this process's signals
    /// (`StopSignals`), really stops it on Ctrl-Z, watches the sound cards and
    /// opens the same route again with the same options when asked to.
    public convenience init(command: String, driver: DuplexDriver, engine: RenderEngine, policy: SessionPolicy) {
        let options = driver.options
        self.init(command: command, driver: driver, engine: engine, policy: policy,
                  watcher: DeviceWatcher(configuration: options.configuration, calls: options.calls),
                  takeSignals: { StopSignals.take() }, suspendProcess: { StopSignals.stopProcess() },
                  reopen: { try DuplexDriver(options: options) })
    }

    /// A runner on a JACK driver that takes this process's signals, watches
    /// for the server after a loss and opens a new client with the same
    /// options (`reopenOptions()`, read then) when asked to; `reopened` sees
    /// that client before it starts (JACK MIDI in plugs into it there).
    public convenience init(command: String, driver: JACKDriver, engine: RenderEngine, policy: SessionPolicy,
                            reopenOptions: @escaping () -> JACKDriver.Options,
                            reopened: @escaping (JACKDriver) -> Void = { _ in }) {
        self.init(command: command, driver: driver, engine: engine, policy: policy,
                  watcher: JACKServerWatcher(serverName: driver.options.serverName),
                  takeSignals: { StopSignals.take() }, suspendProcess: { StopSignals.stopProcess() },
                  reopen: {
                      let client = try JACKDriver(options: reopenOptions())
                      reopened(client)
                      return client
                  })
    }

    /// Prints the last line (exit 0) or throws it as the one-line error (exit 1).
    /// - Parameter consequence: what the loss meant, e.g. "; the mic is off".
    public func report(quitKey: String, consequence: String) throws {
        switch state {
        case .stopped(.user):
            print("busker \(command): stopped (\(quitKey)). xruns: \(xruns)")
        case let .stopped(.signal(s)):
            print("busker \(command): stopped by \(s). xruns: \(xruns)")
        case .stopped(.songEnded):
            print("busker \(command): the song ended. xruns: \(xruns)")
        case let .stopped(.deviceLost(what)):
            throw CommandLineError.runtime("stopped: device lost: \(what)\(consequence). xruns: \(xruns)")
        case let .stopped(.error(what)):
            throw CommandLineError.runtime("stopped: device error: \(what)\(consequence). xruns: \(xruns)")
        case .stopped(.interrupted):
            // Headless: nobody could press space. --auto-resume is the way to keep going by itself.
            throw CommandLineError.runtime("\(state.statusText)\(consequence) (--auto-resume restarts by itself). xruns: \(xruns)")
        case let .failed(failure):
            throw CommandLineError.runtime(failure.message)
        default:
            print("busker \(command): \(state.statusText). xruns: \(xruns)")
        }
    }
}

