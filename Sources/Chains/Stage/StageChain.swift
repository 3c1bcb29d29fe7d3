import Engine
import Sequencing

/// The stage: the mic's strips and bus (`LiveChain`) with the player's
/// instruments and the backing song on strips of their own after the howl
/// guard (`StageBus`).
///
/// MIDI is routed by source: the player's sources (keyboards, pads, the
/// computer keyboard) reach `keys` (the sampler on every channel but 10,
/// the kit on channel 10), the song reaches `song` (a sampler of its own on
/// all 16 channels, channel 10 with the SoundFont's percussion), so the
/// keyboard's channel 1 and the song's never meet.
public final class StageChain {
    public let live: LiveChain
    /// The player's instruments, fed by the MIDI sources.
    public let keys: InstrumentParts
    /// The backing song's own sampler; nil without a MIDI song.
    public let song: InstrumentParts?
    /// An audio backing track streamed from disk; nil without one.
    public let backing: BackingTrackNode?

    public init(live: LiveChain, keys: InstrumentParts, song: InstrumentParts?, backing: BackingTrackNode? = nil) {
        self.live = live
        self.keys = keys
        self.song = song
        self.backing = backing
    }

    /// The backing song's transport: the MIDI song's player or the audio track.
    public var songTransport: (any SongTransport)? { song?.scheduler.filePlayer ?? backing }

    /// What the player plays from a file (the stage on files), on the keys' scheduler.
    public var performance: MIDIFilePlayer? { keys.scheduler.filePlayer }

    /// What the engine tells of every cycle: the player's scheduler, and the song's after it.
    public var cycleObserver: any RenderCycleObserver {
        guard let song else { return keys.scheduler }
        return RenderCycleObserverPair(keys.scheduler, song.scheduler)
    }

    /// The parts a stage has for these instruments: the keyboard's sampler
    /// ("keys", with its sends), the kit ("drums") and the backing song
    /// ("song": its sampler, or the audio track).
    /// - Realtime: unsafe (allocates). Control thread.
    public static func parts(keys: InstrumentParts, song: InstrumentParts?, backing: BackingTrackNode? = nil) -> [StagePart] {
        var parts = [StagePart(name: "keys", source: keys.sampler, hasSends: true)]
        if let drums = keys.drums { parts.append(StagePart(name: "drums", source: drums)) }
        if let song { parts.append(StagePart(name: "song", source: song.sampler, hasSends: true)) }
        if let backing { parts.append(StagePart(name: "song", source: backing)) }
        return parts
    }

    /// The names `parts(keys:song:)` gives for instruments built from `options`
    /// (the kit is a part unless channel 10 is the SoundFont's alone, or off).
    public static func partNames(options: InstrumentParts.Options, hasSong: Bool) -> [String] {
        ["keys"] + (options.drums && options.drumSource != .soundFont ? ["drums"] : []) + (hasSong ? ["song"] : [])
    }

    /// The song's sampler options from the keys': the same SoundFont and
    /// polyphony, no instrument of its own (the song's program changes
    /// choose), and the SoundFont's percussion on its channel 10.
    public static func songOptions(from keys: InstrumentParts.Options) -> InstrumentParts.Options {
        var options = keys
        (options.instrument, options.program, options.bank) = (nil, nil, nil)
        options.drumSource = .soundFont
        return options
    }

    /// Frees what the audio thread has retired. Control loop.
    public func collectRetired() {
        keys.collectRetired()
        song?.collectRetired()
    }
}
