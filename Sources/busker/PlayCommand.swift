import ALSAIO
import AudioCore
import Foundation
import Instruments
import MIDI

/// `busker play`: the sampler and the drum kit played live over MIDI (and
/// from the computer keyboard), or a MIDI file, to an ALSA output.
enum PlayCommand {
    static let help = """
    usage: busker play [SONG.mid] [options]

    Plays the piano (or any General MIDI instrument of a SoundFont) on every
    MIDI channel but 10 and the drum kit on channel 10, through the tone
    controls, reverb and a limiter (−1 dBFS), to an ALSA output. With no
    MIDI hardware the computer keyboard plays: two octaves on the letter rows,
    drum pads on the number row; the screen shows which key plays what.
    Esc quits.

    \(MIDISources.help)

    song:
      SONG.mid               play a Standard MIDI File (formats 0, 1, 2, .kar); space stops and restarts it
      --loop                 start the song again when it ends
      --tempo SCALE          play faster (2) or slower (0.5), 0.125…8 (default 1)

    \(InstrumentRig.Options.help)

    \(RecordCommand.sessionHelp)
      (busker play also writes the performance as a MIDI file next to the take: TAKE.mid)
      --format FMT           the same as --record-format

    output:
      --output PCM           ALSA playback PCM (default: default; see busker devices)
      --period FRAMES        frames per period, 16…8192 (default 128)
      --periods N            periods per buffer, 2…16 (default 2)
      --rate HZ              sample rate, 8000…192000 (default 48000)
      --no-tui               no screen: a status line every second; ends with the song, or on SIGINT/SIGTERM
      --limiter-lookahead MS the output limiter's look-ahead, 0…5 ms (default 1)
      --auto-resume          after a suspend or Ctrl-Z, start again by itself (default: wait for space;
                             with --no-tui, stop with exit status 1)
      --reconnect            when the output is lost, wait for it and restart on it (default: exit 1)

    tone (as in busker live):
      --bass DB  --treble DB  --boost DB  --reverb PERCENT  --room NAME
      --volume LEVEL         master volume, 0…1 (default 0.5)
      --help                 show this help
    """

    static func run(_ arguments: [String]) throws {
        let (recording, arguments) = try RecordingRequest.extract(from: arguments, formatOptions: ["record-format", "format"])
        let args = try ArgumentScanner(arguments,
            valued: InstrumentRig.Options.valued.union(MIDISources.valued).union([
                "tempo", "output", "period", "periods", "rate", "limiter-lookahead",
                "bass", "treble", "boost", "reverb", "room", "volume"]),
            flags: InstrumentRig.Options.flags.union(["help", "no-tui", "loop", "auto-resume", "reconnect"]))
        if args.has("help") {
            print(help)
            return
        }
        if args.positionals.count > 1 { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        var settings = try LiveCommand.voiceSettings(from: args)
        if args.string("volume") == nil { settings.volume = 0.5 }
        let instrumentOptions = try InstrumentRig.Options(args: args)
        var options = DuplexDriver.Options(playback: args.string("output") ?? "default")
        options.periodFrames = try args.int("period", in: 16...8192) ?? 128
        options.periodCount = try args.int("periods", in: 2...16) ?? 2
        options.sampleRate = try args.int("rate", in: 8000...192_000) ?? 48000
        let tempo = try args.float("tempo") ?? 1
        guard (0.125...8).contains(tempo) else { throw CommandLineError.usage("--tempo \(tempo) is out of range 0.125…8") }
        let lookahead = try args.float("limiter-lookahead") ?? 1
        guard (0...5).contains(lookahead) else { throw CommandLineError.usage("--limiter-lookahead \(lookahead) ms is out of range 0…5 ms") }
        let useTUI = !args.has("no-tui") && Terminal.isInteractive

        if args.positionals.isEmpty && (args.has("loop") || args.string("tempo") != nil) {
            throw CommandLineError.usage("--loop and --tempo are for a song: busker play SONG.mid")
        }
        // Read the song before any device opens, so a bad file is one line and nothing else.
        let songPath = args.positionals.first
        if let songPath { _ = try SongFile.player(path: songPath, sampleRate: options.sampleRate) }

        // A take's folder and name are checked before any device opens.
        let firstTake = recording.enabled ? try recording.resolvePath(companions: [".mid"], protecting: songPath.map { [$0] } ?? []) : nil
        if recording.stems { throw CommandLineError.usage("--stems is for busker live (the dry mic)") }
        let sources = try MIDISources(args: args)
        StopSignals.install(jobControl: true)
        let driver: DuplexDriver
        do {
            driver = try DuplexDriver(options: options)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
        let rate = Double(driver.granted.sampleRate)
        let player = try songPath.map { try SongFile.player(path: $0, sampleRate: driver.granted.sampleRate) }
        player?.isLooping = args.has("loop")
        player?.tempoScale = Double(tempo)
        let rig = try InstrumentRig(options: instrumentOptions, ports: sources.ports, player: player, sampleRate: rate,
                                    settings: settings, limiterLookaheadMilliseconds: lookahead)
        for warning in rig.warnings { printError("busker play: warning: \(warning)") }
        let engine = RenderEngine()
        engine.attach(rig.scheduler)
        // The recording tap ends the chain and sees the scheduler's events: audio and MIDI on one timeline.
        let tap = TakeControl.makeTap(channels: 2, sampleRate: rate, midiEvents: rig.scheduler.events)
        try tap.install(atEndOf: rig.chain.graph)
        engine.install(try rig.chain.compile(spec: driver.processSpec))
        let runner = SessionRunner(command: "play", driver: driver, engine: engine, policy: try LiveCommand.sessionPolicy(args),
                                   reopen: { [options] in try DuplexDriver(options: options) })
        let takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: driver.granted.sampleRate,
                                recordsMIDI: true, midiLatencyFrames: rig.chain.latencyFrames, protecting: songPath.map { [$0] } ?? [])
        runner.rebuildGraph = { driver in
            // The sampler's synths, the drum kit and the song's event frames are built for the
            // launch rate (SamplerNode refuses another); rather than play at the wrong rate, stop.
            let newRate = driver.granted.sampleRate
            guard newRate == Int(rate) else {
                throw CommandLineError.runtime("the output came back at \(newRate) Hz; busker play's instruments and song are built for \(Int(rate)) Hz and cannot change rate midway: start it again")
            }
            engine.releaseAll()
            engine.install(try rig.chain.compile(spec: driver.processSpec))
        }
        sources.start()
        runner.send(.userStart)
        if runner.isOver {
            sources.stop()
            runner.close()
            try runner.report(quitKey: "esc", consequence: "")
            return
        }
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
        print("busker play: \(driver.granted); \(rig.summary)")
        for notice in sources.notices { print("busker play: \(notice)") }
        if let notice = driver.realtime?.notice { print("busker play: \(notice)") }

        if let path = takes.recorder?.path { print("busker play: recording to \(path)") }
        // Every stop or loss closes the take (the state machine's finalize effect comes after the audio stopped).
        runner.finalizeRecording = { takes.stop(audioHasStopped: true) }
        let session = PlaySession(rig: rig, sources: sources, runner: runner, player: player,
                                  songName: songPath.map { ($0 as NSString).lastPathComponent },
                                  settings: settings, useTUI: useTUI)
        session.takes = takes
        _ = session.run()
        sources.stop()
        runner.close()
        takes.stop(audioHasStopped: true)
        rig.collectRetired()
        try RecordCommand.reportTakes(takes, command: "play") {
            try runner.report(quitKey: "esc", consequence: "")
        }
    }
}
