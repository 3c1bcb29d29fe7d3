import Chains
import Foundation

/// What a preset file holds: the live settings (every strip, the bus and a stage's parts) and
/// the MIDI control mapping, as a person can read and edit it:
///
/// ```
/// # comments start with #
/// [bus]
/// volume = 0.3
/// room = medium
/// howl-guard = on
///
/// [strip 1]
/// inputs = 1+2
/// bass = 3
///
/// [part keys]
/// level = -6
/// reverb = 20
///
/// [midi]
/// …the mapping's own key = value lines
/// ```
///
/// The keys and value spellings are the command line's (`--volume`, `--room`,
/// `--strip N:key=value`, `--part NAME:key=value`); a missing key keeps its
/// default, a file without any `[strip N]` has the one default strip, and a
/// stage's part without a `[part NAME]` its defaults. The `[midi]` lines are kept as
/// they are for the MIDI mapping to read (`midi`).
public struct LivePreset: Sendable, Equatable {
    public var settings: LiveSettings
    /// The `[midi]` section's lines, in order; the MIDI control mapping reads
    /// and writes them. nil: the file has no `[midi]` (the mapping's defaults);
    /// empty: a `[midi]` with no lines (nothing bound).
    public var midi: [PresetEntry]?

    public static let sectionNames = "[bus], [strip N], [part NAME] or [midi]"

    public init(settings: LiveSettings, midi: [PresetEntry]? = nil) {
        self.settings = settings
        self.midi = midi
    }

    /// Reads a preset's text.
    /// - Throws: the first line at fault: an unknown section or key, a bad or
    ///   out-of-range value, a section or key given twice, strips numbered
    ///   with a gap, a part that is not one of `PartSettings.names`.
    public init(text: String) throws(PresetLineError) {
        enum Section: Hashable { case bus, strip(Int), part(String), midi }
        var settings = LiveSettings()
        var strips: [Int: StripSettings] = [:]
        var sectionLines: [Section: Int] = [:]
        var keysSeen: [String: Int] = [:]
        var midi: [PresetEntry]?
        var current: Section?

        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            let line = Self.withoutComment(String(raw)).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            // Lines and values are quoted escaped and cut: a file can hold anything.
            let quoted = TerminalText.shown(line)
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw PresetLineError(line: number, message: "\(quoted) needs a closing ]") }
                let words = line.dropFirst().dropLast().split(separator: " ").map { $0.lowercased() }
                let section: Section
                switch (words.first, words.count) {
                case ("bus", 1): section = .bus
                case ("midi", 1):
                    section = .midi
                    midi = midi ?? []
                case ("strip", 2):
                    guard let n = Int(words[1]), (1...LiveSettings.maximumStripCount).contains(n) else {
                        throw PresetLineError(line: number, message: "\(quoted): strips are numbered 1…\(LiveSettings.maximumStripCount)")
                    }
                    section = .strip(n)
                    strips[n] = StripSettings()
                case ("part", 2):
                    guard PartSettings.names.contains(words[1]) else {
                        throw PresetLineError(line: number, message: "\(quoted): the parts are \(PartSettings.names.joined(separator: ", "))")
                    }
                    section = .part(words[1])
                    settings.parts[words[1]] = PartSettings()
                default:
                    throw PresetLineError(line: number, message: "unknown section \(quoted) (sections: \(Self.sectionNames))")
                }
                if let first = sectionLines[section] {
                    throw PresetLineError(line: number, message: "\(quoted) appears twice (first on line \(first))")
                }
                sectionLines[section] = number
                keysSeen = [:]
                current = section
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw PresetLineError(line: number, message: "'\(quoted)' is not key = value, a [section] or a # comment")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let entry = PresetEntry(key, value, line: number)
            guard !key.isEmpty else { throw entry.problem("'\(quoted)' has no key before =") }
            guard let current else { throw entry.problem("\(entry.quoted) comes before any section (\(Self.sectionNames))") }
            if case .midi = current {
                midi?.append(entry)
                continue
            }
            let name = key.lowercased()
            if let first = keysSeen[name] { throw entry.problem("\(TerminalText.shown(name)) is given twice in this section (first on line \(first))") }
            keysSeen[name] = number
            switch current {
            case .bus:
                try Self.read(entry, name: name, into: &settings, keys: PresetKey.bus, section: "[bus]")
            case .strip(let n):
                try Self.read(entry, name: name, into: &strips[n]!, keys: PresetKey.strip, section: "[strip \(n)]")
            case .part(let part):
                try Self.read(entry, name: name, into: &settings.parts[part]!, keys: PresetKey.part, section: "[part \(part)]")
            case .midi:
                break
            }
        }
        if let highest = strips.keys.max() {
            if let gap = (1...highest).first(where: { strips[$0] == nil }) {
                let after = strips.keys.filter { $0 > gap }.min()!
                throw PresetLineError(line: sectionLines[.strip(after)]!,
                                      message: "[strip \(after)] but no [strip \(gap)]: strips are numbered from 1 without gaps")
            }
            settings.strips = (1...highest).map { strips[$0]! }
        }
        self.init(settings: settings, midi: midi)
    }

    /// The file's text: every key of every section, so a reader sees all there is to edit.
    public var text: String {
        var lines = [
            "# Busker live preset: busker live --preset NAME starts with these settings.",
            "# Edit freely: one key = value a line, as on the command line; a missing key",
            "# keeps its default. docs/presets.md lists the keys and their ranges.",
            "",
            "[bus]",
        ]
        lines += PresetKey.bus.map { "\($0.name) = \($0.write(settings))" }
        for (index, strip) in settings.strips.enumerated() {
            lines += ["", "[strip \(index + 1)]"]
            lines += PresetKey.strip.map { "\($0.name) = \($0.write(strip))" }
        }
        let order = PartSettings.names + settings.parts.keys.filter { !PartSettings.names.contains($0) }.sorted()
        for name in order {
            guard let part = settings.parts[name] else { continue }
            lines += ["", "[part \(name)]"]
            lines += PresetKey.part.map { "\($0.name) = \($0.write(part))" }
        }
        if let midi {
            lines += ["", "[midi]"] + midi.map(\.description)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func read<Settings>(_ entry: PresetEntry, name: String, into settings: inout Settings,
                                       keys: [PresetKey<Settings>], section: String) throws(PresetLineError) {
        guard let key = keys.first(where: { $0.name == name }) else {
            throw entry.problem("unknown key '\(TerminalText.shown(entry.key))' in \(section) (keys: \(keys.map(\.name).joined(separator: ", ")))")
        }
        if let problem = key.read(&settings, entry.value) { throw entry.problem("\(TerminalText.shown(name)) = \(TerminalText.shown(entry.value)) \(problem)") }
    }

    /// The line up to a `#` at its start or after a space or tab.
    private static func withoutComment(_ line: String) -> String {
        var previous: Character = " "
        for index in line.indices {
            if line[index] == "#" && (previous == " " || previous == "\t") { return String(line[..<index]) }
            previous = line[index]
        }
        return line
    }
}
