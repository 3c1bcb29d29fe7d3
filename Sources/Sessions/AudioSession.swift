import AudioFiles
import Chains
import CommandLineInterface
import DSP
import Engine
import Foundation
import OfflineDrivers
import Recording
import Sequencing
import Session

/// One session of Busker's audio, on devices or on files: the only place
/// that opens a driver and builds a runner. From a `SessionDescription` it
/// checks every file the user named, opens the driver the options choose,
/// builds the chain from the sources for what the driver granted, attaches
/// the MIDI sources (with the driver's own MIDI input), puts the recording
/// tap at the chain's end and makes the session runner that carries out the
/// device-event state machine.
///
/// On devices, `start()` starts audio, the song and the first take; a
/// control loop (a screen, or the `--no-tui` loop) then runs the session;
/// `finish()` closes it and says or throws the last line. On files,
/// `runFile` or `renderSong` runs the offline driver to its end, as fast
/// as the machine allows.
///
/// `busker live`, `play`, `record` and `render` differ only in the
/// description they hand it. Everything it has to say goes to its `SessionOutput`.
public final class AudioSession {
    public let setup: SessionDescription
    public let output: SessionOutput
    public let engine = RenderEngine()
    public let chain: SessionChain
    public let runner: SessionRunner
    /// At the chain's end, when anything records: a take holds exactly what the speaker gets.
    public let tap: RecordingTap?
    /// Ctrl-R's and `--record`'s takes (nil when the command records itself).
    public let takes: TakeControl?
    public let midi: MIDISources?
    /// The song, placed at the granted rate.
    public let player: MIDIFilePlayer?
    /// The backing song's transport, MIDI or audio (a stage's `--song`, `busker play`'s song).
    public var song: (any SongTransport)? {
        if case let .stage(stage) = chain { return stage.songTransport }
        return player
    }
    /// The first take's path (`--record`), checked before the driver opened.
    private let firstTake: String?
    /// Whether audio started: a session that never started has no mic to turn off.
    public private(set) var audioStarted = false
    /// The driver as opened: on files, the one `runFile`/`renderSong` runs.
    private let opened: OpenedDriver

    /// Checks the files, opens the driver, builds and installs the chain.
    /// Nothing sounds until `start()`.
    /// - Throws: `SessionError`: a file refused (before any device opens
    ///   and before the driver line), the driver refused, the chain could not be built.
    /// - Thread: control
    /// - Realtime: unsafe (opens devices, loads instruments)
    public init(_ given: SessionDescription, output: SessionOutput = .standard) throws {
        let checked = try Self.checkFiles(given, output: output)
        setup = checked.setup
        self.output = output
        firstTake = checked.firstTake
        midi = setup.sources.midi
        // On files the command decides what a signal does (a benchmark's Ctrl-C just ends it).
        if !setup.driver.isOffline { StopSignals.install(jobControl: setup.takesJobControl) }
        if let line = setup.driverLine { output.line("busker \(setup.command): \(line)") }
        opened = try setup.driver.open(captureChannels: setup.sources.captureChannels,
                                       midiInput: setup.sources.midi != nil,
                                       captureOnly: setup.sources.isCaptureOnly, directOutputs: setup.sources.directOutNames)
        let driver = opened.driver
        if let input = driver.midiInput { midi?.attach(input) }
        do {
            (chain, player) = try Self.buildChain(setup, song: checked.song, performance: checked.performance,
                                                  format: driver.format, output: output)
            (tap, takes) = try Self.installTaps(setup, chain: chain, firstTake: firstTake, format: driver.format)
            try Self.addDirectOuts(setup, chain: chain)
            if let observer = chain.cycleObserver { engine.attach(observer) }
            // An offline driver's plan is installed when it runs.
            if !setup.driver.isOffline { engine.install(try chain.compile(spec: driver.processSpec)) }
        } catch {
            driver.close()
            throw error
        }
        // Known once compiled (the limiter's look-ahead); a sound server's client publishes it on its ports.
        driver.ownLatencyFrames = chain.latencyFrames
        runner = SessionRunner(command: setup.command, driver: driver, engine: engine, policy: setup.policy)
        runner.noticeWithoutScreen = { [output, command = setup.command] text in
            output.line("busker \(command): \(text)")
            fflush(nil)
        }
        runner.rebuildGraph = Self.rebuild(chain: chain, engine: engine, takes: takes, launchRate: driver.format.sampleRate)
    }

    /// Starts the MIDI sources, the audio, the first take and the song, and
    /// says what runs. When the devices refuse, the runner holds why
    /// (`audioStarted` stays false) and `finish()` says it.
    /// - Throws: `SessionError.failed`: the first take could not start (the audio is closed again).
    public func start() throws {
        midi?.start()
        runner.send(.userStart)
        guard !runner.isOver else { return }
        audioStarted = true
        if firstTake != nil, let takes {
            do {
                try takes.start()
            } catch {
                midi?.stop()
                runner.close()
                throw SessionError.failed(error.description)
            }
        }
        startSong()
        for line in startLines { output.line("busker \(setup.command): \(line)") }
        // Every stop or loss closes the take (the state machine's finalize effect comes after the audio stopped).
        // A close left running on its thread holds its render thread in the dead library, if
        // anywhere: the tap is disarmed and not waited for, or the exit would miss its 2 s.
        if let takes { runner.finalizeRecording = { takes.stop(audioHasStopped: true) } }
    }

    /// Stops the MIDI sources, closes the devices and the take, says every
    /// take's summary and the last line (exit 0), or throws it (exit 1: the
    /// device stopped us, or a take stopped early).
    public func finish() throws {
        midi?.stop()
        runner.close()
        let ending = { try self.runner.report(quitKey: self.setup.quitKey, consequence: self.audioStarted ? self.setup.lossConsequence : "",
                                              output: self.output) }
        guard audioStarted else { return try ending() }
        takes?.stop(audioHasStopped: true)
        chain.collectRetired()
        guard let takes else { return try ending() }
        try takes.report(command: setup.command, output: output, ending: ending)
    }

    // MARK: Files

    /// The song's length at its tempo, in seconds (nil without a song).
    public var songSeconds: Double? {
        guard let player, let instruments = setup.sources.instruments else { return nil }
        return Double(player.lengthFrames) / Double(runner.driver.format.sampleRate) / Double(instruments.tempo)
    }

    /// Runs the input file through the chain into the output file, its
    /// output aligned with its input. The output is written beside the named
    /// file and renamed into place only when complete: a failure or an
    /// interruption leaves a file that was there as it was
    /// (`outputKeptNote` says which).
    /// - Parameter isInterrupted: asked every few milliseconds while the run
    ///   goes; true abandons it (nothing is written).
    /// - Throws: the file driver's: `AudioFileError`, `FileRenderDriver.Interrupted`;
    ///   `GraphError`; `SessionError.failed` for a session not on `.file`.
    /// - Thread: control
    /// - Realtime: unsafe (file I/O, starts threads)
    public func runFile(isInterrupted: () -> Bool = { false }) throws -> FileRenderDriver.Report {
        guard case let .file(driver) = opened else { throw SessionError.failed("\(setup.command): not a file session") }
        let plan = try chain.compile(spec: driver.processSpec)
        startSong()
        defer { chain.collectRetired() }
        // The session's engine: a stage's MIDI schedulers are attached to it.
        return try driver.run(engine: engine, isInterrupted: isInterrupted) { _, _ in (plan, chain.latencyFrames) }
    }

    /// On files: what became of the output file when the run did not
    /// complete ("OUT.wav was left as it was", "OUT.wav was not written").
    public var outputKeptNote: String {
        switch opened {
        case let .file(driver): driver.outputKeptNote
        case let .song(driver): driver.outputKeptNote
        case .device: ""
        }
    }

    /// Renders the song through the instruments and its tail into the output
    /// file, written beside it and renamed into place only when complete.
    /// - Parameters:
    ///   - interruption: asked while the render runs; a signal stops it
    ///     (nothing is written; a file at the output path is left as it was).
    ///   - progress: the seconds written so far, as they grow.
    /// - Throws: `SessionError.failed`: the file could not be written, or
    ///   the render was interrupted; the line says what became of the output file.
    /// - Thread: control
    /// - Realtime: unsafe (file I/O, starts threads)
    public func renderSong(interruption: () -> ProcessSignal? = { nil }, progress: (Double) -> Void = { _ in })
        throws -> SongRenderDriver.Report {
        guard case let .song(driver) = opened, let player, let instruments = setup.sources.instruments,
              case let .instruments(rig) = chain else { throw SessionError.failed("\(setup.command): not a song session") }
        let rate = driver.options.engineRate
        let plan = try chain.compile(spec: driver.processSpec)
        player.play()
        let songFrames = Int((Double(player.lengthFrames) / Double(instruments.tempo)).rounded(.up))
        var signal: ProcessSignal?
        defer { rig.collectRetired() }
        do {
            return try driver.run(plan: plan, engine: engine, latencyFrames: chain.latencyFrames, songFrames: songFrames,
                                  isCancelled: { signal = interruption(); return signal != nil }) { written in
                progress(Double(written) / Double(rate))
            }
        } catch let error as AudioFileError {
            throw SessionError.failed(error.leavesOutputUntouched ? error.description : "\(error); \(driver.outputKeptNote)")
        } catch is SongRenderDriver.Cancelled {
            let percent = Int(min(1, Double(driver.framesWritten) / Double(max(1, songFrames))) * 100)
            throw SessionError.failed("interrupted by \(signal.map(String.init(describing:)) ?? "a signal") at \(percent) %; "
                                           + driver.outputKeptNote)
        }
    }

    // MARK: Steps

    /// The song from the top, or from `--from`'s bar (where it waits paused),
    /// and on files what the player plays.
    private func startSong() {
        if setup.sources.instruments?.fromBar != nil, let player {
            player.resume()
        } else {
            song?.playFromTop()
        }
        if case let .stage(stage) = chain { stage.performance?.play() }
    }

    /// What the session says once audio runs: what was granted, the
    /// instruments, MIDI, real-time scheduling and the take.
    private var startLines: [String] {
        let driver = runner.driver
        var lines: [String] = []
        switch chain {
        case let .instruments(rig):
            lines.append("\(driver.summary); \(rig.summary)")
        case let .stage(stage):
            let extra = chain.latencyFrames > 0 && !driver.publishesOwnLatency ? " + chain latency \(chain.latencyFrames) frames" : ""
            lines.append(driver.summary + extra)
            lines.append("keys: \(stage.keys.summary)")
            if let song = stage.song, let name = setup.sources.instruments?.songName {
                lines.append("song: \(name) on its own sampler (\(song.memorySummary))")
            }
            if let backing = stage.backing, let name = setup.sources.instruments?.songName {
                lines.append("song: \(name), \(String(format: "%.1f", backing.durationSeconds)) s streamed from disk")
            }
        default:
            // A sound server's client counts Busker's own latency already.
            let extra = chain.latencyFrames > 0 && !driver.publishesOwnLatency ? " + chain latency \(chain.latencyFrames) frames" : ""
            lines.append(driver.summary + extra)
        }
        lines += midi?.notices ?? []
        if let input = driver.midiInput { lines.append(input.patchHint) }
        if let notice = driver.realtimeNotice { lines.append(notice) }
        if let path = takes?.recorder?.path { lines.append("recording to \(path)") }
        return lines
    }

    /// Every file the user named, checked before any device opens: the
    /// instruments' SoundFont and kit, the song, the take's path.
    private static func checkFiles(_ given: SessionDescription, output: SessionOutput)
        throws -> (setup: SessionDescription, song: SongFile?, performance: SongFile?, firstTake: String?) {
        var setup = given
        var song: SongFile?
        var performance: SongFile?
        var protecting: [String] = []
        if var instruments = setup.sources.instruments {
            // The SoundFont, the kit and an instrument the font names are found before the song is read.
            try instruments.options.resolveFiles()
            setup.sources.instruments = instruments
            // A stage's song may be audio: checked by opening it, and streamed once the rate is known.
            let audioSong = setup.sources.strips != nil && instruments.songPath.map { !SongFile.looksLikeMIDI(path: $0) } == true
            if audioSong, let path = instruments.songPath {
                do {
                    _ = try SoundFileReader(path: path, acceptsTruncation: true)
                } catch {
                    throw SessionError.failed(error.description)
                }
            } else {
                song = try instruments.songPath.map { try SongFile(path: $0) }
            }
            // The server's rate is known once the client is open; any rate reads the file the same.
            var checkRate = 48000
            if case .alsa(let alsa) = setup.driver { checkRate = alsa.sampleRate }
            if let checked = try song?.player(sampleRate: checkRate) { try instruments.prepare(checked) }
            if let warning = song?.warning { output.warning("busker \(setup.command): warning: \(warning)") }
            performance = try instruments.performancePath.map { try SongFile(path: $0) }
            _ = try performance?.player(sampleRate: checkRate)
            if let warning = performance?.warning { output.warning("busker \(setup.command): warning: \(warning)") }
            protecting = instruments.songPath.map { [$0] } ?? []
        }
        var firstTake: String?
        if let recording = setup.recording, recording.enabled {
            firstTake = try recording.resolvePath(companions: setup.sources.instruments == nil ? [] : [".mid"], protecting: protecting)
        }
        return (setup, song, performance, firstTake)
    }

    /// The chain for the granted format: the live strips and bus, the
    /// instruments (with the song placed at the granted rate), or the input as it is.
    private static func buildChain(_ setup: SessionDescription, song: SongFile?, performance: SongFile?, format: AudioFormat,
                                   output: SessionOutput)
        throws -> (SessionChain, MIDIFilePlayer?) {
        let sources = setup.sources
        if let strips = sources.strips, let instruments = sources.instruments {
            let stage = try buildStage(setup, strips: strips, instruments: instruments, song: song, performance: performance,
                                       format: format, output: output)
            return (.stage(stage), stage.song?.scheduler.filePlayer)
        }
        if let strips = sources.strips {
            let chain = try LiveChain(inputChannelCount: max(1, format.inputChannels), settings: strips,
                                      outputChannelCount: format.outputChannels == 1 ? 1 : 2,
                                      limiterLookaheadMilliseconds: sources.limiterLookaheadMilliseconds ?? 0)
            return (.live(chain), nil)
        }
        if let instruments = sources.instruments {
            let player = try song?.player(sampleRate: format.sampleRate)
            player?.isLooping = instruments.loop
            player?.tempoScale = Double(instruments.tempo)
            let rig = try InstrumentRig(options: instruments.options, ports: sources.midi?.ports ?? [], player: player,
                                        sampleRate: Double(format.sampleRate), settings: instruments.settings,
                                        limiterLookaheadMilliseconds: sources.limiterLookaheadMilliseconds ?? 0)
            for warning in rig.warnings { output.warning("busker \(setup.command): warning: \(warning)") }
            return (.instruments(rig), player)
        }
        let graph = AudioGraph(inputChannelCount: max(1, format.inputChannels))
        graph.output = graph.input
        return (.capture(graph), nil)
    }

    /// The stage: the player's instruments on the MIDI sources, the song on
    /// a sampler of its own (the SoundFont's percussion on its channel 10),
    /// both on strips after the mic's howl guard.
    private static func buildStage(_ setup: SessionDescription, strips: LiveSettings, instruments: SessionSources.Instruments,
                                   song: SongFile?, performance: SongFile?, format: AudioFormat,
                                   output: SessionOutput) throws -> StageChain {
        let rate = Double(format.sampleRate)
        let keys = try InstrumentParts(options: instruments.options, ports: setup.sources.midi?.ports ?? [],
                                       player: try performance?.player(sampleRate: format.sampleRate), sampleRate: rate)
        var songParts: InstrumentParts?
        var backing: BackingTrackNode?
        if song == nil, let path = instruments.songPath {
            do {
                // On files the render waits for the reader; on devices a late disk is an underrun, counted.
                backing = try BackingTrackNode(path: path, sampleRate: format.sampleRate,
                                               pacing: setup.driver.isOffline ? .offline : .realtime)
            } catch {
                throw SessionError.failed(error.description)
            }
            if let section = instruments.section {
                do {
                    try backing?.setLoop(fromSeconds: section.lowerBound, toSeconds: section.upperBound)
                } catch {
                    throw SessionError.invalidRequest("--section: \(error)")
                }
            }
        }
        if let song {
            let player = try song.player(sampleRate: format.sampleRate)
            // Sought while stopped, the song waits paused at `--from`'s bar; `start` resumes it.
            try instruments.prepare(player)
            songParts = try InstrumentParts(options: StageChain.songOptions(from: instruments.options), ports: [], player: player,
                                            sampleRate: rate)
        }
        for warning in keys.warnings + (songParts?.warnings ?? []) {
            output.warning("busker \(setup.command): warning: \(warning)")
        }
        let live = try LiveChain(inputChannelCount: max(1, format.inputChannels), settings: strips,
                                 outputChannelCount: format.outputChannels == 1 ? 1 : 2,
                                 limiterLookaheadMilliseconds: setup.sources.limiterLookaheadMilliseconds ?? 0,
                                 parts: StageChain.parts(keys: keys, song: songParts, backing: backing))
        return StageChain(live: live, keys: keys, song: songParts, backing: backing)
    }

    /// The recording tap at the chain's end (seeing the scheduler's events
    /// when instruments play: audio and MIDI on one timeline) and, with
    /// `--stems`, the dry mic and each strip on taps of their own.
    private static func installTaps(_ setup: SessionDescription, chain: SessionChain, firstTake: String?, format: AudioFormat)
        throws -> (RecordingTap?, TakeControl?) {
        let rate = Double(format.sampleRate)
        guard let recording = setup.recording else {
            // The command records the input itself (`busker record`); anything else records nothing.
            guard setup.sources.isCaptureOnly else { return (nil, nil) }
            // Offline the tap waits for the writer rather than drop a frame.
            let tap = RecordingTap(channelCount: setup.sources.recordedChannels ?? chain.outputChannels, sampleRate: rate,
                                   waitsForWriter: setup.driver.isOffline)
            try tap.install(atEndOf: chain.graph)
            return (tap, nil)
        }
        let tap = TakeControl.makeTap(channels: chain.outputChannels, sampleRate: rate, midiEvents: chain.scheduler?.events)
        try tap.install(atEndOf: chain.graph)
        let takes: TakeControl
        if chain.scheduler != nil {
            // A stage's instruments reach the output through the bus alone (never a strip's voice processor);
            // the chain is not compiled yet, so its latency comes from the format.
            let midiLatency = chain.live.map { $0.busLatencyFrames(sampleRate: rate) } ?? chain.latencyFrames
            takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: format.sampleRate,
                                recordsMIDI: true, midiLatencyFrames: midiLatency,
                                protecting: setup.sources.instruments?.songPath.map { [$0] } ?? [])
        } else {
            takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: format.sampleRate)
        }
        if recording.stems, let live = chain.live {
            takes.stems = try Self.installStems(live, sharing: tap, format: format)
        }
        return (tap, takes)
    }

    /// `--stems`: the dry mic on a side branch of the capture input, each
    /// strip as processed (before pan and mute) on a branch of its last node
    /// (nodes off the output path still run), and a stage's parts before their faders.
    /// Each stem is delayed by the chain's latency after its branch point (the
    /// limiter's, and the voice processors' for the dry mic), so that every
    /// stem lines up with the mix frame for frame, as a take's parts must.
    private static func installStems(_ chain: LiveChain, sharing tap: RecordingTap, format: AudioFormat) throws -> [TakeControl.Stem] {
        let rate = Double(format.sampleRate)
        func stem(_ name: String, from output: AudioGraph.NodeID, channels: Int, delay: @escaping (ProcessSpec) -> Int) throws
            -> TakeControl.Stem {
            let recorder = TakeControl.makeTap(channels: channels, sampleRate: rate, sharing: tap)
            let aligned = chain.graph.add(FixedDelayNode(name: "\(name) stem delay", delayFrames: delay))
            try chain.graph.connect(output, to: aligned)
            try chain.graph.connect(aligned, to: chain.graph.add(recorder))
            return (name: name, tap: recorder)
        }
        let fromInput = chain.inputLatency, fromBus = chain.busLatency
        var stems = [try stem("mic", from: chain.graph.input, channels: max(1, format.inputChannels), delay: fromInput)]
        for (index, output) in chain.stripOutputs.enumerated() {
            stems.append(try stem("strip\(index + 1)", from: output, channels: 1, delay: fromBus))
        }
        // A stage's parts as they reach their faders, stereo.
        for (part, output) in zip(chain.stage?.parts ?? [], chain.stage?.partOutputs ?? []) {
            stems.append(try stem(part.name, from: output, channels: 2, delay: fromBus))
        }
        return stems
    }

    /// `--direct-outs`: the strips' and parts' own outputs after the main
    /// pair, on the ports the driver registered for them, in their order.
    /// - Throws: `SessionError.failed` when the chain's outputs are not the ports (a fault of Busker's).
    private static func addDirectOuts(_ setup: SessionDescription, chain: SessionChain) throws {
        guard setup.sources.directOuts, let live = chain.live else { return }
        let names = try live.addDirectOuts()
        guard names == setup.sources.directOutNames else {
            throw SessionError.failed("direct outs: the chain has \(names.joined(separator: ", ")), "
                                      + "the ports are \(setup.sources.directOutNames.joined(separator: ", "))")
        }
    }

    /// The chain compiled again for a driver's new format (a sound server's
    /// new buffer size, a device back at another rate). Instruments and a
    /// song are built for the launch rate (SamplerNode refuses another):
    /// rather than play at the wrong rate, the session stops. A take cannot
    /// change rate midway: the one in progress ends there, later ones use the new rate.
    private static func rebuild(chain: SessionChain, engine: RenderEngine, takes: TakeControl?, launchRate: Int)
        -> (any AudioDriver) throws -> Void {
        { driver in
            let newRate = driver.format.sampleRate
            if case .instruments = chain, newRate != launchRate {
                throw SessionError.failed("the output came back at \(newRate) Hz; busker play's instruments and song are built for \(launchRate) Hz and cannot change rate midway: start it again")
            }
            engine.releaseAll()
            engine.install(try chain.compile(spec: driver.processSpec))
            driver.ownLatencyFrames = chain.latencyFrames
            if let takes, takes.sampleRate != newRate {
                takes.stop(audioHasStopped: true)
                takes.sampleRate = newRate
            }
        }
    }
}
