import CFluidSynth
import MIDI
import Synchronization

/// One FluidSynth synthesizer playing a SoundFont: what a `SamplerNode`
/// plays through.
///
/// Built off the audio thread, then handed to the audio thread, which from
/// then on is the only thread that touches it, until it is retired and
/// deleted back on the control thread. That is why it runs with
/// `synth.threadsafe-api = 0`: FluidSynth then takes no mutex in any call,
/// and events are applied directly instead of through its internal queue.
///
/// Memory follows the music: the synth holds a `PresetProxyFont` over the
/// font's `SoundFontPresets`, and only the presets its channels select are
/// read into memory. At init the configured instrument is made resident
/// (and, with `preload`, every preset a song selects); the percussion
/// channel's starting kit is asked for by that channel's first note, which
/// waits for it as below. A program change on
/// the audio thread to a preset still on disk asks the `PresetLoader`
/// thread for it, and its channel waits (`PresetWaits`): its messages are
/// held and replayed at the first block after the preset is in
/// (`resumeWaitingChannels`), so that note sounds late, never wrong, and the
/// audio thread never reads the disk or allocates.
///
/// Settings, and why:
/// - `synth.sample-rate`: the engine's rate; FluidSynth's own audio drivers are unused.
/// - `synth.reverb.active`, `synth.chorus.active`: off unless configured (Busker's reverb serves).
/// - `synth.audio-channels`, `synth.audio-groups`: 16 with `channelOutputs`
///   (each MIDI channel to its own stereo pair), else 1.
/// - `synth.polyphony`: the configured limit; FluidSynth steals voices beyond it.
/// - `synth.gain`: see `SamplerConfiguration.gain`.
/// - `synth.cpu-cores = 1`: no FluidSynth worker threads; the render thread does the work.
/// - No real SoundFont: the proxy font only (sample loading settings are
///   `SoundFontPresets`'s: dynamic loading, mlock'ed samples).
/// - `audio.period-size` and the other `audio.*` settings are irrelevant: no driver.
public final class SamplerSynth: @unchecked Sendable {
    /// FluidSynth renders in blocks of this many frames (`FLUID_BUFSIZE`).
    /// An event applied between two `render` calls takes effect at the start
    /// of FluidSynth's next internal block: note starts are quantised to this
    /// grid, counted from the synth's first rendered frame.
    public static let internalBlockSize = 64

    public let configuration: SamplerConfiguration
    public let sampleRate: Double
    /// The preset's name in the SoundFont ("Yamaha Grand Piano").
    public let presetName: String
    /// The channels the configured instrument was set on at load.
    public let channels: SamplerChannelSet
    /// The font's presets, and which are in memory.
    public let presets: SoundFontPresets

    // MARK: Audio thread only (once handed over)
    private let settings: OpaquePointer
    private let synth: OpaquePointer
    private let soundFontID: Int32
    /// Two output pointers for `fluid_synth_process` (the mix of every channel).
    private let mixOutputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// Whether each MIDI channel renders to its own pair (`renderChannels`).
    public let channelOutputs: Bool
    private let proxyFont: PresetProxyFont
    private let loader: PresetLoader
    private let waits = PresetWaits()
    /// Per channel, for other threads: the selected preset's index + 1
    /// (0: none), negative while the channel waits for it.
    private let channelPresets: UnsafeMutablePointer<Atomic<Int>>
    /// Bit n: channel n's starting preset is read at the channel's first
    /// note-on, not at start. Every channel but those on the configured
    /// instrument: in practice the percussion channel's drum kit, which a
    /// session that sounds no SoundFont drum never needs. A program change
    /// clears the bit (the preset it selects is read at once).
    private var deferredChannels: UInt16 = 0
    /// Presets in the font (`presets.presets.count`, read once).
    private let presetCount: Int
    /// Per preset: idle checks in a row it was resident and selected on no channel.
    private let idleChecks: UnsafeMutablePointer<UInt16>
    /// Per channel, scratch for `freeIdlePresets`: the preset it selects (−1: none).
    private let selectedScratch: UnsafeMutablePointer<Int>
    /// Frames between idle checks (half a second), frames left to the next,
    /// and the checks in a row that free a preset (0: never).
    private let idleCheckFrames: Int
    private var framesToIdleCheck: Int
    private let idleChecksToFree: Int

    /// Reads the SoundFont's presets, selects the instrument on `channels`
    /// and reads its samples; channel 10's drum kit (when `channels` has it)
    /// is read at that channel's first note.
    ///
    /// The program goes on every channel in `channels` except General MIDI's
    /// percussion channel, which keeps the font's drum kit (bank 128).
    /// - Parameter presets: the font already read (its path must be the
    ///   configuration's); read here when nil.
    /// - Throws: `SamplerError` naming the file: not found, not a SoundFont,
    ///   truncated, refused by FluidSynth, or without the preset.
    /// - Realtime: unsafe (allocates, reads files). Control or loader thread.
    public init(configuration: SamplerConfiguration, sampleRate: Double, channels: SamplerChannelSet = .melodic,
                presets: SoundFontPresets? = nil) throws {
        guard SamplerConfiguration.polyphonyRange.contains(configuration.polyphony) else {
            throw SamplerError.valueOutOfRange(name: "polyphony", value: String(configuration.polyphony), range: "1-65535")
        }
        guard SamplerConfiguration.gainRange.contains(configuration.gain) else {
            throw SamplerError.valueOutOfRange(name: "gain", value: String(configuration.gain), range: "0-10")
        }
        guard SamplerInstrument.programRange.contains(configuration.instrument.program) else {
            throw SamplerError.valueOutOfRange(name: "program", value: String(configuration.instrument.program), range: "0-127")
        }
        guard SamplerInstrument.bankRange.contains(configuration.instrument.bank) else {
            throw SamplerError.valueOutOfRange(name: "bank", value: String(configuration.instrument.bank), range: "0-16383")
        }
        let path = configuration.soundFontPath
        let presets = try presets ?? SoundFontPresets(path: path)
        precondition(presets.path == path, "presets of \(presets.path) for a synth of \(path)")
        let instrument = configuration.instrument
        guard let instrumentIndex = presets.index(bank: instrument.bank, program: instrument.program) else {
            throw SamplerError.presetNotFound(path: path, bank: instrument.bank, program: instrument.program)
        }

        guard let settings = new_fluid_settings() else {
            throw SamplerError.synthesizerCreationFailed("new_fluid_settings failed")
        }
        _ = fluid_settings_setnum(settings, "synth.sample-rate", sampleRate)
        _ = fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        _ = fluid_settings_setint(settings, "synth.reverb.active", configuration.reverb ? 1 : 0)
        _ = fluid_settings_setint(settings, "synth.chorus.active", configuration.chorus ? 1 : 0)
        _ = fluid_settings_setint(settings, "synth.polyphony", Int32(configuration.polyphony))
        _ = fluid_settings_setnum(settings, "synth.gain", configuration.gain)
        _ = fluid_settings_setint(settings, "synth.cpu-cores", 1)
        let groups: Int32 = configuration.channelOutputs ? 16 : 1
        _ = fluid_settings_setint(settings, "synth.audio-channels", groups)
        _ = fluid_settings_setint(settings, "synth.audio-groups", groups)
        _ = fluid_settings_setint(settings, "synth.midi-channels", 16)
        _ = fluid_settings_setint(settings, "synth.verbose", 0)

        let (created, creationError) = SoundFontLoadLog.capturing { new_fluid_synth(settings) }
        guard let synth = created else {
            delete_fluid_settings(settings)
            throw SamplerError.synthesizerCreationFailed(creationError ?? "new_fluid_synth failed")
        }
        // Adding the font resets presets: every channel gets the font's
        // default (program 0, drums on channel 10), which reads nothing.
        let proxyFont = PresetProxyFont(presets: presets)
        let id = fluid_synth_add_sfont(synth, proxyFont.font)
        guard id != FLUID_FAILED else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw SamplerError.soundFontLoadFailed(path: path, message: "the synthesizer refused its presets")
        }
        presetName = presets.presets[instrumentIndex].name
        self.presets = presets
        self.proxyFont = proxyFont
        self.settings = settings
        self.synth = synth
        channelOutputs = configuration.channelOutputs
        mixOutputs = .allocate(capacity: 2)
        mixOutputs.initialize(repeating: nil, count: 2)
        self.soundFontID = id
        self.configuration = configuration
        self.sampleRate = sampleRate
        self.channels = channels
        channelPresets = .allocate(capacity: 16)
        for channel in 0..<16 { (channelPresets + channel).initialize(to: Atomic(0)) }
        presetCount = presets.presets.count
        idleChecks = .allocate(capacity: max(1, presetCount))
        idleChecks.initialize(repeating: 0, count: max(1, presetCount))
        selectedScratch = .allocate(capacity: 16)
        selectedScratch.initialize(repeating: -1, count: 16)
        idleCheckFrames = max(1, Int(sampleRate / 2))
        framesToIdleCheck = idleCheckFrames
        let idleSeconds = configuration.unloadIdlePresetsAfterSeconds
        // Only the first synth of a shared `SoundFontPresets` frees: its silence says nothing of another's voices.
        idleChecksToFree = idleSeconds > 0 && presets.claimFreeing() ? max(1, Int((idleSeconds * 2).rounded(.up))) : 0
        loader = PresetLoader(presets: presets)
        selectConfiguredInstrument()
        // The instrument, read now: its first note never waits. Another
        // starting preset (channel 10's drum kit) is read at its channel's first note.
        for channel in channels.channels {
            guard let index = proxyFont.index(of: fluid_synth_get_channel_preset(synth, Int32(channel))) else { continue }
            if index == instrumentIndex {
                // A font FluidSynth refuses is refused here, in its words, rather than played as silence.
                guard presets.makeResident(index) else {
                    throw SamplerError.soundFontLoadFailed(path: path, message: presets.lastFailure)
                }
            } else {
                deferredChannels |= 1 << UInt16(channel)
            }
        }
        awaitSelectedPresets()
        prime()
    }

    deinit {
        mixOutputs.deallocate()
        // The synth first: its voices let go of the samples the presets hold.
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
        channelPresets.deinitialize(count: 16)
        channelPresets.deallocate()
        idleChecks.deallocate()
        selectedScratch.deallocate()
    }

    /// Reads the samples of every preset that `messages` (a song's, in
    /// order) select on this synth's channels, before the synth plays them,
    /// so that a render sounds every note on time.
    /// - Returns: the presets read now.
    /// - Realtime: unsafe (reads files). Control thread, before the synth is handed over.
    @discardableResult
    public func preload(presetsSelectedBy messages: some Sequence<MIDIMessage>) -> [SoundFontPreset] {
        let selected = SelectedPresets.scan(messages, presets: presets, instrument: configuration.instrument, channels: channels)
        // A song's presets stay for the whole song: none is read late because an earlier passage let it go.
        selected.forEach(presets.keep)
        var read: [SoundFontPreset] = []
        for index in selected.sorted() where presets.residency(index) != .resident {
            if presets.makeResident(index) { read.append(presets.presets[index]) }
        }
        awaitSelectedPresets()
        return read
    }

    /// The preset selected on `channel` (0–15), and whether the channel still waits for its samples.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public func preset(onChannel channel: Int) -> (preset: SoundFontPreset, loading: Bool)? {
        guard (0..<16).contains(channel) else { return nil }
        let value = channelPresets[channel].load(ordering: .relaxed)
        guard value != 0 else { return nil }
        return (presets.presets[abs(value) - 1], value < 0)
    }

    /// Messages dropped because a channel waiting for its preset held too many.
    /// - Thread: any
    /// - Realtime: safe
    public var heldMessagesDropped: Int { waits.droppedCount }

    /// Renders one internal block into scratch and throws it away, so that
    /// any first-render work happens here, on the control thread, and the
    /// audio thread starts the synth on a fresh 64-frame block.
    /// - Realtime: unsafe (allocates scratch). Construction only.
    private func prime() {
        let frames = Self.internalBlockSize
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
        defer { scratch.deallocate() }
        _ = fluid_synth_write_float(synth, Int32(frames), scratch, 0, 1, scratch + frames, 0, 1)
    }

    /// Sets the configured bank and program on the sampler's melodic channels, at load.
    /// - Thread: control
    /// - Realtime: safe (FluidSynth looks the preset up in the loaded font's lists; no allocation)
    private func selectConfiguredInstrument() {
        Self.select(configuration.instrument, on: channels, synth: synth, soundFontID: soundFontID)
    }

    // MARK: Audio thread

    /// Sets `instrument` on the melodic channels among `channels`: at load,
    /// and after a MIDI system reset (which would otherwise leave the piano on
    /// every channel whatever `--instrument` said). A static function of plain
    /// values, so the `@_noLocks` caller retains nothing.
    /// - Thread: audio, control
    /// - Realtime: safe
    private static func select(_ instrument: SamplerInstrument, on channels: SamplerChannelSet, synth: OpaquePointer, soundFontID: Int32) {
        let bank = Int32(instrument.bank), program = Int32(instrument.program)
        for channel in 0..<UInt8(16) where channels.contains(channel: channel) && channel != GeneralMIDI.percussionChannel {
            _ = fluid_synth_program_select(synth, Int32(channel), soundFontID, bank, program)
        }
    }

    /// Applies one MIDI message now: it takes effect at the start of
    /// FluidSynth's next 64-frame internal block (see `internalBlockSize`).
    ///
    /// Note on and off with velocity; control changes as FluidSynth defines
    /// them (sustain 64, modulation 1, volume 7, pan 10, expression 11, bank
    /// select 0/32, all sound off 120, reset controllers 121, all notes off
    /// 123 among others); pitch bend 0…16383; program change; channel and
    /// polyphonic pressure; system reset (everything back to power-up, then
    /// the configured instrument again). Other messages are ignored.
    /// A program change to a preset on disk makes its channel wait (see the
    /// type's notes); so do the messages that follow on that channel.
    /// - Thread: audio
    /// - Realtime: safe. No allocation, no locks (`synth.threadsafe-api = 0`);
    ///   the FluidSynth calls checked by the compiler with `@_noLocks` up to
    ///   the C calls, all of it counted call by call in `SamplerAllocationTests`
    ///   and `PresetLoadingTests`.
    public func apply(_ message: MIDIMessage) {
        if deferredChannels != 0 { readDeferredPreset(for: message) }
        // A channel waiting for its preset keeps its messages, in order, for later.
        if waits.hold(message) { return }
        applyToSynth(message)
        switch message {
        case .programChange(let channel, _):
            awaitPreset(onChannel: Int(channel & 0x0F))
        case .systemReset:
            waits.clear()
            awaitSelectedPresets()
        default:
            break
        }
    }

    /// `apply`'s FluidSynth calls.
    /// - Thread: audio
    /// - Realtime: safe (checked by the compiler with `@_noLocks` up to the C calls)
    @_noLocks
    private func applyToSynth(_ message: MIDIMessage) {
        let synth = self.synth
        switch message {
        case .noteOn(let channel, let note, let velocity):
            // FluidSynth treats velocity 0 as a note off, as MIDI does.
            _ = _unsafePerformance { fluid_synth_noteon(synth, Int32(channel), Int32(note & 0x7F), Int32(velocity & 0x7F)) }
        case .noteOff(let channel, let note, _):
            _ = _unsafePerformance { fluid_synth_noteoff(synth, Int32(channel), Int32(note & 0x7F)) }
        case .controlChange(let channel, let controller, let value):
            _ = _unsafePerformance { fluid_synth_cc(synth, Int32(channel), Int32(controller & 0x7F), Int32(value & 0x7F)) }
        case .programChange(let channel, let program):
            _ = _unsafePerformance { fluid_synth_program_change(synth, Int32(channel), Int32(program & 0x7F)) }
        case .pitchBend(let channel, let value):
            _ = _unsafePerformance { fluid_synth_pitch_bend(synth, Int32(channel), Int32(min(value, 16383))) }
        case .channelPressure(let channel, let pressure):
            _ = _unsafePerformance { fluid_synth_channel_pressure(synth, Int32(channel), Int32(pressure & 0x7F)) }
        case .polyPressure(let channel, let note, let pressure):
            _ = _unsafePerformance { fluid_synth_key_pressure(synth, Int32(channel), Int32(note & 0x7F), Int32(pressure & 0x7F)) }
        case .systemReset:
            let instrument = configuration.instrument, channels = self.channels, soundFontID = self.soundFontID
            _ = _unsafePerformance { fluid_synth_system_reset(synth) }
            _unsafePerformance { SamplerSynth.select(instrument, on: channels, synth: synth, soundFontID: soundFontID) }
        default:
            break
        }
    }

    /// Replays the messages held for channels whose preset has come in
    /// since; call it at the start of every block. A replayed program change
    /// to another preset on disk makes its channel wait again.
    /// - Thread: audio
    /// - Realtime: safe
    public func resumeWaitingChannels() {
        guard waits.waitingChannels != 0 else { return }
        for channel in 0..<16 {
            guard let index = waits.awaitedPreset(channel) else { continue }
            let residency = presets.residency(index)
            // Freed while the channel came to wait for it (or its request found the queue full): ask again.
            if residency == .absent { loader.request(index) }
            guard residency == .resident || residency == .failed else { continue }
            waits.endWait(channel)
            publish(channel: channel, index: index, loading: false)
            while !waits.isWaiting(channel), let message = waits.nextHeld(channel) { apply(message) }
        }
    }

    /// After a program change on `channel`: if the preset it selected is on
    /// disk, asks the loader for it and makes the channel wait.
    /// - Thread: audio, control
    /// - Realtime: safe
    private func awaitPreset(onChannel channel: Int) {
        guard let index = proxyFont.index(of: fluid_synth_get_channel_preset(synth, Int32(channel))) else {
            channelPresets[channel].store(0, ordering: .relaxed)
            return
        }
        switch presets.residency(index) {
        case .resident, .failed:
            publish(channel: channel, index: index, loading: false)
        case .absent, .requested, .retiring:
            // A deferred channel's starting preset waits for the channel's first note.
            if deferredChannels & (UInt16(1) << UInt16(channel)) != 0 {
                channelPresets[channel].store(0, ordering: .relaxed)
                return
            }
            loader.request(index)
            waits.wait(channel, for: index)
            publish(channel: channel, index: index, loading: true)
        }
    }

    /// A deferred channel's preset is asked for by its first note-on (the
    /// channel then waits for it, that note held) or given up for the one a
    /// program change selects.
    /// - Thread: audio
    /// - Realtime: safe
    private func readDeferredPreset(for message: MIDIMessage) {
        let channel: Int
        switch message {
        case .noteOn(let c, _, let velocity) where velocity > 0: channel = Int(c & 0x0F)
        case .programChange(let c, _): channel = Int(c & 0x0F)
        default: return
        }
        let bit = UInt16(1) << UInt16(channel)
        guard deferredChannels & bit != 0 else { return }
        deferredChannels &= ~bit
        if case .noteOn = message { awaitPreset(onChannel: channel) }
    }

    /// Every half second of audio: a resident preset that no channel has
    /// selected for `unloadIdlePresetsAfterSeconds` is let go while the synth
    /// is silent (no voice at all, so none holds its samples) and freed on
    /// the loader thread. Its note-ons play nothing from the moment it is let
    /// go; a later program change to it reads it again, its channel waiting
    /// as for any preset on disk. Call it once per block, after rendering.
    /// - Thread: audio
    /// - Realtime: safe (atomics, a wait-free push; no allocation, no lock)
    public func freeIdlePresets(afterRendering frames: Int) {
        guard idleChecksToFree > 0 else { return }
        framesToIdleCheck -= frames
        guard framesToIdleCheck <= 0 else { return }
        framesToIdleCheck += idleCheckFrames
        for channel in 0..<16 {
            selectedScratch[channel] = proxyFont.index(of: fluid_synth_get_channel_preset(synth, Int32(channel))) ?? -1
        }
        let silent = fluid_synth_get_active_voice_count(synth) == 0
        for index in 0..<presetCount {
            guard presets.residency(index) == .resident else {
                idleChecks[index] = 0
                continue
            }
            var selected = false
            for channel in 0..<16 where selectedScratch[channel] == index { selected = true }
            if selected {
                idleChecks[index] = 0
                continue
            }
            if idleChecks[index] < UInt16.max { idleChecks[index] += 1 }
            if silent && Int(idleChecks[index]) >= idleChecksToFree && loader.retire(index) { idleChecks[index] = 0 }
        }
    }

    /// `awaitPreset` on every channel this synth answers.
    /// - Thread: audio, control
    /// - Realtime: safe
    private func awaitSelectedPresets() {
        for channel in 0..<16 where channels.contains(channel: UInt8(channel)) { awaitPreset(onChannel: channel) }
    }

    /// - Thread: audio, control
    /// - Realtime: safe
    private func publish(channel: Int, index: Int, loading: Bool) {
        channelPresets[channel].store(loading ? -(index + 1) : index + 1, ordering: .relaxed)
    }

    /// Writes `frameCount` frames of stereo into `left` and `right`
    /// (overwriting them).
    /// - Thread: audio
    /// - Realtime: safe (checked by the compiler with `@_noLocks` up to the C call)
    @_noLocks
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        guard frameCount > 0 else { return }
        let synth = self.synth
        if channelOutputs {
            // fluid_synth_process adds every channel's pair into the two buffers.
            left.update(repeating: 0, count: frameCount)
            right.update(repeating: 0, count: frameCount)
            let outputs = mixOutputs
            outputs[0] = left
            outputs[1] = right
            _ = _unsafePerformance { fluid_synth_process(synth, Int32(frameCount), 0, nil, 2, outputs) }
        } else {
            _ = _unsafePerformance { fluid_synth_write_float(synth, Int32(frameCount), left, 0, 1, right, 0, 1) }
        }
    }

    /// Adds `frameCount` frames of each MIDI channel `c` into `outputs[2c]`
    /// (left) and `outputs[2c + 1]` (right): 32 buffers, cleared by the
    /// caller. Only with `configuration.channelOutputs`.
    /// - Thread: audio
    /// - Realtime: safe (checked by the compiler with `@_noLocks` up to the C call)
    @_noLocks
    public func renderChannels(_ outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, frameCount: Int) {
        guard frameCount > 0 else { return }
        let synth = self.synth
        _ = _unsafePerformance { fluid_synth_process(synth, Int32(frameCount), 0, nil, 32, outputs) }
    }

    /// Voices sounding now, released ones still in their release included.
    /// - Thread: audio
    /// - Realtime: safe
    public var activeVoiceCount: Int {
        Int(fluid_synth_get_active_voice_count(synth))
    }

    /// Silences every voice at once (no release), on every channel.
    /// - Thread: audio, control
    /// - Realtime: safe
    public func silence() {
        _ = fluid_synth_all_sounds_off(synth, -1)
    }
}
