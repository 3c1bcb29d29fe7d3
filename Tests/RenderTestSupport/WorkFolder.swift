import Foundation

/// A new, empty folder for one test's files: `<temporary directory>/<prefix>-<UUID>`.
/// `removeWorkFolder` deletes it with everything in it.
public func makeWorkFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Deletes `folder` (made by `makeWorkFolder`) and what is in it; nothing when it is nil.
public func removeWorkFolder(_ folder: URL?) {
    if let folder { try? FileManager.default.removeItem(at: folder) }
}

/// `removeWorkFolder` for a folder held as a path.
public func removeWorkFolder(atPath folder: String) {
    try? FileManager.default.removeItem(atPath: folder)
}
