import ALSA
import Chains
import CommandLineInterface
import Engine
import Foundation
import JACK
import Sequencing
import Session

/// `busker play`, everything but the screen: reads the song, opens the
/// output (an ALSA PCM, or a JACK client with `out_L`, `out_R` and
/// `midi_in`), loads the instruments, connects the MIDI sources, makes the
/// session runner and starts audio and the song. A control loop
/// (TerminalUI's `PlaySession`) then runs the session; `finish()` closes it
/// and prints or throws the last line.
public final class PlayRig {
    /// What `busker play` asks for.
    public struct Options {
        /// ALSA playback, or a JACK client (its `midi_in` joins the MIDI sources).
        public var driver: AudioDriverChoice
        public var settings: VoiceSettings
        public var instruments: InstrumentRig.Options
        public var recording: RecordingRequest
        public var songPath: String?
        /// `--midi` and `--midi-in` (see `MIDISources`).
        public var midi: [String] = []
        public var midiIn: String?
        public var loop = false
        public var tempo: Float = 1
        public var limiterLookaheadMilliseconds: Float = 1
        public var policy: SessionPolicy
        /// Which driver runs and why (`AudioDriverChoice.parse`), printed just
        /// before the device opens: after every check of the arguments and files.
        public var driverLine: String?

        public init(driver: AudioDriverChoice, settings: VoiceSettings, instruments: InstrumentRig.Options,
                    recording: RecordingRequest, policy: SessionPolicy) {
            self.driver = driver
            self.settings = settings
            self.instruments = instruments
            self.recording = recording
            self.policy = policy
        }
    }

    public let options: Options
    public let sources: MIDISources
    public let rig: InstrumentRig
    public let player: MIDIFilePlayer?
    public let engine = RenderEngine()
    public let runner: SessionRunner
    public let takes: TakeControl
    /// Whether audio started.
    public private(set) var audioStarted = false

    /// - Throws: `CommandLineError`: a missing SoundFont or kit, an unknown
    ///   instrument, a bad song or take path (all before any device opens
    ///   and before the driver line), the device refused, the instruments
    ///   did not load.
    public init(options given: Options) throws {
        // The SoundFont, the kit and an instrument the font names are found before the song is read.
        var options = given
        try options.instruments.resolveFiles()
        self.options = options
        let recording = options.recording
        // Read the song before any device opens, so a bad file is one line and nothing else.
        let songPath = options.songPath
        let song = try songPath.map { try SongFile(path: $0) }
        // The server's rate is known once the client is open; any rate reads the file the same.
        var checkRate = 48000
        if case .alsa(let alsa) = options.driver { checkRate = alsa.sampleRate }
        _ = try song?.player(sampleRate: checkRate)
        if let warning = song?.warning { printError("busker play: warning: \(warning)") }
        // A take's folder and name are checked before any device opens.
        let firstTake = recording.enabled ? try recording.resolvePath(companions: [".mid"], protecting: songPath.map { [$0] } ?? []) : nil
        var jackOptions: JACKDriver.Options?
        if case .jack(var jack) = options.driver {
            // Playback and MIDI in: no audio inputs.
            jack.inputChannels = 0
            jack.midiInput = true
            jackOptions = jack
        }
        let sources = try MIDISources(midi: options.midi, midiIn: options.midiIn, jackMIDI: jackOptions != nil)
        self.sources = sources
        // Which driver, and why: said once every argument and file is checked, just before it opens.
        if let line = options.driverLine { print("busker play: \(line)") }
        StopSignals.install(jobControl: true)
        let driver: any AudioDriver
        switch options.driver {
        case .alsa(let alsa):
            driver = try DuplexDriver.openForCommand(alsa)
        case .jack:
            let jack = try JACKDriver.openForCommand(jackOptions!)
            if let midi = sources.jack, !midi.plug(into: jack) {
                jack.close()
                throw CommandLineError.runtime("JACK client \(jack.clientName): cannot follow \(JACKMIDIInput.portName)'s connections")
            }
            driver = jack
        }
        let rate = Double(driver.format.sampleRate)
        let player = try song?.player(sampleRate: driver.format.sampleRate)
        player?.isLooping = options.loop
        player?.tempoScale = Double(options.tempo)
        self.player = player
        let rig = try InstrumentRig(options: options.instruments, ports: sources.ports, player: player, sampleRate: rate,
                                    settings: options.settings, limiterLookaheadMilliseconds: options.limiterLookaheadMilliseconds)
        self.rig = rig
        for warning in rig.warnings { printError("busker play: warning: \(warning)") }
        let engine = engine
        engine.attach(rig.scheduler)
        // The recording tap ends the chain and sees the scheduler's events: audio and MIDI on one timeline.
        let tap = TakeControl.makeTap(channels: 2, sampleRate: rate, midiEvents: rig.scheduler.events)
        try tap.install(atEndOf: rig.chain.graph)
        engine.install(try rig.chain.compile(spec: driver.processSpec))
        let runner: SessionRunner
        if let jack = driver as? JACKDriver {
            // Busker's own latency (the limiter's look-ahead), published on its ports.
            jack.ownLatencyFrames = rig.chain.latencyFrames
            var reopenOptions = jack.options
            reopenOptions.ownLatencyFrames = rig.chain.latencyFrames
            let midi = sources.jack
            // A client opened again after a loss (--reconnect) gets midi_in read and followed too.
            runner = SessionRunner(command: "play", driver: jack, engine: engine, policy: options.policy,
                                   reopenOptions: { reopenOptions }, reopened: { midi?.plug(into: $0) })
        } else {
            runner = SessionRunner(command: "play", driver: driver as! DuplexDriver, engine: engine, policy: options.policy)
        }
        self.runner = runner
        let takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: driver.format.sampleRate,
                                recordsMIDI: true, midiLatencyFrames: rig.chain.latencyFrames, protecting: songPath.map { [$0] } ?? [])
        self.takes = takes
        runner.rebuildGraph = { driver in
            // The sampler's synths, the drum kit and the song's event frames are built for the
            // launch rate (SamplerNode refuses another); rather than play at the wrong rate, stop.
            let newRate = driver.format.sampleRate
            guard newRate == Int(rate) else {
                throw CommandLineError.runtime("the output came back at \(newRate) Hz; busker play's instruments and song are built for \(Int(rate)) Hz and cannot change rate midway: start it again")
            }
            engine.releaseAll()
            engine.install(try rig.chain.compile(spec: driver.processSpec))
            (driver as? JACKDriver)?.ownLatencyFrames = rig.chain.latencyFrames
        }
        sources.start()
        runner.send(.userStart)
        guard !runner.isOver else { return }
        audioStarted = true
        if firstTake != nil {
            do {
                try takes.start()
            } catch {
                sources.stop()
                runner.close()
                throw CommandLineError.runtime(error.description)
            }
        }
        player?.play()
        printEscaped("busker play: \(runner.driver.summary); \(rig.summary)")
        for notice in sources.notices { print("busker play: \(notice)") }
        if sources.jack != nil, let jack = runner.driver as? JACKDriver {
            print("busker play: MIDI in on \(jack.clientName):\(JACKMIDIInput.portName) (patch a source to it: jack_connect SOURCE \(jack.clientName):\(JACKMIDIInput.portName))")
        }
        if let notice = runner.driver.realtimeNotice { print("busker play: \(notice)") }
        if let path = takes.recorder?.path { print("busker play: recording to \(path)") }
        // Every stop or loss closes the take (the state machine's finalize effect comes after the audio stopped).
        // A close left running on its thread holds its render thread in the dead library, if
        // anywhere: the tap is disarmed and not waited for, or the exit would miss its 2 s.
        runner.finalizeRecording = { takes.stop(audioHasStopped: true) }
    }

    /// The song's file name, for the screen.
    public var songName: String? { options.songPath.map { ($0 as NSString).lastPathComponent } }

    /// Stops the MIDI sources, closes the output and the take, prints every
    /// take's summary and the last line (exit 0), or throws it (exit 1).
    public func finish() throws {
        sources.stop()
        runner.close()
        guard audioStarted else { return try runner.report(quitKey: "esc", consequence: "") }
        takes.stop(audioHasStopped: true)
        rig.collectRetired()
        try takes.report(command: "play") {
            try runner.report(quitKey: "esc", consequence: "")
        }
    }
}
