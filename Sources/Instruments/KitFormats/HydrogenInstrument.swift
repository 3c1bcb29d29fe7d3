/// One `<instrument>` of a Hydrogen drum kit: what Busker plays as a pad.
public struct HydrogenInstrument: Equatable, Sendable {
    /// `<id>`: Hydrogen's own number for the instrument.
    public var id: Int
    public var name: String
    /// `<volume>` × `<gain>`, linear.
    public var gain: Double
    /// −1 (left) … 1 (right), from `<pan_L>`/`<pan_R>` (older kits) or `<pan>`.
    public var pan: Double
    /// `<muteGroup>`: instruments with the same group ≥ 0 silence each other; nil for −1.
    public var muteGroup: Int?
    /// `<isStopNote>`: a note-off stops the instrument.
    public var stopsOnNoteOff: Bool
    /// `<midiInNote>`, when the kit gives one: the note the kit's author chose.
    public var midiInNote: Int?
    /// `<pitch>` / `<pitchOffset>` of the instrument, semitones, added to each layer's.
    public var pitch: Double
    /// Velocity layers, in file order (Hydrogen plays the first one whose range holds the velocity).
    public var layers: [HydrogenLayer]
    /// The line of `drumkit.xml` the instrument starts on.
    public var line: Int
    /// Its place in the kit's `<instrumentList>`, 0-based, empty slots counted:
    /// Hydrogen's own MIDI input plays it from note 36 + position.
    public var position: Int

    public init(id: Int, name: String, gain: Double = 1, pan: Double = 0, muteGroup: Int? = nil, stopsOnNoteOff: Bool = false,
                midiInNote: Int? = nil, pitch: Double = 0, layers: [HydrogenLayer], line: Int = 0, position: Int = 0) {
        self.id = id
        self.name = name
        self.gain = gain
        self.pan = pan
        self.muteGroup = muteGroup
        self.stopsOnNoteOff = stopsOnNoteOff
        self.midiInNote = midiInNote
        self.pitch = pitch
        self.layers = layers
        self.line = line
        self.position = position
    }
}
