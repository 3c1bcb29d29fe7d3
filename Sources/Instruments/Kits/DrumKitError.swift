/// Why a drum kit could not be loaded or installed. One line each, naming the file.
public enum DrumKitError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The manifest itself is unreadable or wrong.
    case manifest(KitManifestError)
    /// Not one sample of the kit could be loaded.
    case nothingLoaded(manifestPath: String, problems: [DrumKitProblem])
    /// The kit was loaded for another sample rate than the node plays at.
    case sampleRateMismatch(manifestPath: String, kitRate: Double, engineRate: Double)
    /// The kit already plays in another node; a kit's voices belong to one node.
    case kitInUse(manifestPath: String)
    /// A Hydrogen kit's `drumkit.xml` is missing, not XML, or not a drum kit.
    case hydrogen(path: String, reason: String)
    /// `--kit` named no kit folder, manifest or installed kit.
    case unknownKit(name: String)
    /// No kit manifest was found where Busker looks for the shipped kit.
    case notFound(searched: [String])

    public var description: String {
        switch self {
        case let .manifest(error): return error.description
        case let .nothingLoaded(path, problems):
            let first = problems.first.map { ": \($0.error)" } ?? ""
            let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
            return "drum kit '\(path)': no sample could be loaded\(first)\(more)"
        case let .sampleRateMismatch(path, kitRate, engineRate):
            return "drum kit '\(path)' was loaded for \(Int(kitRate)) Hz but the engine runs at \(Int(engineRate)) Hz; load it again at the engine rate"
        case let .kitInUse(path):
            return "drum kit '\(path)' already plays in another drum node; load it again for a second one"
        case let .hydrogen(path, reason): return "Hydrogen drum kit '\(path)': \(reason)"
        case let .unknownKit(name):
            return "no drum kit '\(name)': not a kit folder, kit.json or installed kit name (busker kits lists them)"
        case let .notFound(searched):
            return "no drum kit found (looked for \(searched.joined(separator: ", "))); set $\(DrumKitLocation.environmentVariable) to a kit.json"
        }
    }
}
