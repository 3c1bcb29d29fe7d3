import Engine
import FileIO
import SpeechProcessing

extension VoiceChain {
    /// The voice chain for `settings`, with speexdsp's voice processing in it
    /// when the settings ask for it (only then: it adds 20 ms, so it is not
    /// carried switched off).
    public static func make(inputChannelCount: Int, settings: VoiceSettings,
                            limiterLookaheadMilliseconds: Float = 1) throws -> VoiceChain {
        try VoiceChain(inputChannelCount: inputChannelCount, settings: settings,
                       limiterLookaheadMilliseconds: limiterLookaheadMilliseconds,
                       voiceProcessor: settings.voiceProcessing ? VoiceProcessingNode() : nil)
    }

    /// Runs the voice chain over a file offline (`busker live --input file:`,
    /// the benchmark), its output aligned with its input.
    /// - Throws: `CommandLineError.runtime` with the one-line reason.
    public static func renderFile(options: FileRenderDriver.Options, settings: VoiceSettings,
                                  limiterLookaheadMilliseconds: Float = 1) throws -> FileRenderDriver.Report {
        do {
            let driver = try FileRenderDriver(options: options)
            return try driver.run { channels, spec in
                let chain = try make(inputChannelCount: channels, settings: settings,
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
