#if canImport(Glibc)
import Glibc
#endif
import CFluidSynth

/// The SoundFont a playing synth holds in place of the real one: for every
/// preset of a `SoundFontPresets`, a preset with the same bank, program and
/// name, whose note-on plays the real preset once it is resident and nothing
/// before.
///
/// Selecting a proxy on a channel reads nothing: proxies have no `notify`
/// (the hook through which FluidSynth's dynamic sample loading reads a
/// preset's samples when a channel selects it), so a program change on the
/// audio thread stays a table lookup. FluidSynth's own rules still decide
/// which preset a program change selects (bank select, the drum channel,
/// fallbacks), since it finds them through this font as it would the real one.
///
/// One per synth: the synth calls its functions on the audio thread; it
/// must outlive the synth (`SamplerSynth` deletes the synth first).
final class PresetProxyFont {
    /// What a proxy preset's data points at.
    struct Slot {
        /// The `SoundFontPresets` (unretained: this font retains it).
        var owner: UnsafeMutableRawPointer
        var index: Int
        var bank: Int32
        var program: Int32
        var name: UnsafeMutablePointer<CChar>
    }

    let presets: SoundFontPresets
    /// The `fluid_sfont_t` to add to a synth.
    let font: OpaquePointer
    private let proxies: UnsafeMutablePointer<OpaquePointer?>
    private let slots: UnsafeMutablePointer<Slot>
    private let fontName: UnsafeMutablePointer<CChar>
    /// FluidSynth's iteration over the font (`fluid_sfont_iteration_next`).
    private var cursor = 0

    /// - Realtime: unsafe (allocates). Control thread.
    init(presets: SoundFontPresets) {
        self.presets = presets
        let count = presets.presets.count
        fontName = strdup(presets.path)
        proxies = .allocate(capacity: max(1, count))
        slots = .allocate(capacity: max(1, count))
        let getName: fluid_sfont_get_name_t = { font in
            Unmanaged<PresetProxyFont>.fromOpaque(fluid_sfont_get_data(font)!)._withUnsafeGuaranteedRef { UnsafePointer($0.fontName) }
        }
        let getPreset: fluid_sfont_get_preset_t = { font, bank, program in
            Unmanaged<PresetProxyFont>.fromOpaque(fluid_sfont_get_data(font)!)._withUnsafeGuaranteedRef {
                $0.proxy(bank: Int(bank), program: Int(program))
            }
        }
        let iterationStart: fluid_sfont_iteration_start_t = { font in
            Unmanaged<PresetProxyFont>.fromOpaque(fluid_sfont_get_data(font)!)._withUnsafeGuaranteedRef { $0.cursor = 0 }
        }
        let iterationNext: fluid_sfont_iteration_next_t = { font in
            Unmanaged<PresetProxyFont>.fromOpaque(fluid_sfont_get_data(font)!)._withUnsafeGuaranteedRef { proxy in
                guard proxy.cursor < proxy.presets.presets.count else { return nil }
                proxy.cursor += 1
                return proxy.proxies[proxy.cursor - 1]
            }
        }
        // The synth calls this when it is deleted; this object frees the font afterwards.
        font = new_fluid_sfont(getName, getPreset, iterationStart, iterationNext, { _ in 0 })!
        let owner = Unmanaged.passUnretained(presets).toOpaque()
        for (index, preset) in presets.presets.enumerated() {
            (slots + index).initialize(to: Slot(owner: owner, index: index, bank: Int32(preset.bank),
                                                program: Int32(preset.program), name: strdup(preset.name)))
            let proxy = new_fluid_preset(font, { preset in UnsafePointer(PresetProxyFont.slot(of: preset).pointee.name) },
                                         { preset in PresetProxyFont.slot(of: preset).pointee.bank },
                                         { preset in PresetProxyFont.slot(of: preset).pointee.program },
                                         Self.noteOn, { _ in })
            _ = fluid_preset_set_data(proxy, UnsafeMutableRawPointer(slots + index))
            (proxies + index).initialize(to: proxy)
        }
        _ = fluid_sfont_set_data(font, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for index in 0..<presets.presets.count {
            delete_fluid_preset(proxies[index])
            free(slots[index].name)
        }
        delete_fluid_sfont(font)
        free(fontName)
        proxies.deallocate()
        slots.deallocate()
    }

    // MARK: Audio thread

    /// A proxy preset's note-on: the real preset's, once resident.
    /// - Thread: audio (FluidSynth calls it from `fluid_synth_noteon`)
    /// - Realtime: safe
    private static let noteOn: fluid_preset_noteon_t = { preset, synth, channel, key, velocity in
        let slot = slot(of: preset)
        return Unmanaged<SoundFontPresets>.fromOpaque(slot.pointee.owner)._withUnsafeGuaranteedRef {
            $0.noteOn(slot.pointee.index, synth: synth, channel: channel, key: key, velocity: velocity)
        }
    }

    @inline(__always)
    private static func slot(of preset: OpaquePointer?) -> UnsafeMutablePointer<Slot> {
        fluid_preset_get_data(preset)!.assumingMemoryBound(to: Slot.self)
    }

    /// The proxy at `bank` and `program`, or nil (FluidSynth then falls back as it would).
    /// - Thread: audio, control
    /// - Realtime: safe
    private func proxy(bank: Int, program: Int) -> OpaquePointer? {
        presets.index(bank: bank, program: program).flatMap { proxies[$0] }
    }

    /// The index in `presets` of `preset`, a preset of this font; nil for anything else.
    /// - Thread: audio, control
    /// - Realtime: safe
    func index(of preset: OpaquePointer?) -> Int? {
        guard let preset, fluid_preset_get_sfont(preset) == font else { return nil }
        return Self.slot(of: preset).pointee.index
    }
}
