/// A sample of a kit that could not be loaded, and what the kit does without it.
/// A kit with problems still loads and plays everything else; the command
/// line prints each problem on one line.
public struct DrumKitProblem: Equatable, Sendable, CustomStringConvertible {
    /// What the kit does instead.
    public enum Effect: Equatable, Sendable {
        /// The layer has other samples and alternates between those.
        case sampleSkipped
        /// The layer lost all its samples: its velocities play the nearest layer that loaded.
        case layerPlaysNearest(velocities: ClosedRange<Int>)
        /// No layer of the pad loaded: the pad is silent.
        case padSkipped
        /// A value or element of a Hydrogen `drumkit.xml` that could not be
        /// used, and what was done instead ("used 1", "layer skipped").
        case elementSkipped(action: String)
    }

    public var padName: String
    public var note: UInt8
    /// The sample file, resolved against the manifest's folder (or the kit file, for an element).
    public var file: String
    /// Why it failed, naming the file ("cannot open '…/snare.wav': …").
    public var error: String
    public var effect: Effect

    public init(padName: String, note: UInt8, file: String, error: String, effect: Effect) {
        self.padName = padName
        self.note = note
        self.file = file
        self.error = error
        self.effect = effect
    }

    public var description: String {
        let consequence: String
        switch effect {
        case .sampleSkipped: consequence = "the layer plays its other samples"
        case let .layerPlaysNearest(range):
            consequence = "velocities \(range.lowerBound)–\(range.upperBound) play the nearest layer"
        case .padSkipped: consequence = "pad skipped"
        case let .elementSkipped(action): consequence = action
        }
        return "pad '\(padName)' (note \(note)): \(error); \(consequence)"
    }
}
