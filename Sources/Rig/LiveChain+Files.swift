import Engine
import FileIO

extension LiveChain {
    /// Runs the live chain over a file offline (`busker live --input file:`,
    /// the benchmark), its output aligned with its input.
    /// - Parameter outputChannelCount: 2, or 1 for a mono output file.
    /// - Throws: `CommandLineError.runtime` with the one-line reason;
    ///   `CommandLineError.usage` for a strip reading a channel the file does not have.
    public static func renderFile(options: FileRenderDriver.Options, settings: LiveSettings, outputChannelCount: Int = 2,
                                  limiterLookaheadMilliseconds: Float = 1) throws -> FileRenderDriver.Report {
        do {
            let driver = try FileRenderDriver(options: options)
            return try driver.run { channels, spec in
                let chain = try LiveChain(inputChannelCount: channels, settings: settings, outputChannelCount: outputChannelCount,
                                          limiterLookaheadMilliseconds: limiterLookaheadMilliseconds)
                return (try chain.compile(spec: spec), chain.latencyFrames)
            }
        } catch let error as AudioFileError {
            throw CommandLineError.runtime(error.description)
        } catch let error as GraphError {
            throw CommandLineError.runtime(error.description)
        }
    }
}
