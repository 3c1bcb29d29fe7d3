/// One pad of a kit manifest: the MIDI note(s) it answers, how it sounds
/// (gain, pan, voices, choke group) and its velocity layers.
///
/// In JSON (only `note` and `layers` are required):
/// ```json
/// { "note": 42, "alsoNotes": [], "name": "Closed Hi-Hat", "chokeGroup": "hi-hat",
///   "gainDB": -6, "pan": -0.3, "voices": 4, "stopsOnNoteOff": false,
///   "layers": [ { "velocity": [1, 127], "samples": ["hihat-closed.wav"] } ] }
/// ```
public struct KitManifestPad: Equatable, Sendable {
    /// The pad's MIDI note (0–127), in the General MIDI drum map for a GM kit.
    public var note: Int
    /// More notes that play this pad (a GM file uses 35 and 36 for the kick, 38 and 40 for the snare).
    public var alsoNotes: [Int]
    /// A display name; defaults to the General MIDI percussion name of `note`.
    public var name: String
    /// Pads in the same group silence each other: a closed or pedal hi-hat chokes the open one.
    public var chokeGroup: String?
    /// Gain in dB, −60…+24.
    public var gainDB: Double
    /// Constant-power pan, −1 (left) … 0 (centre) … 1 (right).
    public var pan: Double
    /// Voices: how many hits of this pad may ring at once (1–64). The next hit steals the oldest.
    public var voices: Int
    /// Whether a note-off fades the pad out. Drums are one-shots, so by default note-offs are ignored.
    public var stopsOnNoteOff: Bool
    /// Velocity layers; ranges may leave gaps (those velocities are silent) but may not overlap.
    public var layers: [KitManifestLayer]

    public init(note: Int, alsoNotes: [Int] = [], name: String? = nil, chokeGroup: String? = nil, gainDB: Double = 0,
                pan: Double = 0, voices: Int = KitManifestPad.defaultVoices, stopsOnNoteOff: Bool = false,
                layers: [KitManifestLayer]) {
        self.note = note
        self.alsoNotes = alsoNotes
        self.name = name ?? GeneralMIDI.percussionNames[UInt8(clamping: note)] ?? "Note \(note)"
        self.chokeGroup = chokeGroup
        self.gainDB = gainDB
        self.pan = pan
        self.voices = voices
        self.stopsOnNoteOff = stopsOnNoteOff
        self.layers = layers
    }

    public static let defaultVoices = 4
    public static let voiceRange = 1...64
    public static let gainRange = -60.0...24.0

    static let fieldNames = ["note", "alsoNotes", "name", "chokeGroup", "gainDB", "pan", "voices", "stopsOnNoteOff", "layers"]

    /// Every note that plays this pad, `note` first.
    public var allNotes: [Int] { [note] + alsoNotes }
}

extension KitManifestPad: Decodable {
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: KitManifestKey.self)
        try fields.rejectUnknownKeys(known: Self.fieldNames)
        note = try fields.required(Int.self, "note")
        guard (0...127).contains(note) else { throw fields.invalid("note", "\(note) is not a MIDI note (0…127)") }
        alsoNotes = try fields.optional([Int].self, "alsoNotes") ?? []
        if let bad = alsoNotes.first(where: { !(0...127).contains($0) }) {
            throw fields.invalid("alsoNotes", "\(bad) is not a MIDI note (0…127)")
        }
        name = try fields.optional(String.self, "name") ?? GeneralMIDI.percussionNames[UInt8(note)] ?? "Note \(note)"
        chokeGroup = try fields.optional(String.self, "chokeGroup")
        if chokeGroup?.isEmpty == true { throw fields.invalid("chokeGroup", "the group name is empty") }
        gainDB = try fields.optional(Double.self, "gainDB") ?? 0
        guard Self.gainRange.contains(gainDB) else {
            throw fields.invalid("gainDB", "\(gainDB) dB is outside −60…+24 dB")
        }
        pan = try fields.optional(Double.self, "pan") ?? 0
        guard (-1...1).contains(pan) else { throw fields.invalid("pan", "\(pan) is outside −1 (left) … 1 (right)") }
        voices = try fields.optional(Int.self, "voices") ?? Self.defaultVoices
        guard Self.voiceRange.contains(voices) else { throw fields.invalid("voices", "\(voices) is outside 1…64") }
        stopsOnNoteOff = try fields.optional(Bool.self, "stopsOnNoteOff") ?? false
        layers = try fields.required([KitManifestLayer].self, "layers")
        guard !layers.isEmpty else { throw fields.invalid("layers", "a pad needs at least one velocity layer") }
        // Overlapping ranges would make the layer a velocity plays ambiguous.
        let sorted = layers.enumerated().sorted { $0.element.velocities.lowerBound < $1.element.velocities.lowerBound }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.element.velocities.overlaps(next.element.velocities) {
            let a = previous.element.velocities, b = next.element.velocities
            throw fields.invalid("layers",
                                 "layers \(min(previous.offset, next.offset)) and \(max(previous.offset, next.offset)) overlap: velocities [\(a.lowerBound), \(a.upperBound)] and [\(b.lowerBound), \(b.upperBound)]")
        }
    }
}
