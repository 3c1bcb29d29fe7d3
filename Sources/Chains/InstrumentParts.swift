import Foundation
import Instruments
import Sequencing

/// The instruments of a session without their chain: a MIDI scheduler fed
/// by the sources (and a song), the FluidSynth sampler on every channel it
/// plays, and the drum kit on channel 10 (the sampler plays the channel-10
/// notes the kit has no pad for, with the SoundFont's percussion: see
/// `DrumSource`). `InstrumentRig` puts them behind the instrument chain for
/// `busker play` and `render`; the stage puts them on strips of the live bus.
/// The sampler's channels 2–3 and 4–5 carry the song's CC 91 and CC 93
/// sends (`SamplerNode.sends`).
public final class InstrumentParts {
    /// The instrument options both commands share.
    public struct Options {
        public var soundFont: String?
        public var instrument: String?
        public var program: Int?
        public var bank: Int?
        public var polyphony: Int?
        public var kit: String?
        public var drums = true
        /// What plays channel 10 (`--drums`), when `drums` is on.
        public var drumSource = DrumSource.both
        public var watchdogSeconds = 30.0

        public init() {}

        /// Finds the SoundFont and the kit these options name, without loading
        /// either: a missing file is one line before any device opens. An
        /// `--instrument` no General MIDI name matches is looked for among the
        /// font's own preset names (`Bandoneon` in TimGM6mb), as General MIDI
        /// names are: exactly, else the unique name it starts, else the unique
        /// name it is part of; found, it becomes `bank` and `program`.
        /// - Throws: `ChainError.soundFont` or `.kit` naming the file;
        ///   `.instrumentNotInFont`, `.instrument` or `.bankConflict` for an
        ///   instrument neither General MIDI nor the font has (or several
        ///   presets match, or the program or bank says otherwise);
        ///   `.unknownKit` for a kit name no kit has.
        /// - Thread: control
        /// - Realtime: unsafe (looks at files, reads the font's index)
        public mutating func resolveFiles() throws {
            let font: SoundFontLocator.Location
            do {
                font = try SoundFontLocator().locate(explicitPath: soundFont)
            } catch let error as SamplerError {
                throw ChainError.soundFont(error)
            }
            if let name = instrument, Int(name) == nil, GeneralMIDI.programs(matching: name).isEmpty {
                try resolveFontPreset(named: name, in: font.path)
            }
            if drums && drumSource != .soundFont, let kit {
                do {
                    _ = try DrumKitCatalog().resolve(kit)
                } catch .unknownKit {
                    // A name no kit has is a request error, as an unknown instrument is.
                    throw ChainError.unknownKit(kit)
                } catch {
                    throw ChainError.kit(error)
                }
            }
        }

        /// `--instrument NAME` as one of the font's melodic presets (not bank 128's kits).
        private mutating func resolveFontPreset(named name: String, in fontPath: String) throws {
            let presets: [SoundFontPreset]
            do {
                presets = try SoundFontPresets(path: fontPath).presets.filter { $0.bank != 128 }
            } catch let error as SamplerError {
                throw ChainError.soundFont(error)
            }
            let found = GeneralMIDI.indices(matching: name, in: presets.map(\.name)).map { presets[$0] }
            guard let preset = found.first else {
                throw ChainError.instrumentNotInFont(name)
            }
            guard found.count == 1 else {
                throw ChainError.instrument(.ambiguousInstrument(name, candidates: found.map(\.name)))
            }
            if let program, program != preset.program {
                throw ChainError.instrument(.conflictingInstrument(instrument: name, program: program))
            }
            if let bank, bank != preset.bank {
                throw ChainError.bankConflict(instrument: name, presetBank: preset.bank, bank: bank)
            }
            instrument = nil
            program = preset.program
            bank = preset.bank
        }
    }

    public let scheduler: MIDIScheduler
    public let sampler: SamplerNode
    public let synth: SamplerSynth
    public let soundFont: SoundFontLocator.Location
    public let drums: DrumKitNode?
    public let kit: DrumKit?
    /// What plays channel 10; nil with `--no-drums`.
    public let drumSource: DrumSource?
    /// The channel-10 notes the SoundFont plays (none with `--drums kit` or `--no-drums`).
    public let soundFontDrumNotes: MIDINoteSet
    /// Reads the SoundFont's presets and the samples of those the channels
    /// and the song select, and loads the kit.
    /// - Throws: `ChainError.soundFont` or `.kit` with the one-line reason.
    /// - Thread: control
    /// - Realtime: unsafe (reads files, allocates)
    public init(options: Options, ports: [MIDIInputPort], player: MIDIFilePlayer?, sampleRate: Double) throws {
        scheduler = MIDIScheduler(ports: ports, filePlayer: player, watchdogSeconds: options.watchdogSeconds)
        do {
            soundFont = try SoundFontLocator().locate(explicitPath: options.soundFont)
            soundFontSilence = SoundFontSilence.check(path: soundFont.path)
            let instrument = try SamplerInstrument.resolve(instrument: options.instrument, program: options.program, bank: options.bank)
            let configuration = SamplerConfiguration(soundFontPath: soundFont.path, instrument: instrument,
                                                     polyphony: options.polyphony ?? SamplerConfiguration.defaultPolyphony)
            let source = options.drums ? options.drumSource : nil
            // The sampler takes channel 10 too unless only the kit (or nothing) plays it.
            let channels: SamplerChannelSet = source == nil || source == .kit ? .melodic : .all
            sampler = SamplerNode(events: scheduler.events, sampleRate: sampleRate, channels: channels, sends: true)
            // No percussion note before the kit's pads are known.
            sampler.percussionNotes = .none
            synth = try sampler.load(configuration)
            // Every preset the song selects is read before it plays: no note of a render or a song waits.
            if let player { synth.preload(presetsSelectedBy: player.messages()) }
        } catch let error as SamplerError {
            throw ChainError.soundFont(error)
        }
        drumSource = options.drums ? options.drumSource : nil
        if options.drums && options.drumSource != .soundFont {
            do {
                let reference = try options.kit.map { (given) throws(DrumKitError) in try DrumKitCatalog().resolve(given) }
                    ?? .manifest(path: DrumKitLocation.defaultManifestPath())
                let loaded = try DrumKit.load(reference, sampleRate: sampleRate)
                let node = DrumKitNode(events: scheduler.events)
                try node.install(loaded)
                kit = loaded
                drums = node
            } catch let error as DrumKitError {
                throw ChainError.kit(error)
            }
        } else {
            kit = nil
            drums = nil
        }
        soundFontDrumNotes = drumSource?.soundFontNotes(kitPads: kit?.padNotes) ?? .none
        sampler.percussionNotes = soundFontDrumNotes
    }

    /// What of the SoundFont would play as silence (bad sample headers, presets with no sound).
    public let soundFontSilence: SoundFontSilence

    /// One line per kit problem (a pad skipped, a layer missing), and one for
    /// a SoundFont whose samples or presets would be silent, for the user.
    public var warnings: [String] {
        (kit?.problems.map(\.description) ?? []) + (soundFontSilence.isEmpty ? [] : [Self.describe(soundFontSilence)])
    }

    /// One line naming the font, what is wrong and what stays silent (the first few of each).
    public static func describe(_ silence: SoundFontSilence) -> String {
        func some(_ items: [String]) -> String {
            items.prefix(4).joined(separator: ", ") + (items.count > 4 ? " and \(items.count - 4) more" : "")
        }
        var parts: [String] = []
        if let problem = silence.fontProblem { parts.append(problem) }
        if !silence.samples.isEmpty {
            parts.append("\(silence.samples.count) sample header\(silence.samples.count == 1 ? "" : "s") FluidSynth plays as silence ("
                         + some(silence.samples.map { "\($0.name): \($0.reason)" }) + ")")
        }
        if !silence.silentPresets.isEmpty {
            parts.append("preset\(silence.silentPresets.count == 1 ? "" : "s") that play nothing: \(some(silence.silentPresets))")
        }
        return "SoundFont '\(silence.path)': " + parts.joined(separator: "; ") + "; those notes will be silent"
    }

    /// What plays, for the first line of output; the sampler's part says
    /// what is in memory (`memorySummary`).
    public var summary: String { summary(instrument: nil) }

    /// `summary` naming `instrument` (the keyboard channel's now, after `{ }`)
    /// instead of the one the session started with; nil: the starting one.
    public func summary(instrument: String?) -> String {
        var text = "\(instrument ?? synth.presetName) from \(soundFont) (\(memorySummary))"
        if let drumText { text += "; drums: \(drumText)" }
        return text
    }

    /// Which channel-10 notes come from where, or nil with `--no-drums`.
    public var drumText: String? {
        guard let drumSource else { return nil }
        let general = MIDINoteSet(notes: 35...81)
        switch drumSource {
        case .kit:
            return kit.map { "\($0.name) (\($0.pads.count) pads), notes without a pad silent" }
        case .soundFont:
            return "the SoundFont's percussion on every note"
        case .both:
            guard let kit else { return nil }
            let fromFont = MIDINoteSet(low: general.low & soundFontDrumNotes.low, high: general.high & soundFontDrumNotes.high)
            return "\(kit.name) (\(kit.pads.count) pads) on notes \(kit.padNotes.rangesDescription); "
                + "the SoundFont's percussion on every other note (of GM's 35-81: \(fromFont.rangesDescription))"
        }
    }

    /// Where channel-10 `note` sounds from, for the screen: "kit", "sf" or nil (silent).
    public func drumOrigin(note: UInt8) -> String? {
        if kit?.pad(forNote: note) != nil { return "kit" }
        return soundFontDrumNotes.contains(note) ? "sf" : nil
    }

    /// The sampler's presets in memory and what they took: "1 of 189 presets
    /// in memory: 7.6 MB of zones and samples, 0.1 MB to list the font's
    /// presets" (a font read whole: "… 11.5 MB of the whole font's index").
    /// Later program changes add to it as they load.
    public var memorySummary: String {
        let presets = synth.presets, totals = presets.totals
        func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        return "\(totals.presets) of \(presets.presets.count) presets in memory: \(megabytes(totals.bytes)) of zones and samples, "
            + (presets.loadsPresetsAlone ? "\(megabytes(presets.structureBytes)) to list the font's presets"
                : "\(megabytes(presets.structureBytes)) of the whole font's index")
    }

    /// Frees what the audio thread has retired. Control loop.
    public func collectRetired() {
        _ = sampler.collectRetired()
        _ = drums?.collectRetired()
    }
}
