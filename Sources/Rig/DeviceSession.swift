import Engine
import Foundation
import Recording
import Sequencing
import Session

/// One session on a device: the only place that opens a driver and builds
/// a runner. From a `SessionDescription` it checks every file the user
/// named, opens the driver the options choose, builds the chain from the
/// sources for what the driver granted, attaches the MIDI sources (with the
/// driver's own MIDI input), puts the recording tap at the chain's end and
/// makes the session runner that carries out the device-event state
/// machine. `start()` starts audio, the song and the first take; a control
/// loop (a screen, or the `--no-tui` loop) then runs the session; `finish()`
/// closes it and says or throws the last line.
///
/// `busker live`, `play` and `record` differ only in the description they
/// hand it. Everything it has to say goes to its `SessionOutput`.
public final class DeviceSession {
    public let setup: SessionDescription
    public let output: SessionOutput
    public let engine = RenderEngine()
    public let chain: SessionChain
    public let runner: SessionRunner
    /// At the chain's end: a take holds exactly what the speaker gets.
    public let tap: RecordingTap
    /// Ctrl-R's and `--record`'s takes (nil when the command records itself).
    public let takes: TakeControl?
    public let midi: MIDISources?
    /// The song, placed at the granted rate.
    public let player: MIDIFilePlayer?
    /// The first take's path (`--record`), checked before the driver opened.
    private let firstTake: String?
    /// Whether audio started: a session that never started has no mic to turn off.
    public private(set) var audioStarted = false

    /// Checks the files, opens the driver, builds and installs the chain.
    /// Nothing sounds until `start()`.
    /// - Throws: `CommandLineError`: a file refused (before any device opens
    ///   and before the driver line), the driver refused, the chain could not be built.
    /// - Thread: control
    /// - Realtime: unsafe (opens devices, loads instruments)
    public init(_ given: SessionDescription, output: SessionOutput = .standard) throws {
        let checked = try Self.checkFiles(given, output: output)
        setup = checked.setup
        self.output = output
        firstTake = checked.firstTake
        midi = setup.sources.midi
        StopSignals.install(jobControl: setup.takesJobControl)
        if let line = setup.driverLine { output.line("busker \(setup.command): \(line)") }
        let driver = try setup.driver.open(captureChannels: setup.sources.captureChannels,
                                           midiInput: setup.sources.midi != nil,
                                           captureOnly: setup.sources.strips == nil && setup.sources.instruments == nil)
        if let input = driver.midiInput { midi?.attach(input) }
        do {
            (chain, player) = try Self.buildChain(setup, song: checked.song, format: driver.format, output: output)
            (tap, takes) = try Self.installTaps(setup, chain: chain, firstTake: firstTake, format: driver.format)
            if let scheduler = chain.scheduler { engine.attach(scheduler) }
            engine.install(try chain.compile(spec: driver.processSpec))
        } catch {
            driver.close()
            throw error
        }
        // Known once compiled (the limiter's look-ahead); a sound server's client publishes it on its ports.
        driver.ownLatencyFrames = chain.latencyFrames
        runner = SessionRunner(command: setup.command, driver: driver, engine: engine, policy: setup.policy)
        runner.rebuildGraph = Self.rebuild(chain: chain, engine: engine, takes: takes, launchRate: driver.format.sampleRate)
    }

    /// Starts the MIDI sources, the audio, the first take and the song, and
    /// says what runs. When the devices refuse, the runner holds why
    /// (`audioStarted` stays false) and `finish()` says it.
    /// - Throws: `CommandLineError.runtime`: the first take could not start (the audio is closed again).
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
                throw CommandLineError.runtime(error.description)
            }
        }
        player?.play()
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
        if case let .instruments(rig) = chain { rig.collectRetired() }
        guard let takes else { return try ending() }
        try takes.report(command: setup.command, output: output, ending: ending)
    }

    // MARK: Steps

    /// What the session says once audio runs: what was granted, the
    /// instruments, MIDI, real-time scheduling and the take.
    private var startLines: [String] {
        let driver = runner.driver
        var lines: [String] = []
        switch chain {
        case let .instruments(rig):
            lines.append("\(driver.summary); \(rig.summary)")
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
        throws -> (setup: SessionDescription, song: SongFile?, firstTake: String?) {
        var setup = given
        var song: SongFile?
        var protecting: [String] = []
        if var instruments = setup.sources.instruments {
            // The SoundFont, the kit and an instrument the font names are found before the song is read.
            try instruments.options.resolveFiles()
            setup.sources.instruments = instruments
            song = try instruments.songPath.map { try SongFile(path: $0) }
            // The server's rate is known once the client is open; any rate reads the file the same.
            var checkRate = 48000
            if case .alsa(let alsa) = setup.driver { checkRate = alsa.sampleRate }
            _ = try song?.player(sampleRate: checkRate)
            if let warning = song?.warning { output.warning("busker \(setup.command): warning: \(warning)") }
            protecting = instruments.songPath.map { [$0] } ?? []
        }
        var firstTake: String?
        if let recording = setup.recording, recording.enabled {
            firstTake = try recording.resolvePath(companions: setup.sources.instruments == nil ? [] : [".mid"], protecting: protecting)
        }
        return (setup, song, firstTake)
    }

    /// The chain for the granted format: the live strips and bus, the
    /// instruments (with the song placed at the granted rate), or the input as it is.
    private static func buildChain(_ setup: SessionDescription, song: SongFile?, format: AudioFormat, output: SessionOutput)
        throws -> (SessionChain, MIDIFilePlayer?) {
        let sources = setup.sources
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

    /// The recording tap at the chain's end (seeing the scheduler's events
    /// when instruments play: audio and MIDI on one timeline) and, with
    /// `--stems`, the dry mic and each strip on taps of their own.
    private static func installTaps(_ setup: SessionDescription, chain: SessionChain, firstTake: String?, format: AudioFormat)
        throws -> (RecordingTap, TakeControl?) {
        let rate = Double(format.sampleRate)
        guard let recording = setup.recording else {
            let tap = RecordingTap(channelCount: chain.outputChannels, sampleRate: rate)
            try tap.install(atEndOf: chain.graph)
            return (tap, nil)
        }
        let tap = TakeControl.makeTap(channels: chain.outputChannels, sampleRate: rate, midiEvents: chain.scheduler?.events)
        try tap.install(atEndOf: chain.graph)
        let takes: TakeControl
        if case .instruments = chain {
            takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: format.sampleRate,
                                recordsMIDI: true, midiLatencyFrames: chain.latencyFrames,
                                protecting: setup.sources.instruments?.songPath.map { [$0] } ?? [])
        } else {
            takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: format.sampleRate)
        }
        if recording.stems, case let .live(live) = chain {
            takes.stems = try Self.installStems(live, sharing: tap, format: format)
        }
        return (tap, takes)
    }

    /// `--stems`: the dry mic on a side branch of the capture input, and each
    /// strip as processed (before pan and mute) on a branch of its last node
    /// (nodes off the output path still run).
    private static func installStems(_ chain: LiveChain, sharing tap: RecordingTap, format: AudioFormat) throws -> [TakeControl.Stem] {
        let rate = Double(format.sampleRate)
        let dry = TakeControl.makeTap(channels: max(1, format.inputChannels), sampleRate: rate, sharing: tap)
        try chain.graph.connect(chain.graph.input, to: chain.graph.add(dry))
        var stems: [TakeControl.Stem] = [(name: "mic", tap: dry)]
        for (index, output) in chain.stripOutputs.enumerated() {
            let strip = TakeControl.makeTap(channels: 1, sampleRate: rate, sharing: tap)
            try chain.graph.connect(output, to: chain.graph.add(strip))
            stems.append((name: "strip\(index + 1)", tap: strip))
        }
        return stems
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
                throw CommandLineError.runtime("the output came back at \(newRate) Hz; busker play's instruments and song are built for \(launchRate) Hz and cannot change rate midway: start it again")
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
