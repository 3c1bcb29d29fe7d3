/// A kit found where kits are installed (`DrumKitCatalog`).
public struct InstalledDrumKit: Equatable, Sendable {
    /// Where it was found.
    public enum Origin: String, Equatable, Sendable {
        case busker = "Busker"
        case hydrogenUser = "Hydrogen user"
        case hydrogenSystem = "Hydrogen system"
    }

    /// The name `--kit` takes: the folder's name for a Hydrogen kit, the manifest's `name` for Busker's.
    public var name: String
    public var origin: Origin
    public var reference: DrumKitReference
}
