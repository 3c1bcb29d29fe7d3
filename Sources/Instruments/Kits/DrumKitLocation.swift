import Foundation

/// Where Busker finds the drum kit it ships (`Sounds/kit/kit.json`) without
/// configuration, the way the sampler finds its default SoundFont.
///
/// In order: `$BUSKER_DRUM_KIT` (a manifest, or a folder holding `kit.json`);
/// `Sounds/kit/kit.json` in the folders above the running executable (a
/// checkout's `.build/release/busker` finds the checkout's kit); the checkout
/// this library was built from; then `/usr/local/share/busker/kit` and
/// `/usr/share/busker/kit`.
public enum DrumKitLocation {
    public static let environmentVariable = "BUSKER_DRUM_KIT"
    public static let manifestName = "kit.json"

    /// The shipped kit's folder in the source checkout this was built from.
    public static var sourceCheckoutKitFolder: String {
        // This file is Sources/Instruments/Kits/DrumKitLocation.swift; the kit is Sounds/kit.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sounds/kit").path
    }

    /// The manifest paths looked at, in order.
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var paths: [String] = []
        if let configured = environment[environmentVariable], !configured.isEmpty {
            paths.append(configured.hasSuffix(".json") ? configured : URL(fileURLWithPath: configured).appendingPathComponent(manifestName).path)
        }
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = executable.deletingLastPathComponent()
            for _ in 0..<4 {
                paths.append(folder.appendingPathComponent("Sounds/kit/\(manifestName)").path)
                folder = folder.deletingLastPathComponent()
            }
        }
        paths.append(URL(fileURLWithPath: sourceCheckoutKitFolder).appendingPathComponent(manifestName).path)
        paths.append("/usr/local/share/busker/kit/\(manifestName)")
        paths.append("/usr/share/busker/kit/\(manifestName)")
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// The first candidate that exists. `$BUSKER_DRUM_KIT`, when set, is the
    /// only one considered: a kit asked for by name should not be quietly replaced.
    /// - Throws: `DrumKitError.notFound` listing where it looked.
    public static func defaultManifestPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws(DrumKitError) -> String {
        let paths = candidates(environment: environment)
        if let configured = environment[environmentVariable], !configured.isEmpty {
            let path = paths[0]
            guard FileManager.default.fileExists(atPath: path) else { throw .notFound(searched: [path]) }
            return path
        }
        guard let found = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .notFound(searched: paths)
        }
        return found
    }
}
