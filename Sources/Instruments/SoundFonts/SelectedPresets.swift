import CFluidSynth
import MIDI

/// Which presets a song selects on a synth's channels: found by playing the
/// song's program changes, bank selects and resets, in order, through a
/// scratch FluidSynth synth that holds the same proxy presets and plays no
/// note, so that FluidSynth's own rules (bank select style, the drum
/// channel, fallbacks to bank 0 or program 0) decide, exactly as they will
/// when the song plays.
enum SelectedPresets {
    /// The indices (in `presets`) of every preset selected on `channels`
    /// while `messages` play, the configured instrument's included.
    /// - Realtime: unsafe (allocates). Control thread.
    static func scan(_ messages: some Sequence<MIDIMessage>, presets: SoundFontPresets, instrument: SamplerInstrument,
                     channels: SamplerChannelSet) -> Set<Int> {
        guard let settings = SoundFontPresets.silentSynthSettings() else { return [] }
        defer { delete_fluid_settings(settings) }
        guard let synth = new_fluid_synth(settings) else { return [] }
        let proxies = PresetProxyFont(presets: presets)
        defer {
            delete_fluid_synth(synth)
            withExtendedLifetime(proxies) {}
        }
        let id = fluid_synth_add_sfont(synth, proxies.font)
        var selected = Set<Int>()
        func selectInstrument() {
            for channel in channels.channels where channel != Int(GeneralMIDI.percussionChannel) {
                _ = fluid_synth_program_select(synth, Int32(channel), id, Int32(instrument.bank), Int32(instrument.program))
            }
        }
        func note() {
            for channel in channels.channels {
                if let index = proxies.index(of: fluid_synth_get_channel_preset(synth, Int32(channel))) { selected.insert(index) }
            }
        }
        selectInstrument()
        note()
        for message in messages {
            if let channel = message.channel, !channels.contains(channel: channel) { continue }
            switch message {
            case .controlChange(let channel, let controller, let value):
                _ = fluid_synth_cc(synth, Int32(channel), Int32(controller & 0x7F), Int32(value & 0x7F))
            case .programChange(let channel, let program):
                _ = fluid_synth_program_change(synth, Int32(channel), Int32(program & 0x7F))
                if let index = proxies.index(of: fluid_synth_get_channel_preset(synth, Int32(channel))) { selected.insert(index) }
            case .systemReset:
                _ = fluid_synth_system_reset(synth)
                selectInstrument()
                note()
            default:
                break
            }
        }
        return selected
    }
}
