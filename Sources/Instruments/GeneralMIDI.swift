
/// The General MIDI Level 1 names: the 128 melodic programs and the
/// percussion key map of channel 10 (channel index 9 here).
///
/// Names are the specification's, so `--instrument` can take them; lookups
/// ignore case, spaces and punctuation ("acoustic grand piano", "Xylophone").
public enum GeneralMIDI {
    /// The channel index (0-based) that GM reserves for percussion: "channel 10".
    public static let percussionChannel: UInt8 = 9

    /// Program names, indexed by program number 0–127.
    public static let programNames: [String] = [
        // Piano
        "Acoustic Grand Piano", "Bright Acoustic Piano", "Electric Grand Piano", "Honky-tonk Piano",
        "Electric Piano 1", "Electric Piano 2", "Harpsichord", "Clavinet",
        // Chromatic percussion
        "Celesta", "Glockenspiel", "Music Box", "Vibraphone", "Marimba", "Xylophone", "Tubular Bells", "Dulcimer",
        // Organ
        "Drawbar Organ", "Percussive Organ", "Rock Organ", "Church Organ", "Reed Organ", "Accordion", "Harmonica", "Tango Accordion",
        // Guitar
        "Acoustic Guitar (nylon)", "Acoustic Guitar (steel)", "Electric Guitar (jazz)", "Electric Guitar (clean)",
        "Electric Guitar (muted)", "Overdriven Guitar", "Distortion Guitar", "Guitar Harmonics",
        // Bass
        "Acoustic Bass", "Electric Bass (finger)", "Electric Bass (pick)", "Fretless Bass",
        "Slap Bass 1", "Slap Bass 2", "Synth Bass 1", "Synth Bass 2",
        // Strings
        "Violin", "Viola", "Cello", "Contrabass", "Tremolo Strings", "Pizzicato Strings", "Orchestral Harp", "Timpani",
        // Ensemble
        "String Ensemble 1", "String Ensemble 2", "Synth Strings 1", "Synth Strings 2",
        "Choir Aahs", "Voice Oohs", "Synth Voice", "Orchestra Hit",
        // Brass
        "Trumpet", "Trombone", "Tuba", "Muted Trumpet", "French Horn", "Brass Section", "Synth Brass 1", "Synth Brass 2",
        // Reed
        "Soprano Sax", "Alto Sax", "Tenor Sax", "Baritone Sax", "Oboe", "English Horn", "Bassoon", "Clarinet",
        // Pipe
        "Piccolo", "Flute", "Recorder", "Pan Flute", "Blown Bottle", "Shakuhachi", "Whistle", "Ocarina",
        // Synth lead
        "Lead 1 (square)", "Lead 2 (sawtooth)", "Lead 3 (calliope)", "Lead 4 (chiff)",
        "Lead 5 (charang)", "Lead 6 (voice)", "Lead 7 (fifths)", "Lead 8 (bass + lead)",
        // Synth pad
        "Pad 1 (new age)", "Pad 2 (warm)", "Pad 3 (polysynth)", "Pad 4 (choir)",
        "Pad 5 (bowed)", "Pad 6 (metallic)", "Pad 7 (halo)", "Pad 8 (sweep)",
        // Synth effects
        "FX 1 (rain)", "FX 2 (soundtrack)", "FX 3 (crystal)", "FX 4 (atmosphere)",
        "FX 5 (brightness)", "FX 6 (goblins)", "FX 7 (echoes)", "FX 8 (sci-fi)",
        // Ethnic
        "Sitar", "Banjo", "Shamisen", "Koto", "Kalimba", "Bagpipe", "Fiddle", "Shanai",
        // Percussive
        "Tinkle Bell", "Agogo", "Steel Drums", "Woodblock", "Taiko Drum", "Melodic Tom", "Synth Drum", "Reverse Cymbal",
        // Sound effects
        "Guitar Fret Noise", "Breath Noise", "Seashore", "Bird Tweet", "Telephone Ring", "Helicopter", "Applause", "Gunshot",
    ]

    /// Short names people type, for the most played programs.
    public static let programAliases: [String: Int] = [
        "piano": 0, "grandpiano": 0, "brightpiano": 1, "electricpiano": 4, "epiano": 4, "rhodes": 4,
        "harpsichord": 6, "celesta": 8, "glockenspiel": 9, "musicbox": 10, "vibraphone": 11, "vibes": 11,
        "marimba": 12, "xylophone": 13, "bells": 14, "organ": 16, "churchorgan": 19, "accordion": 21,
        "harmonica": 22, "guitar": 24, "nylonguitar": 24, "steelguitar": 25, "electricguitar": 27,
        "bass": 32, "violin": 40, "cello": 42, "harp": 46, "strings": 48, "choir": 52,
        "trumpet": 56, "trombone": 57, "horn": 60, "sax": 65, "saxophone": 65, "clarinet": 71,
        "flute": 73, "panflute": 75, "kalimba": 108, "steeldrums": 114,
    ]

    /// The program for a name or alias, ignoring case, spaces and punctuation; nil when unknown.
    public static func program(named name: String) -> Int? {
        let key = normalized(name)
        if key.isEmpty { return nil }
        if let alias = programAliases[key] { return alias }
        return programNames.firstIndex { normalized($0) == key }
    }

    /// The programs `name` may mean, as a player types it: the one it names
    /// exactly (or by an alias, as `program(named:)`), else every program
    /// whose name starts with it, else every one whose name contains it,
    /// case, spaces and punctuation ignored ("Acoustic Gr" finds program 0,
    /// "Acoustic Guitar" both guitars 24 and 25, "nylon" program 24). Empty
    /// when nothing matches; more than one when the name is ambiguous.
    public static func programs(matching name: String) -> [Int] {
        if let exact = program(named: name) { return [exact] }
        return indices(matching: name, in: programNames)
    }

    /// The indices of `names` that `name` may mean, case, spaces and
    /// punctuation ignored: those equal to it, else those that start with
    /// it, else those that contain it (a SoundFont's own preset names, say).
    public static func indices(matching name: String, in names: [String]) -> [Int] {
        let key = normalized(name)
        if key.isEmpty { return [] }
        let keys = names.map(normalized)
        let exact = keys.indices.filter { keys[$0] == key }
        if !exact.isEmpty { return exact }
        let starting = keys.indices.filter { keys[$0].hasPrefix(key) }
        if !starting.isEmpty { return starting }
        return keys.indices.filter { keys[$0].contains(key) }
    }

    /// Percussion key map of channel 10: MIDI note → name, notes 35–81.
    public static let percussionNames: [UInt8: String] = [
        35: "Acoustic Bass Drum", 36: "Bass Drum 1", 37: "Side Stick", 38: "Acoustic Snare",
        39: "Hand Clap", 40: "Electric Snare", 41: "Low Floor Tom", 42: "Closed Hi-Hat",
        43: "High Floor Tom", 44: "Pedal Hi-Hat", 45: "Low Tom", 46: "Open Hi-Hat",
        47: "Low-Mid Tom", 48: "Hi-Mid Tom", 49: "Crash Cymbal 1", 50: "High Tom",
        51: "Ride Cymbal 1", 52: "Chinese Cymbal", 53: "Ride Bell", 54: "Tambourine",
        55: "Splash Cymbal", 56: "Cowbell", 57: "Crash Cymbal 2", 58: "Vibraslap",
        59: "Ride Cymbal 2", 60: "Hi Bongo", 61: "Low Bongo", 62: "Mute Hi Conga",
        63: "Open Hi Conga", 64: "Low Conga", 65: "High Timbale", 66: "Low Timbale",
        67: "High Agogo", 68: "Low Agogo", 69: "Cabasa", 70: "Maracas",
        71: "Short Whistle", 72: "Long Whistle", 73: "Short Guiro", 74: "Long Guiro",
        75: "Claves", 76: "Hi Wood Block", 77: "Low Wood Block", 78: "Mute Cuica",
        79: "Open Cuica", 80: "Mute Triangle", 81: "Open Triangle",
    ]

    private static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }.map(Character.init))
    }
}
