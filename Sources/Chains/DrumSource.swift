import Instruments

/// What plays channel 10 (`--drums`): the drum kit, the SoundFont's
/// percussion, or both, the kit's pads where it has them and the SoundFont
/// for every other note.
public enum DrumSource: String, CaseIterable, Sendable {
    /// Only the kit: a note without a pad is silent.
    case kit
    /// Only the SoundFont's percussion (bank 128, the kit the file's program
    /// change on channel 10 selects); no drum kit is loaded.
    case soundFont = "soundfont"
    /// The kit's pads where it has them, the SoundFont for the other notes (the default).
    case both

    /// The percussion-channel notes the SoundFont plays, given the kit's pads (nil: no kit).
    public func soundFontNotes(kitPads: MIDINoteSet?) -> MIDINoteSet {
        switch self {
        case .kit: .none
        case .soundFont: .all
        case .both: kitPads?.complement ?? .all
        }
    }
}
