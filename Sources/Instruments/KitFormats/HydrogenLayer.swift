/// One velocity layer of a Hydrogen instrument: a sample file, the
/// velocities it answers (Hydrogen's 0…1 scale), its gain and pitch.
public struct HydrogenLayer: Equatable, Sendable {
    /// The sample file as `drumkit.xml` names it (relative to the kit's folder).
    public var file: String
    /// The lowest and highest velocity it answers, 0…1 (velocity/127).
    public var minimum: Double
    public var maximum: Double
    /// Linear gain.
    public var gain: Double
    /// Pitch shift in semitones.
    public var pitch: Double

    public init(file: String, minimum: Double = 0, maximum: Double = 1, gain: Double = 1, pitch: Double = 0) {
        self.file = file
        self.minimum = minimum
        self.maximum = maximum
        self.gain = gain
        self.pitch = pitch
    }

    /// Whether MIDI velocity `velocity` (1–127) falls in the layer: Hydrogen
    /// compares velocity/127 with the layer's range, ends included.
    public func answers(velocity: Int) -> Bool {
        let level = Double(velocity) / 127
        return level >= minimum - 1e-9 && level <= maximum + 1e-9
    }
}
