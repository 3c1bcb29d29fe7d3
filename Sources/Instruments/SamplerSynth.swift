import CFluidSynth
import MIDI

/// One FluidSynth synthesizer with its SoundFont loaded: what a `SamplerNode`
/// plays through.
///
/// Built off the audio thread (loading a SoundFont reads and converts every
/// sample: 0.2 s for FluidR3_GM's 148 MB here), then handed to the audio
/// thread, which from then on is the only thread that touches it, until it is
/// retired and deleted back on the control thread. That is why it runs with
/// `synth.threadsafe-api = 0`: FluidSynth then takes no mutex in any call,
/// and events are applied directly instead of through its internal queue.
///
/// Settings, and why:
/// - `synth.sample-rate`: the engine's rate; FluidSynth's own audio drivers are unused.
/// - `synth.reverb.active`, `synth.chorus.active`: off unless configured (Busker's reverb serves).
/// - `synth.audio-channels`, `synth.audio-groups`: 16 with `channelOutputs`
///   (each MIDI channel to its own stereo pair), else 1.
/// - `synth.polyphony`: the configured limit; FluidSynth steals voices beyond it.
/// - `synth.gain`: see `SamplerConfiguration.gain`.
/// - `synth.cpu-cores = 1`: no FluidSynth worker threads; the render thread does the work.
/// - `synth.dynamic-sample-loading = 0`: every sample is in memory after loading,
///   so a note-on or program change never reads the disk or allocates.
/// - `synth.lock-memory = 1`: sample data is mlock'ed where allowed, so a note
///   never page-faults (FluidSynth only warns when it may not).
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

    // MARK: Audio thread only (once handed over)
    private let settings: OpaquePointer
    private let synth: OpaquePointer
    private let soundFontID: Int32
    /// Two output pointers for `fluid_synth_process` (the mix of every channel).
    private let mixOutputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// Whether each MIDI channel renders to its own pair (`renderChannels`).
    public let channelOutputs: Bool

    /// Loads the SoundFont and selects the instrument on `channels`.
    ///
    /// The program goes on every channel in `channels` except General MIDI's
    /// percussion channel, which keeps the font's drum kit (bank 128).
    /// - Throws: `SamplerError` naming the file: not found, not a SoundFont,
    ///   truncated, refused by FluidSynth, or without the preset.
    /// - Realtime: unsafe (allocates, reads files). Control or loader thread.
    public init(configuration: SamplerConfiguration, sampleRate: Double, channels: SamplerChannelSet = .melodic) throws {
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
        _ = try SoundFontHeader(checking: path)
        SoundFontLoadLog.install()

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
        _ = fluid_settings_setint(settings, "synth.dynamic-sample-loading", 0)
        _ = fluid_settings_setint(settings, "synth.lock-memory", 1)
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
        // Reset presets: every channel gets the font's default (program 0, drums on channel 10).
        let (id, loadError) = SoundFontLoadLog.capturing { fluid_synth_sfload(synth, path, 1) }
        guard id != FLUID_FAILED, let font = fluid_synth_get_sfont_by_id(synth, id) else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw SamplerError.soundFontLoadFailed(path: path, message: loadError)
        }
        let instrument = configuration.instrument
        guard let preset = fluid_sfont_get_preset(font, Int32(instrument.bank), Int32(instrument.program)) else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw SamplerError.presetNotFound(path: path, bank: instrument.bank, program: instrument.program)
        }
        presetName = fluid_preset_get_name(preset).map { String(cString: $0) } ?? instrument.description

        self.settings = settings
        self.synth = synth
        channelOutputs = configuration.channelOutputs
        mixOutputs = .allocate(capacity: 2)
        mixOutputs.initialize(repeating: nil, count: 2)
        self.soundFontID = id
        self.configuration = configuration
        self.sampleRate = sampleRate
        self.channels = channels
        selectConfiguredInstrument()
        prime()
    }

    deinit {
        mixOutputs.deallocate()
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
    }

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
    /// - Thread: audio
    /// - Realtime: safe. No allocation, no locks (`synth.threadsafe-api = 0`);
    ///   checked by the compiler with `@_noLocks` up to the C calls, and
    ///   counted call by call in `SamplerAllocationTests`.
    @_noLocks
    public func apply(_ message: MIDIMessage) {
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
