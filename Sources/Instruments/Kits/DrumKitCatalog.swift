import Foundation

/// The drum kits installed on the machine, and what `--kit` means.
///
/// Kits are looked for in: Busker's shipped kit (`DrumKitLocation`);
/// Hydrogen's user folders, `~/.hydrogen/data/drumkits` (Hydrogen 1.x) and
/// `$XDG_DATA_HOME/hydrogen/data/drumkits` (`~/.local/share/…` by default);
/// Hydrogen's system folders, `/usr/share/hydrogen/data/drumkits` (Debian's
/// `hydrogen-drumkits`) and `/usr/local/share/hydrogen/data/drumkits`. A
/// Hydrogen kit is a folder there that holds `drumkit.xml`; its name is the
/// folder's name.
///
/// `--kit` takes, in this order: a path to a `kit.json`, a folder holding
/// `kit.json` or `drumkit.xml`, or a `drumkit.xml`; else an installed kit's
/// name, matched without regard to case (a user kit before a system kit of
/// the same name, as in Hydrogen; Busker's own kit by its manifest's name).
///
/// - Realtime: unsafe (file I/O). Control thread.
public struct DrumKitCatalog: Sendable {
    public var environment: [String: String]
    /// Hydrogen's folders, user ones first: (origin, folder).
    public var hydrogenFolders: [(origin: InstalledDrumKit.Origin, folder: String)]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        var folders: [(InstalledDrumKit.Origin, String)] = []
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        folders.append((.hydrogenUser, "\(home)/.hydrogen/data/drumkits"))
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/share"
        folders.append((.hydrogenUser, "\(dataHome)/hydrogen/data/drumkits"))
        folders.append((.hydrogenSystem, "/usr/share/hydrogen/data/drumkits"))
        folders.append((.hydrogenSystem, "/usr/local/share/hydrogen/data/drumkits"))
        var seen = Set<String>()
        hydrogenFolders = folders.filter { seen.insert($0.1).inserted }.map { (origin: $0.0, folder: $0.1) }
    }

    /// Every installed kit: Busker's first, then Hydrogen's user and system kits, each folder sorted by name.
    public func installed() -> [InstalledDrumKit] {
        var kits: [InstalledDrumKit] = []
        if let path = try? DrumKitLocation.defaultManifestPath(environment: environment) {
            let name = (try? KitManifest.load(path: path).name) ?? "busker"
            kits.append(InstalledDrumKit(name: name, origin: .busker, reference: .manifest(path: path)))
        }
        for (origin, folder) in hydrogenFolders {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries.sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }) {
                let kitFolder = "\(folder)/\(entry)"
                guard FileManager.default.fileExists(atPath: "\(kitFolder)/\(HydrogenKit.fileName)") else { continue }
                kits.append(InstalledDrumKit(name: entry, origin: origin, reference: .hydrogen(folder: kitFolder)))
            }
        }
        return kits
    }

    /// The kit `given` names (a path or an installed kit's name; see the type's notes).
    /// - Throws: `DrumKitError.unknownKit` when it is neither.
    public func resolve(_ given: String) throws(DrumKitError) -> DrumKitReference {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: given, isDirectory: &isDirectory) {
            let url = URL(fileURLWithPath: given)
            if isDirectory.boolValue {
                if files.fileExists(atPath: url.appendingPathComponent(HydrogenKit.fileName).path) {
                    return .hydrogen(folder: given)
                }
                return .manifest(path: url.appendingPathComponent(DrumKitLocation.manifestName).path)
            }
            if url.lastPathComponent == HydrogenKit.fileName { return .hydrogen(folder: url.deletingLastPathComponent().path) }
            return .manifest(path: given)
        }
        if let kit = installed().first(where: { $0.name.caseInsensitiveCompare(given) == .orderedSame }) {
            return kit.reference
        }
        throw .unknownKit(name: given)
    }
}
