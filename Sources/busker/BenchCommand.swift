import Benchmarks
import CommandLineInterface
import OfflineDrivers
import Sessions

/// `busker bench`: parses its options and runs the chain benchmark or, with
/// `--howl`, the howl guard's or, with `--stage`, the whole stage's (all in
/// the Benchmarks target).
enum BenchCommand {
    static let help = """
    usage: busker bench [options]

    Measures the live chain with two strips (inputs 1 and 2) and every stage
    on (gain, high-pass, voice processing, gate, compressor, bass +6, treble +3,
    boost, pan, reverb send 30 %, howl guard, volume, limiter) and, when sox is
    installed, sox's `bass +6 treble +3 reverb 30` on the same file. Prints
    times faster than real time and the ratio.

      --input PATH       audio file to process (default: 60 s of voice built
                         from /usr/share/sounds/alsa/Front_Center.wav, 48 kHz stereo)
      --seconds N        length of the built input, 1…3600 (default 60)
      --period FRAMES    block size in memory, 1…8192 (default 64)
      --file-period N    block size file to file, 1…8192 (default 1024, as
                         busker live on files; the output is the same at any size)
      --runs N           end-to-end runs of each tool, alternating, best kept,
                         1…20 (default 3)
      --no-sox           skip the sox comparison
      --nodes            also time each node of the chain alone and, with sox,
                         stage for stage: sox's bass/treble and reverb alone
                         against the nodes doing that work, and the chain's
                         nodes summed against the 3× sox budget
      --no-howl-guard    time the chain with the howl guard bypassed (it is on by default)
      --no-voice-processing  every stage on but voice processing, the dearest
      --howl             only the howl guard: added stable gain and detection
                         time in the feedback simulator (--seconds 4…600: run length,
                         default 12; no other option goes with it)
      --stage            the whole stage instead: two mic strips with every stage
                         on, the piano (a 16-note chord held and a running part)
                         and Busker's kit (16ths) from a keyboard, a 16-channel
                         General MIDI song, reverbs, howl guard and limiter,
                         one block a period on audio-render: DSP load, worst
                         block, sampler voices and a voice's cost, private
                         memory, each against its goal (--seconds 1…3600: run
                         length, default 20; with --period, --soundfont, --kit,
                         --polyphony, --parts)
      --soundfont FILE   with --stage: the SoundFont (default: as busker live finds it)
      --kit NAME         with --stage: the drum kit, a name or a path (default Busker's)
      --polyphony N      with --stage: each sampler's voices, as busker live's
                         --polyphony sets the keys' and the song's, 1…4096
                         (default 256)
      --parts            with --stage: also where the time goes: the stage with
                         nothing playing, with the keys alone, and the song's share
      -h, --help         show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        if args.has("howl") {
            // The howl bench runs the feedback simulator only: an option for the chain bench would be silently ignored.
            let ignored = ["period", "runs", "file-period", "input", "soundfont", "kit", "polyphony"].filter { args.string($0) != nil }
                + ["no-howl-guard", "no-sox", "nodes", "no-voice-processing", "stage", "parts"].filter { args.has($0) }
            if let first = ignored.first {
                throw CommandLineError.usage("--\(first) does not go with --howl (it takes only --seconds)")
            }
            try HowlBench.run(seconds: Double(try args.int("seconds", in: 4...600) ?? 12)) { print($0) }
            return
        }
        if args.has("stage") {
            try runStage(args)
            return
        }
        for name in ["soundfont", "kit", "polyphony"] where args.string(name) != nil {
            throw CommandLineError.usage("--\(name) goes with --stage")
        }
        if args.has("parts") { throw CommandLineError.usage("--parts goes with --stage") }
        var options = ChainBench.Options()
        options.seconds = try args.int("seconds", in: 1...3600) ?? 60
        options.period = try args.int("period", in: 1...8192) ?? 64
        options.runs = try args.int("runs", in: 1...20) ?? 3
        options.filePeriod = try args.int("file-period", in: 1...8192) ?? FileRenderDriver.defaultBlockSize
        options.inputPath = args.string("input")
        options.compareWithSox = !args.has("no-sox")
        options.perNode = args.has("nodes")
        options.howlGuard = !args.has("no-howl-guard")
        options.voiceProcessing = !args.has("no-voice-processing")
        try ChainBench.run(options) { print($0) }
    }

    /// `--stage`: the stage bench, refusing the chain bench's options rather than ignoring them.
    private static func runStage(_ args: ArgumentScanner) throws {
        let ignored = ["runs", "file-period", "input"].filter { args.string($0) != nil }
            + ["no-howl-guard", "no-sox", "nodes", "no-voice-processing"].filter { args.has($0) }
        if let first = ignored.first {
            throw CommandLineError.usage("--\(first) does not go with --stage (it takes --seconds, --period, --soundfont, --kit, --polyphony and --parts)")
        }
        var options = StageBench.Options()
        options.seconds = try args.int("seconds", in: 1...3600) ?? 20
        options.period = try args.int("period", in: 1...8192) ?? 64
        options.soundFont = args.string("soundfont")
        options.kit = args.string("kit")
        options.polyphony = try args.int("polyphony", in: 1...4096)
        options.partCosts = args.has("parts")
        try StageBench.run(options) { print($0) }
    }
}
