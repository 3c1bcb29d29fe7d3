import Foundation
import XCTest

/// docs/architecture.md draws every target's dependencies ("The
/// dependencies exactly"); Package.swift is the truth. A target added,
/// removed or wired differently in one and not the other fails here.
final class ArchitectureDiagramTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testTheDiagramDrawsExactlyPackageSwiftsDependencies() throws {
        let package = try Self.packageDependencies()
        let drawn = try Self.drawnDependencies()
        XCTAssertGreaterThan(package.count, 10, "Package.swift read: \(package.keys.sorted())")
        for (target, dependencies) in package.sorted(by: { $0.key < $1.key }) {
            guard let shown = drawn[target] else {
                XCTFail("docs/architecture.md does not draw \(target) (Package.swift: \(dependencies.sorted()))")
                continue
            }
            XCTAssertEqual(shown, dependencies,
                           "\(target): drawn \(shown.sorted()), Package.swift \(dependencies.sorted()); "
                           + "missing from the drawing \(dependencies.subtracting(shown).sorted()), "
                           + "not in Package.swift \(shown.subtracting(dependencies).sorted())")
        }
        for target in Set(drawn.keys).subtracting(package.keys) {
            XCTFail("docs/architecture.md draws \(target), which Package.swift does not have")
        }
    }

    /// The reader itself: a drawing that leaves out a dependency is caught.
    func testAMissingArrowIsFound() throws {
        let drawn = try Self.parseDrawing("""
            busker ──► Rig TerminalUI
                       Session
            MIDI       (nothing)
            """)
        XCTAssertEqual(drawn["busker"], ["Rig", "TerminalUI", "Session"])
        XCTAssertEqual(drawn["MIDI"], [])
        XCTAssertNotEqual(drawn["busker"], ["Rig", "TerminalUI"])
    }

    // MARK: Reading

    /// Every Swift target of the product and its dependencies, from
    /// Package.swift: `.target` and `.executableTarget` entries, leaving out
    /// the C shims (`CName`), system libraries and the test support under Tests/.
    static func packageDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: Set<String>] = [:]
        var rest = Substring(text)
        while let start = rest.range(of: #"\.(target|executableTarget)\("#, options: .regularExpression) {
            let entry = entryText(rest[start.upperBound...])
            rest = rest[start.upperBound...]
            guard let name = firstQuoted(after: "name:", in: entry) else { continue }
            if entry.contains("path: \"Tests/") || isCShim(name) { continue }
            result[name] = Set(quotedStrings(in: listText(after: "dependencies:", in: entry)))
        }
        return result
    }

    /// The fenced block after "The dependencies exactly" in docs/architecture.md.
    static func drawnDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let heading = text.range(of: "The dependencies exactly"),
              let open = text.range(of: "```\n", range: heading.upperBound..<text.endIndex),
              let close = text.range(of: "```", range: open.upperBound..<text.endIndex) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no dependency drawing in docs/architecture.md"])
        }
        return try parseDrawing(String(text[open.upperBound..<close.lowerBound]))
    }

    /// `Name ───► A B` lines, continued on lines that start with spaces;
    /// `Name (nothing)` for none.
    static func parseDrawing(_ drawing: String) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var current: String?
        for line in drawing.split(separator: "\n", omittingEmptySubsequences: true) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "─" || $0 == "►" }).map(String.init)
                .filter { $0 != "(nothing)" }
            if line.first == " " {
                guard let current else { continue }
                result[current, default: []].formUnion(words)
            } else if let name = words.first {
                current = name
                result[name, default: []].formUnion(words.dropFirst())
            }
        }
        return result
    }

    /// From just after `.target(` to its closing parenthesis.
    private static func entryText(_ text: Substring) -> Substring {
        var depth = 1
        for index in text.indices {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return text[..<index] }
            default: break
            }
        }
        return text
    }

    private static func listText(after label: String, in entry: Substring) -> Substring {
        guard let labelRange = entry.range(of: label), let open = entry[labelRange.upperBound...].firstIndex(of: "["),
              let close = entry[open...].firstIndex(of: "]") else { return "" }
        return entry[open...close]
    }

    private static func firstQuoted(after label: String, in entry: Substring) -> String? {
        guard let labelRange = entry.range(of: label) else { return nil }
        return quotedStrings(in: entry[labelRange.upperBound...]).first
    }

    private static func quotedStrings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// `CALSA`, `CRealtimeSupport`: a C shim or system library.
    private static func isCShim(_ name: String) -> Bool {
        name.count > 1 && name.first == "C" && name.dropFirst().first!.isUppercase
    }
}
