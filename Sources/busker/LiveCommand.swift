import ALSA
import Chains
import CommandLineInterface
import Control
import Foundation
import OfflineDrivers
import Sessions
import Session
import TerminalUI

/// `busker live`: the live chain, one channel strip per mic or instrument input. On ALSA devices or as a JACK client it runs in real time
/// with a terminal UI (or headless): `AudioSession` opens and starts it,
/// `LiveSession` runs it. With `file:` endpoints it runs offline over a file
/// as fast as the machine allows, with the same graph.
enum LiveCommand {
    static let help = """
    usage: busker live [-D PCM | --input PCM --output PCM] [options]
           busker live --driver jack [--name NAME] [--connect auto|none|PORT=OTHER,…] [options]
           busker live --input file:IN.wav --output file:OUT.wav [options]

    Each capture channel in use is a channel strip: input gain → high-pass →
    [voice processing] → noise gate → compressor → bass → treble → boost → pan,
    mute and a reverb send. The strips meet on a stereo bus: + reverb return →
    howl guard → volume → limiter (−1 dBFS) → speaker, at the lowest latency the
    devices allow. Starts at volume 0.3 with the mic on; a terminal UI shows every
    strip's meter and one strip's controls (tab switches; space turns the mic off,
    q quits, asking again while the mic is on or a take runs; Esc never quits).
    A mono playback device gets the bus down-mixed.

    which input is the mic (channels count from 1, as on the interface):
      --inputs LIST          one strip per comma, + sums channels into one strip
                             (default 1: the voice on input 1, centred):
                             1,2 = a vocal mic and an instrument; 1+2 = both in one strip
      --strip N:KEY=VALUE,…  set strip N alone (repeatable; wins over the options below); keys: gain,
                             pan, mute, high-pass, gate, gate-threshold, compressor, makeup,
                             voice-processing, bass, treble, boost, reverb; on|off for
                             mute, gate, compressor, voice-processing.
                             Example: --inputs 1,2 --strip 1:pan=-0.5 --strip 2:pan=0.5,reverb=0

    driver (the start-up line says which runs, and why):
    \(AudioDriverChoice.help)
                             With JACK, each strip input is a port (--inputs 1,2: in_1, in_2),
                             and midi_in takes MIDI control beside --midi and --midi-in.
      --direct-outs          JACK: beside out_L/out_R, a port per mic strip (strip1, … mono) and a
                             pair per stage part (keys_L keys_R, drums_…, song_…) for a mixing desk:
                             each strip as processed, pre-fader (Busker's fader, pan and volume
                             leave it alone: the desk mixes), silent while muted or the mic is off;
                             NO limiter on them (out_L/out_R keep theirs); in time with out_L/out_R

    ALSA devices (PCM names, as in aplay -D; see busker devices):
      -D, --device PCM       capture and playback on one PCM (default: default)
      --input PCM            capture PCM, or file:PATH to read an audio file
      --output PCM           playback PCM, or file:PATH to write a file (.wav, .flac, .ogg, .aiff);
                             an existing file is replaced only when the run completes
      --period FRAMES        frames per period, 1…8192 (default 64, JACK's -p; files: 1024)
      --periods N            periods per buffer, 2…16 (default 2; JACK's -n)
      --periods-ahead N      periods of playback queued ahead of capture, 0…15 (default 1:
                             round trip 2 periods; 0 saves a period where the device
                             keeps time itself, as a JACK or pipewire PCM does, at more risk of xruns)
      -r, --rate HZ          sample rate, 8000…192000 (default 48000)
      --no-tui               no screen: a status line every second; stops on SIGINT/SIGTERM/SIGHUP
      --limiter-lookahead MS the output limiter's look-ahead (its latency, with 12 frames
                             for its true peak), 0…5 ms (default 0 on devices; 1 for files)

    \(RecordingRequest.sessionHelp)
    \(RecordingRequest.stemsHelp)

    when devices misbehave (Busker never moves the mic to another output by itself):
      --auto-resume          after a suspend or Ctrl-Z, start again by itself if the mic was on
                             (default: audio stays off until you press space; with
                             --no-tui, where no key can, stop with exit status 1)
      --reconnect            when the device is lost, wait for it and restart on it when it
                             is back (default: stop with exit status 1)

    \(LiveMIDIControl.help)

    \(LiveOSCControl.help)

    \(stageHelp)

    strip controls (every strip; --strip N:… for one):
      --gain DB              input gain, −24…24 dB (default 0)
      --pan P                −1 left … 0 centre … 1 right, constant power (default 0)
      --bass DB              low shelf at 150 Hz, −12…12 dB (default 0)
      --treble DB            high shelf at 6 kHz, −12…12 dB (default 0)
      --boost DB             gain, −24…24 dB (default 0)
      --reverb PERCENT       send to the bus reverb, 0…100 (default 0)
      --high-pass HZ         rumble filter corner, 20…500 Hz (default 80)

    bus controls:
      --room NAME            the reverb's room: small | medium | large | hall (default medium)
      --volume LEVEL         master volume, 0…1 (default 0.3: start quiet)
      --no-howl-guard        no feedback protection (on by default: howling is found as it
                             starts and notched out; the screen shows FEEDBACK and the notches)

    voice clean-up (every strip; all off by default: they change the sound of music):
      --gate                 noise gate: quiet passages turned down 40 dB (key n)
      --gate-threshold DB    where the gate opens, −80…0 dBFS (default −50)
      --compressor           compressor (3:1 above −24 dB, soft knee) with make-up gain (key c)
      --makeup DB            the compressor's make-up gain, −12…24 dB (default 6)
      --voice-processing     spectral noise suppression and automatic gain control,
                             adds 10.7 ms at 48 kHz (key v)

    presets (NAME.preset in $XDG_CONFIG_HOME/busker, else ~/.config/busker; see docs/presets.md):
      --preset NAME          start with a saved preset's strips, bus and MIDI mapping; options
                             given with it override it (--volume 0.2, --strip 2:mute=on)
                             key w saves the current settings as a preset; on quit busker live
                             prints the command line that starts the same sound again

    files only:
      -f, --sample-format, --format FMT
                             the output file's samples: \(ArgumentScanner.sampleFormatNames);
                             default S24_3LE
      -c, --channels N       the output file's channels: 2 (default), or 1 for the bus
                             down-mixed to mono

      -v, --verbose          say in detail what Busker asked the devices for and got
      -h, --help             show this help

    No sound card? Tools/virtual-soundcard starts a virtual one (JACK dummy driver).
    """

    static func run(_ arguments: [String]) throws {
        let (recording, arguments) = try RecordingRequest.extract(from: arguments, formatOptions: ["record-format"], takesStems: true)
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        if let extra = args.positionals.first { throw CommandLineError.usage("unexpected argument '\(extra)'") }
        let start = try LiveStart(arguments: args)
        let settings = start.settings
        let input = args.string("input"), output = args.string("output")
        let inputIsFile = input?.hasPrefix("file:") ?? false
        let outputIsFile = output?.hasPrefix("file:") ?? false
        let instruments = try stageInstruments(args, onFiles: inputIsFile || outputIsFile)
        if inputIsFile || outputIsFile {
            if let driver = args.string("driver"), driver != "alsa" {
                throw CommandLineError.usage("file: endpoints run offline, without --driver \(driver)")
            }
            guard let input, let output, inputIsFile, outputIsFile, args.string("device") == nil else {
                throw CommandLineError.usage("file: endpoints go together: --input file:IN.wav --output file:OUT.wav")
            }
            if recording.enabled {
                throw CommandLineError.usage("--record is for devices; with file: endpoints the output file is the recording")
            }
            if recording.stems {
                throw CommandLineError.usage("--stems is for takes on devices (with --record or Ctrl-R); with file: endpoints only the mix is written")
            }
            if recording.force {
                throw CommandLineError.usage("--force is for --record takes; with file: endpoints it is not needed to replace the output file")
            }
            if !args.strings("midi").isEmpty || (args.string("midi-in") != nil && instruments == nil)
                || args.string("control-midi") != nil || args.string("control-midi-in") != nil {
                throw CommandLineError.usage("--midi and --midi-in are for devices: a file runs faster than anyone can play"
                                             + " (on a stage, --midi-in FILE.mid plays a MIDI file as the player)")
            }
            if args.string("osc") != nil || args.string("osc-bind") != nil {
                throw CommandLineError.usage("--osc is for devices: a file runs faster than anyone can play")
            }
            if args.has("direct-outs") {
                throw CommandLineError.usage("--direct-outs is for --driver jack: with file: endpoints only the mix is written")
            }
            try runOnFiles(input: input, output: output, args: args, settings: settings, instruments: instruments)
            print("busker live: start the same sound again with: " + start.restartLine(settings: settings, onDevices: false))
        } else {
            if args.string("sample-format") != nil {
                throw CommandLineError.usage("--sample-format is for file: outputs (the take's format is --record-format)")
            }
            if args.string("channels") != nil {
                throw CommandLineError.usage("--channels is for file: outputs (a mono playback device gets the bus down-mixed by itself)")
            }
            try runOnDevices(args: args, start: start, recording: recording, instruments: instruments)
        }
    }

    private static func runOnFiles(input: String, output: String, args: ArgumentScanner, settings: LiveSettings,
                                   instruments: SessionSources.Instruments?) throws {
        var options = FileRenderDriver.Options(inputPath: String(input.dropFirst(5)), outputPath: String(output.dropFirst(5)))
        guard !options.inputPath.isEmpty, !options.outputPath.isEmpty else {
            throw CommandLineError.usage("file: needs a path, as in file:voice.wav")
        }
        options.engineRate = try args.int("rate", in: 8000...192_000) ?? 48000
        options.blockSize = try args.int("period", in: 1...8192) ?? FileRenderDriver.defaultBlockSize
        if let format = try args.sampleFormat() { options.sampleFormat = format }
        if let warning = InputFileWarning.unclaimedAudio(path: options.inputPath) { printError("busker live: warning: \(warning)") }
        if args.has("verbose") {
            print("busker live: \(options.outputPath): \(options.sampleFormat.alsaName) at \(options.engineRate) Hz, blocks of \(options.blockSize) frames")
        }
        let channels = try args.int("channels", in: 1...2) ?? 2, lookahead = try args.limiterLookaheadMilliseconds() ?? 1
        StopSignals.install()
        let report = try LiveChain.renderFile(options: options, settings: settings, outputChannelCount: channels,
                                               limiterLookaheadMilliseconds: lookahead, instruments: instruments,
                                               interruption: { StopSignals.pending })
        print("busker live: \(options.inputPath) → \(options.outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz"
              + (report.inputRate != report.engineRate ? " (resampled from \(report.inputRate) Hz)" : "")
              + ", \(Int(report.realtimeFactor.rounded()))× real time on thread \(report.renderThreadName)")
        if let silenced = report.silenced, silenced.blocks > 0 {
            print("busker live: \(silenced.description(sampleRate: report.engineRate)); the sound went on after each")
        }
    }

    /// The live mic on ALSA devices or as a JACK client until q, a signal or a device problem.
    /// Exit status 1 when the device stopped us.
    private static func runOnDevices(args: ArgumentScanner, start: LiveStart, recording: RecordingRequest,
                                     instruments: SessionSources.Instruments?) throws {
        let settings = start.settings
        let (driver, why) = try AudioDriverChoice.parse(args, inputChannels: settings.strips.flatMap(\.channels).max() ?? 1) {
            var driver: DuplexDriver.Options
            if let device = args.string("device") {
                guard args.string("input") == nil, args.string("output") == nil else {
                    throw CommandLineError.usage("use --device for both directions, or --input and --output, not both")
                }
                driver = DuplexDriver.Options(device: device)
            } else {
                driver = DuplexDriver.Options(capture: args.string("input") ?? "default", playback: args.string("output") ?? "default")
            }
            driver.periodFrames = try args.int("period", in: 1...8192) ?? 64
            driver.periodCount = try args.int("periods", in: 2...16) ?? 2
            driver.periodsAhead = try args.int("periods-ahead", in: 0...15) ?? 1
            driver.sampleRate = try args.int("rate", in: 8000...192_000) ?? 48000
            return driver
        }
        let useTUI = !args.has("no-tui") && Terminal.isInteractive
        // A take's path that is refused is an error before any start-up line.
        if recording.enabled { _ = try recording.resolvePath() }
        // A --midi-in path that cannot be read is an error before any device opens. With JACK,
        // the client's midi_in joins the MIDI control's sources when the session opens it.
        // On a stage --midi and --midi-in play the instruments, and the live controls have sources of their own.
        let midiSources = try MIDISources(midi: args.strings("midi"), midiIn: args.string("midi-in"))
        let controlSources = instruments == nil ? midiSources
            : try MIDISources(midi: [args.string("control-midi") ?? "none"], midiIn: args.string("control-midi-in"))
        let midi = LiveMIDIControl(inputs: controlSources, map: start.midiMap)
        // The port is bound before audio starts: one in use is an error, not a silent surface.
        let osc = try LiveOSCControl(arguments: args)
        if let osc { print("busker live: \(osc.startLine)") }
        var setup = SessionDescription(command: "live", driver: driver,
                                       sources: SessionSources(strips: settings, instruments: instruments, midi: midiSources,
                                                               limiterLookaheadMilliseconds: try args.limiterLookaheadMilliseconds()),
                                       recording: recording, policy: SessionPolicy(arguments: args, interactive: Terminal.isInteractive),
                                       quitKey: "q")
        setup.driverLine = why
        setup.lossConsequence = "; the mic is off"
        if args.has("direct-outs") {
            guard case .jack = driver else {
                throw CommandLineError.usage("--direct-outs is for --driver jack: a sound card's outputs carry the main mix")
            }
            setup.sources.directOuts = true
        }
        let session = try AudioSession(setup)
        try session.start()
        // On a stage the live controls' sources are the session's second set: they start and stop with it.
        if instruments != nil { controlSources.start() }
        defer { if instruments != nil { controlSources.stop() } }
        // A stage says where MIDI goes whenever it starts: a keyboard's pedal and a footswitch differ only by source.
        if instruments != nil, session.audioStarted {
            print("busker live: MIDI to the instruments (notes, pedal, expression; channel 10 the kit): \(midiSources.summary)")
            let given = args.string("control-midi") != nil || args.string("control-midi-in") != nil
            print("busker live: MIDI to the live controls (CC 64 the mic, CC 7 the volume, or learned): "
                  + (given ? controlSources.summary : "none (--control-midi SOURCE or --control-midi-in PATH gives one)"))
        }
        if args.has("verbose") {
            let midiLines = instruments == nil ? ["MIDI control: \(midiSources.summary)"] : []
            for line in session.runner.driver.verboseLines + midiLines { print("busker live: \(line)") }
        }
        let controller = LiveController(midi: midi, osc: osc, presets: start.presets, presetProblem: start.presetProblem,
                                        presetName: start.presetName)
        guard session.audioStarted, let screen = LiveSession(session: session, controller: controller, useTUI: useTUI) else {
            return try session.finish()
        }
        osc?.start()
        _ = screen.run()
        osc?.stop()
        if let osc { print("busker live: OSC: \(osc.summary)") }
        if let load = screen.load.session() { print("busker live: \(load.summary)") }
        // Last, whatever ended the session: a mapping learned and not saved, and how to get this sound back.
        defer {
            for line in LiveRestartCommand.unsavedMappingLines(current: screen.midiPresetEntries?(), presetName: screen.presetName,
                                                               presets: start.presets) {
                print("busker live: \(line)")
            }
            print("busker live: start the same sound again with: "
                  + start.restartLine(settings: screen.settings, onDevices: true, presetName: screen.presetName))
        }
        try session.finish()
    }

    /// The settings a session starts with: from `--preset NAME` (if given)
    /// with the command line's options over it, else from the options alone;
    /// and the preset folder, for saving and for the line printed at the end.
    struct LiveStart {
        var settings: LiveSettings
        /// The preset loaded, if any (its `[midi]` lines are the MIDI mapping's).
        let preset: LivePreset?
        let presetName: String?
        let presets: PresetStore?
        /// Why there is no preset folder (no HOME), to show when `w` is pressed.
        let presetProblem: String?
        let deviceArguments: [String]
        /// The MIDI control mapping: the preset's `[midi]`, else the defaults.
        let midiMap: MIDIControlMap

        /// - Throws: `CommandLineError.usage` for a bad option, or a preset
        ///   that is missing, unreadable or not valid (one line naming the file and line).
        init(arguments args: ArgumentScanner) throws {
            var presets: PresetStore?
            var problem: String?
            do {
                presets = try PresetStore()
            } catch {
                problem = error.description
            }
            presetName = args.string("preset")
            if let name = presetName {
                do {
                    guard let presets else { throw PresetError(path: "--preset \(name)", message: problem ?? "") }
                    let preset = try presets.load(name)
                    self.preset = preset
                    settings = try LiveSettings(arguments: args, over: preset.settings)
                    do {
                        midiMap = try MIDIControlMap(preset: preset.midi)
                    } catch {
                        throw presets.error(in: name, error)
                    }
                } catch let error as PresetError {
                    throw CommandLineError.usage(error.description)
                }
            } else {
                preset = nil
                settings = try LiveSettings(arguments: args)
                midiMap = .defaults
            }
            self.presets = presets
            presetProblem = problem
            deviceArguments = LiveRestartCommand.deviceArguments(args)
        }

        /// The command line that starts `settings` again, with the devices or
        /// files used, named by the program's path as run; on devices, with
        /// the environment that chose the ALSA configuration and JACK server.
        func restartLine(settings: LiveSettings, onDevices: Bool, presetName: String? = nil) -> String {
            let invocation = LiveRestartCommand.Invocation(
                program: LiveRestartCommand.program(argumentZero: CommandLine.arguments[0],
                                                    directory: FileManager.default.currentDirectoryPath),
                environment: onDevices ? LiveRestartCommand.environmentWords(ProcessInfo.processInfo.environment) : [],
                deviceArguments: deviceArguments,
                launcher: onDevices ? ProcessInfo.processInfo.environment["BUSKER_LAUNCHER"] : nil)
            return LiveRestartCommand.line(settings: settings, presetName: presetName ?? self.presetName, presets: presets,
                                           invocation: invocation)
        }
    }
}
