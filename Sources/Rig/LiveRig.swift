import ALSA
import Chains
import CommandLineInterface
import Engine
import Foundation
import JACK
import Session

/// `busker live` on ALSA devices or as a JACK client, everything but the
/// screen: opens the devices (or the client), builds the live chain (its channel strips) for what they granted (with the recording
/// tap at its end and, for `--stems`, one on the dry mic), makes the session
/// runner and starts audio. A control loop (TerminalUI's `LiveSession`) then
/// runs the session; `finish()` closes it and prints or throws the last line.
public final class LiveRig {
    /// What `busker live` asks for.
    public struct Options {
        public var driver: AudioDriverChoice
        public var settings: LiveSettings
        public var recording: RecordingRequest
        /// nil: none on devices (an instant attack, no added delay).
        public var limiterLookaheadMilliseconds: Float?
        public var policy: SessionPolicy
        /// With `--driver jack`: `midi_in`'s reader (the MIDI control's, `LiveMIDIControl.sources.jack`).
        public var jackMIDI: JACKMIDIInput?

        public init(driver: AudioDriverChoice, settings: LiveSettings, recording: RecordingRequest,
                    limiterLookaheadMilliseconds: Float?, policy: SessionPolicy) {
            self.driver = driver
            self.settings = settings
            self.recording = recording
            self.limiterLookaheadMilliseconds = limiterLookaheadMilliseconds
            self.policy = policy
        }
    }

    public let options: Options
    public let chain: LiveChain
    public let engine = RenderEngine()
    public let runner: SessionRunner
    public let takes: TakeControl
    /// Whether audio started: a session that never started has no mic to turn off.
    public private(set) var audioStarted = false

    /// Opens the devices, builds and installs the chain, starts audio and,
    /// with `--record`, the first take; prints the start-up lines.
    /// - Throws: `CommandLineError`: the take's path refused (before any
    ///   device opens), the devices refused, the take could not start.
    public init(options: Options) throws {
        self.options = options
        let recording = options.recording
        // A take's folder and name are checked before any device opens.
        let firstTake = recording.enabled ? try recording.resolvePath() : nil

        StopSignals.install(jobControl: true)
        // Enough capture channels for the highest strip input; up to two the device's own choice stands.
        let highest = options.settings.strips.flatMap(\.channels).max() ?? 1
        let driver: any AudioDriver
        switch options.driver {
        case .alsa(var alsa):
            if highest > 2 && alsa.captureChannels == nil { alsa.captureChannels = highest }
            driver = try DuplexDriver.openForCommand(alsa)
        case .jack(var jack):
            jack.inputChannels = max(jack.inputChannels, highest)
            jack.midiInput = options.jackMIDI != nil
            let client = try JACKDriver.openForCommand(jack)
            if let midi = options.jackMIDI, !midi.plug(into: client) {
                client.close()
                throw CommandLineError.runtime("JACK client \(client.clientName): cannot follow \(JACKMIDIInput.portName)'s connections")
            }
            driver = client
        }
        let granted = driver.format
        let chain: LiveChain
        do {
            chain = try LiveChain(inputChannelCount: max(1, granted.inputChannels), settings: options.settings,
                                  outputChannelCount: granted.outputChannels == 1 ? 1 : 2,
                                  limiterLookaheadMilliseconds: options.limiterLookaheadMilliseconds ?? 0)
        } catch {
            driver.close()
            throw error
        }
        self.chain = chain
        // The recording tap ends the chain: a take holds exactly what the speaker gets.
        let tap = TakeControl.makeTap(channels: chain.master.outputChannels, sampleRate: Double(granted.sampleRate))
        try tap.install(atEndOf: chain.graph)
        // --stems: the dry mic on a side branch of the capture input, and each strip as processed
        // (before pan and mute) on a branch of its last node (nodes off the output path still run).
        var stems: [TakeControl.Stem] = []
        if recording.stems {
            let rate = Double(granted.sampleRate)
            let dry = TakeControl.makeTap(channels: max(1, granted.inputChannels), sampleRate: rate, sharing: tap)
            try chain.graph.connect(chain.graph.input, to: chain.graph.add(dry))
            stems.append((name: "mic", tap: dry))
            for (index, output) in chain.stripOutputs.enumerated() {
                let strip = TakeControl.makeTap(channels: 1, sampleRate: rate, sharing: tap)
                try chain.graph.connect(output, to: chain.graph.add(strip))
                stems.append((name: "strip\(index + 1)", tap: strip))
            }
        }
        let engine = engine
        engine.install(try chain.compile(spec: driver.processSpec))
        // Busker's own latency (known once compiled: the limiter's look-ahead), published on its JACK ports.
        (driver as? JACKDriver)?.ownLatencyFrames = chain.latencyFrames
        // The session opens again only this route (`--reconnect`), with the same options.
        let runner: SessionRunner
        if let alsa = driver as? DuplexDriver {
            runner = SessionRunner(command: "live", driver: alsa, engine: engine, policy: options.policy)
        } else {
            let jack = driver as! JACKDriver
            let midi = options.jackMIDI
            runner = SessionRunner(command: "live", driver: jack, engine: engine, policy: options.policy, reopenOptions: {
                var reopened = jack.options
                reopened.ownLatencyFrames = chain.latencyFrames
                return reopened
            }, reopened: { midi?.plug(into: $0) })
        }
        self.runner = runner
        let takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: granted.sampleRate)
        self.takes = takes
        takes.stems = stems
        runner.rebuildGraph = { driver in
            engine.releaseAll()
            engine.install(try chain.compile(spec: driver.processSpec))
            (driver as? JACKDriver)?.ownLatencyFrames = chain.latencyFrames
            // A take cannot change rate midway: the one in progress ends here, later ones use the new rate.
            if takes.sampleRate != driver.format.sampleRate {
                takes.stop(audioHasStopped: true)
                takes.sampleRate = driver.format.sampleRate
            }
        }
        runner.send(.userStart)
        guard !runner.isOver else { return }
        audioStarted = true
        if firstTake != nil {
            do {
                try takes.start()
            } catch {
                runner.close()
                throw CommandLineError.runtime(error.description)
            }
        }
        // A JACK client's summary counts Busker's own latency already.
        let extra = chain.latencyFrames > 0 && !(runner.driver is JACKDriver) ? " + chain latency \(chain.latencyFrames) frames" : ""
        print("busker live: \(runner.driver.summary)\(extra)")
        if let notice = runner.driver.realtimeNotice { print("busker live: \(notice)") }
        if let path = takes.recorder?.path { print("busker live: recording to \(path)") }
        // Every stop or loss closes the take (the state machine's finalize effect comes after the audio stopped).
        // A close left running on its thread holds its render thread in the dead library, if
        // anywhere: the tap is disarmed and not waited for, or the exit would miss its 2 s.
        runner.finalizeRecording = { takes.stop(audioHasStopped: true) }
    }

    /// Closes the devices and the take, prints every take's summary and the
    /// last line (exit 0), or throws it (exit 1: the device stopped us, or a
    /// take stopped early).
    public func finish() throws {
        runner.close()
        guard audioStarted else { return try runner.report(quitKey: "q", consequence: "") }
        takes.stop(audioHasStopped: true)
        try takes.report(command: "live") {
            try runner.report(quitKey: "q", consequence: "; the mic is off")
        }
    }
}
