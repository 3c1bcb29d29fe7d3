import Chains
import Engine
import Instruments
import Sequencing

/// The heaviest stage a singer who plays keys sets up, built offline as
/// `AudioSession` builds a stage (`busker live --instrument piano --song …
/// --midi-in …`): two mic strips with every stage on, the keys (the sampler
/// and Busker's kit) playing `StageBenchMIDI.performance`, and the backing
/// song (`StageBenchMIDI.backingSong`) on a sampler of its own; the parts'
/// reverb and chorus, the mic's reverb and howl guard, the limiter. Both
/// MIDI files loop, so the stage plays for as long as it is rendered.
///
/// `busker bench --stage` times it; the stage's allocation test renders it
/// with the transport moving and parts muted and soloed.
public final class BenchStage {
    public let chain: StageChain
    /// What the keyboard plays (the keys' scheduler's file player).
    public let performance: MIDIFilePlayer
    /// The backing song's player.
    public let song: MIDIFilePlayer
    /// The mic strips' and parts' settings the stage was built with.
    public let settings: LiveSettings
    public let sampleRate: Int
    /// The mic's channels (the strips read inputs 1 and 2).
    public var inputChannelCount: Int { Self.micChannels }
    static let micChannels = 2

    /// - Parameters:
    ///   - chord: whether the keyboard holds the 16-note chord over its running part.
    ///   - soundFont: the SoundFont (nil: the default one, as `busker live` finds it).
    ///   - kit: the kit's name or path (nil: Busker's own).
    ///   - polyphony: each sampler's voices, as `busker live --polyphony` sets
    ///     both the keys' and the song's (nil: FluidSynth's 256).
    /// - Throws: `ChainError` for a SoundFont or kit that cannot be read.
    /// - Thread: control
    /// - Realtime: unsafe (reads the SoundFont's presets and the kit, allocates)
    public init(sampleRate: Int = 48000, chord: Bool = true, soundFont: String? = nil, kit: String? = nil,
                polyphony: Int? = nil) throws {
        self.sampleRate = sampleRate
        var options = InstrumentParts.Options()
        options.soundFont = soundFont
        options.kit = kit
        options.polyphony = polyphony
        options.program = 0  // Acoustic Grand Piano
        try options.resolveFiles()
        performance = MIDIFilePlayer(file: StageBenchMIDI.performance(chord: chord), sampleRate: sampleRate)
        performance.isLooping = true
        song = MIDIFilePlayer(file: StageBenchMIDI.backingSong(), sampleRate: sampleRate)
        song.isLooping = true
        let rate = Double(sampleRate)
        let keys = try InstrumentParts(options: options, ports: [], player: performance, sampleRate: rate)
        // The song as `AudioSession` plays it: its own sampler, its programs from the file, the
        // SoundFont's percussion on channel 10.
        let songParts = try InstrumentParts(options: StageChain.songOptions(from: options), ports: [], player: song, sampleRate: rate)
        var settings = ChainBench.everyStageOn(inputChannelCount: Self.micChannels, howlGuard: true)
        settings.parts = ["keys": PartSettings(levelDB: -3, pan: -0.2, reverbSendPercent: 20),
                          "drums": PartSettings(levelDB: -6, pan: 0.1, reverbSendPercent: 10),
                          "song": PartSettings(levelDB: -9, reverbSendPercent: 15)]
        self.settings = settings
        let live = try LiveChain(inputChannelCount: Self.micChannels, settings: settings, limiterLookaheadMilliseconds: 0,
                                 parts: StageChain.parts(keys: keys, song: songParts))
        chain = StageChain(live: live, keys: keys, song: songParts)
    }

    /// Compiles the stage for `period`-frame blocks into `engine`, with both
    /// schedulers attached, and starts the files playing from the first block:
    /// the keyboard's part unless `keys` is false, the song unless `song` is.
    /// - Throws: `GraphError` (a wiring mistake).
    /// - Thread: control, before the engine renders
    /// - Realtime: unsafe (allocates)
    public func install(in engine: RenderEngine, period: Int, keys: Bool = true, song playsSong: Bool = true) throws {
        let plan = try chain.live.compile(spec: ProcessSpec(sampleRate: Double(sampleRate), maximumBlockSize: period))
        engine.attach(chain.cycleObserver)
        engine.install(plan)
        if keys { performance.play() }
        if playsSong { song.play() }
    }

    /// The sampler voices sounding at the end of the last block: the keys' and the song's.
    /// - Thread: any
    /// - Realtime: safe (atomic loads)
    public var samplerVoices: (keys: Int, song: Int) {
        (chain.keys.sampler.activeVoiceCount, chain.song?.sampler.activeVoiceCount ?? 0)
    }

    /// The kit's hits sounding at the end of the last block.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var drumVoices: Int { chain.keys.drums?.activeVoiceCount ?? 0 }

    /// What plays, in one line: the keys' preset and font, the kit, the song's presets in memory.
    public var summary: String {
        let song = chain.song.map { "; song: 16 channels, \($0.memorySummary)" } ?? ""
        return "keys: \(chain.keys.summary)\(song)"
    }
}
