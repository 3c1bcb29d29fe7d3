import CommandLineInterface
import Foundation
import Instruments
import Sessions

/// `busker kits`: the drum kits installed on the machine (Busker's own and
/// Hydrogen's, user and system folders), each with its pads and their notes.
enum KitsCommand {
    static let help = """
    usage: busker kits [NAME]

    Lists the drum kits --kit can take by name: Busker's shipped kit, then
    Hydrogen kits in ~/.hydrogen/data/drumkits, $XDG_DATA_HOME/hydrogen/data/drumkits,
    /usr/share/hydrogen/data/drumkits (Debian's hydrogen-drumkits) and
    /usr/local/share/hydrogen/data/drumkits; each kit with its pads as
    NOTE name (a pad answering more notes shows them as 36+35). With NAME (an
    installed kit's name or a kit folder), only that kit, one pad a line with
    its layers, mute group and every note. Reads the kit files only: no
    sample is decoded.

      --names                only the installed kits' names, one a line (for scripts and completion)
      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        guard args.positionals.count <= 1 else { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        let catalog = DrumKitCatalog()
        if args.has("names") {
            guard args.positionals.isEmpty else { throw CommandLineError.usage("--names lists every kit: no NAME with it") }
            for kit in catalog.installed() { printEscaped(kit.name) }
            return
        }
        if let name = args.positionals.first {
            let reference: DrumKitReference
            do { reference = try catalog.resolve(name) } catch { throw CommandLineError.runtime(error.description) }
            try printDetails(of: reference)
            return
        }
        let kits = catalog.installed()
        guard !kits.isEmpty else {
            printEscaped("no drum kits installed (apt install hydrogen-drumkits adds Hydrogen's)")
            return
        }
        var origin: InstalledDrumKit.Origin?
        for kit in kits {
            if kit.origin != origin {
                origin = kit.origin
                let folder = kit.origin == .busker ? "" : " (\(URL(fileURLWithPath: kit.reference.path).deletingLastPathComponent().path))"
                printEscaped("\(kit.origin.rawValue) kits\(folder):")
            }
            guard let pads = try? pads(of: kit.reference) else {
                printEscaped("  \(kit.name): unreadable (busker kits '\(kit.name)' says why)")
                continue
            }
            printEscaped("  \(kit.name): \(pads.count) pads")
            printEscaped(wrap(pads.map { "\($0.notes.map(String.init).joined(separator: "+")) \($0.name)" }, indent: "    "))
        }
    }

    /// A pad as listed: its notes (its own first), name, and details for the one-kit view.
    struct PadLine {
        var notes: [UInt8]
        var name: String
        var detail: String
    }

    static func pads(of reference: DrumKitReference) throws(DrumKitError) -> [PadLine] {
        switch reference {
        case let .manifest(path):
            let manifest: KitManifest
            do { manifest = try KitManifest.load(path: path) } catch { throw .manifest(error) }
            return manifest.pads.map { pad in
                let samples = pad.layers.reduce(0) { $0 + $1.samples.count }
                return PadLine(notes: pad.allNotes.map { UInt8($0) }, name: pad.name,
                               detail: counted(pad.layers.count, "layer") + ", " + counted(samples, "sample") + (pad.chokeGroup.map { ", choke group \($0)" } ?? ""))
            }
        case let .hydrogen(folder):
            let kit = try HydrogenKit.load(folder: folder)
            let notes = HydrogenNoteMap.notes(for: kit.instruments)
            return zip(kit.instruments, notes).filter { !$0.0.layers.isEmpty }.map { instrument, notes in
                PadLine(notes: notes, name: instrument.name,
                        detail: counted(instrument.layers.count, "layer") + (instrument.muteGroup.map { ", mute group \($0)" } ?? ""))
            }
        }
    }

    static func printDetails(of reference: DrumKitReference) throws {
        let pads: [PadLine]
        do { pads = try Self.pads(of: reference) } catch { throw CommandLineError.runtime(error.description) }
        if case let .hydrogen(folder) = reference, let kit = try? HydrogenKit.load(folder: folder) {
            printEscaped("\(kit.name) (Hydrogen kit, \(folder))")
            if let author = kit.author, !author.isEmpty { printEscaped("by \(author)" + (kit.license.map { "; licence: \($0)" } ?? "")) }
            printEscaped(HydrogenNoteMap.followsNames(kit.instruments)
                  ? "notes: General MIDI, chosen by the instruments' names" : "notes: the kit's order, 36 + position (Hydrogen's)")
            for issue in kit.issues { printEscaped("  warning: \(HydrogenKit.fileName) line \(issue.line): \(issue.reason); \(issue.action)") }
        } else {
            printEscaped("\(reference.path) (Busker kit)")
        }
        for pad in pads {
            let notes = pad.notes.map(String.init).joined(separator: "+")
            printEscaped("  \(notes.padding(toLength: max(7, notes.count), withPad: " ", startingAt: 0)) \(pad.name) (\(pad.detail))")
        }
    }

    static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// Joins `items` with " · " into lines of at most 100 columns.
    static func wrap(_ items: [String], indent: String) -> String {
        var lines: [String] = []
        var line = indent
        for item in items {
            if line.count > indent.count && line.count + 3 + item.count > 100 {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " · " : "") + item
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
