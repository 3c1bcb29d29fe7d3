import Foundation

/// A new, empty folder for one session test's files (its input, output and
/// presets): `<temporary directory>/<prefix>-<UUID>`.
func makeSessionFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
