/// A drum kit to load: Busker's own manifest, or a Hydrogen kit's folder.
public enum DrumKitReference: Equatable, Sendable {
    /// A `kit.json`.
    case manifest(path: String)
    /// A folder holding `drumkit.xml`.
    case hydrogen(folder: String)

    /// The file or folder, as shown to the user.
    public var path: String {
        switch self {
        case let .manifest(path): return path
        case let .hydrogen(folder): return folder
        }
    }
}

extension DrumKit {
    /// Loads the kit `reference` names at `sampleRate`.
    /// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
    public static func load(_ reference: DrumKitReference, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        switch reference {
        case let .manifest(path): return try load(manifestAt: path, sampleRate: sampleRate)
        case let .hydrogen(folder): return try load(hydrogenKitAt: folder, sampleRate: sampleRate)
        }
    }
}
