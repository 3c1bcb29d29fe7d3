#pragma once
#include <fluidsynth.h>

/// The leading fields of FluidSynth 2's `struct _fluid_preset_t`
/// (src/sfloader/fluid_sfont.h; the same from 2.0 to 2.4). FluidSynth has no
/// public call that plays a preset's note-on without selecting the preset on
/// a channel, so Busker's preset proxies (`PresetProxyFont`) read the real
/// preset's `noteon` here. `SoundFontPresets` checks the layout against a
/// preset it made itself before it trusts it.
typedef struct busker_fluid_preset_fields {
    void *data;
    fluid_sfont_t *sfont;
    fluid_preset_free_t free;
    fluid_preset_get_name_t get_name;
    fluid_preset_get_banknum_t get_banknum;
    fluid_preset_get_num_t get_num;
    fluid_preset_noteon_t noteon;
} busker_fluid_preset_fields;

/// The note-on function of `preset`, read through the layout above.
static inline fluid_preset_noteon_t busker_fluid_preset_noteon(fluid_preset_t *preset) {
    return ((const busker_fluid_preset_fields *)preset)->noteon;
}

/// Whether `preset`, made with `new_fluid_preset(sfont, …, get_num, noteon, …)`
/// and given `data`, shows those values where the layout above expects them.
static inline int busker_fluid_preset_layout_matches(fluid_preset_t *preset, fluid_sfont_t *sfont, void *data,
                                                     fluid_preset_get_num_t get_num, fluid_preset_noteon_t noteon) {
    const busker_fluid_preset_fields *fields = (const busker_fluid_preset_fields *)preset;
    return fields->data == data && fields->sfont == sfont && fields->get_num == get_num && fields->noteon == noteon;
}
