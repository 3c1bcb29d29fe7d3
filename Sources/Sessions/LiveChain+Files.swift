import AudioFiles
import Chains
import CommandLineInterface
import Engine
import OfflineDrivers
import Session

extension LiveChain {
    /// Runs the live chain over a file offline (`busker live --input file:`,
    /// the benchmark), its output aligned with its input: an `AudioSession`
    /// on `.file`. The output is written beside the named file and renamed
    /// into place only when complete: a failure or an interruption leaves a
    /// file that was there as it was.
    /// - Parameters:
    ///   - outputChannelCount: 2, or 1 for a mono output file.
    ///   - interruption: asked every few milliseconds while the run goes; a
    ///     signal abandons it (nothing is written).
    /// - Throws: `SessionError.failed` with the one-line reason and what
    ///   became of the output file; `SessionError.invalidRequest` for a strip
    ///   reading a channel the file does not have.
    public static func renderFile(options: FileRenderDriver.Options, settings: LiveSettings, outputChannelCount: Int = 2,
                                  limiterLookaheadMilliseconds: Float = 1, instruments: SessionSources.Instruments? = nil,
                                  interruption: () -> ProcessSignal? = { nil }) throws -> FileRenderDriver.Report {
        let setup = SessionDescription(command: "live", driver: .file(options, outputChannels: outputChannelCount),
                                       sources: SessionSources(strips: settings, instruments: instruments,
                                                               limiterLookaheadMilliseconds: limiterLookaheadMilliseconds),
                                       recording: nil, policy: SessionPolicy(headless: true), quitKey: "Ctrl-C")
        let session = try AudioSession(setup)
        var signal: ProcessSignal?
        do {
            return try session.runFile(isInterrupted: { signal = interruption(); return signal != nil })
        } catch let error as AudioFileError {
            throw SessionError.failed(error.leavesOutputUntouched ? error.description : "\(error); \(session.outputKeptNote)")
        } catch let error as GraphError {
            throw SessionError.failed(error.description)
        } catch is FileRenderDriver.Interrupted {
            throw SessionError.failed("interrupted by \(signal.map(String.init(describing:)) ?? "a signal"); \(session.outputKeptNote)")
        }
    }
}
