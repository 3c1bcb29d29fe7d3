import Chains
import CommandLineInterface
import Engine
import FileIO
import Foundation
import Sequencing
import Session

/// `busker render`: a MIDI file through the instruments to an audio file,
/// offline, as fast as the machine allows. Made in two steps so that a
/// progress display can know the song's length before the render starts.
public final class SongRender {
    /// What `busker render` asks for.
    public struct Options {
        public var songPath: String
        public var driver: SongRenderDriver.Options
        public var settings: VoiceSettings
        public var instruments: InstrumentRig.Options
        public var tempo: Float = 1

        public init(songPath: String, driver: SongRenderDriver.Options, settings: VoiceSettings, instruments: InstrumentRig.Options) {
            self.songPath = songPath
            self.driver = driver
            self.settings = settings
            self.instruments = instruments
        }
    }

    public let options: Options
    private let player: MIDIFilePlayer
    /// The instruments the song plays through.
    public let rig: InstrumentRig

    /// Reads the song and loads the instruments; prints one warning line for
    /// a damaged song and one per kit problem.
    /// - Throws: `CommandLineError.runtime`: an unreadable song; `ChainError`: a missing
    ///   SoundFont or kit, an instrument or kit name nothing has (`InstrumentRig.Options.resolveFiles()`).
    public init(options given: Options) throws {
        // The SoundFont, the kit and an instrument the font names are found before the song is read.
        var options = given
        try options.instruments.resolveFiles()
        self.options = options
        let rate = options.driver.engineRate
        let song = try SongFile(path: options.songPath)
        player = try song.player(sampleRate: rate)
        if let warning = song.warning { printError("busker render: warning: \(warning)") }
        player.tempoScale = Double(options.tempo)
        rig = try InstrumentRig(options: options.instruments, ports: [], player: player, sampleRate: Double(rate),
                                settings: options.settings, limiterLookaheadMilliseconds: 1)
        for warning in rig.warnings { printError("busker render: warning: \(warning)") }
    }

    /// The song's length at its tempo, in seconds.
    public var songSeconds: Double {
        Double(player.lengthFrames) / Double(options.driver.engineRate) / Double(options.tempo)
    }

    /// Renders the song and its tail to the output file, written beside it
    /// and renamed into place only when complete.
    /// - Parameters:
    ///   - interruption: asked while the render runs; a signal stops it
    ///     (nothing is written; a file at the output path is left as it was).
    ///   - progress: the seconds written so far, as they grow.
    /// - Returns: the summary line.
    /// - Throws: `CommandLineError.runtime`: the file could not be written, or
    ///   the render was interrupted; the line says what became of the output file.
    public func run(interruption: () -> ProcessSignal?, progress: (Double) -> Void) throws -> String {
        let rate = options.driver.engineRate
        let spec = ProcessSpec(sampleRate: Double(rate), maximumBlockSize: options.driver.blockSize)
        let plan = try rig.chain.compile(spec: spec)
        let driver = SongRenderDriver(options: options.driver)
        let engine = RenderEngine()
        engine.attach(rig.scheduler)
        player.play()
        let report: SongRenderDriver.Report
        let songFrames = Int((Double(player.lengthFrames) / Double(options.tempo)).rounded(.up))
        var signal: ProcessSignal?
        do {
            report = try driver.run(plan: plan, engine: engine, latencyFrames: rig.chain.latencyFrames, songFrames: songFrames,
                                    isCancelled: { signal = interruption(); return signal != nil }) { written in
                progress(Double(written) / Double(rate))
            }
        } catch let error as AudioFileError {
            throw CommandLineError.runtime(error.leavesOutputUntouched ? error.description : "\(error); \(driver.outputKeptNote)")
        } catch is SongRenderDriver.Cancelled {
            let percent = Int(min(1, Double(driver.framesWritten) / Double(max(1, songFrames))) * 100)
            throw CommandLineError.runtime("interrupted by \(signal.map(String.init(describing:)) ?? "a signal") at \(percent) %; "
                                           + driver.outputKeptNote)
        }
        rig.collectRetired()
        return "busker render: \(options.songPath) → \(options.driver.outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz, "
            + "\(rig.summary); \(String(format: "%.2f", report.wallSeconds)) s, \(Int(report.realtimeFactor.rounded()))× real time "
            + "on thread \(report.renderThreadName)"
            + (engine.silencedBlockCount > 0 ? "; " + engine.silencedAudio().description(sampleRate: rate) : "")
    }
}
