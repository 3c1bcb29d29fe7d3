/// Which mode the computer keyboard is in on a stage, for the live screen:
/// the control keys, or keys mode, where it plays the keys part.
public struct KeysModeStatus: Equatable {
    /// Keys mode is on: the keys play notes.
    public var on: Bool
    /// The lower octave's C, "C4".
    public var octave: String
    /// MIDI events the keys part's scheduler has delivered (every source's), so a key press shows.
    public var midiEvents: Int
    /// Which key plays what (`ComputerKeyboard.legend`).
    public var legend: [String]

    public init(on: Bool, octave: String, midiEvents: Int, legend: [String]) {
        self.on = on
        self.octave = octave
        self.midiEvents = midiEvents
        self.legend = legend
    }
}
