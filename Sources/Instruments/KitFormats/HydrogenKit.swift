import Foundation

/// A Hydrogen drum kit as its `drumkit.xml` describes it: a folder holding
/// `drumkit.xml` and the samples (WAV, FLAC, AIFF…).
///
/// Both layouts Hydrogen has written are read: `<layer>`s directly under
/// `<instrument>` (0.9.4 and later), the same inside `<instrumentComponent>`
/// (1.0 and later; the first component's layers are played), and a single
/// `<filename>` under `<instrument>` (older kits: one layer over every
/// velocity). Reading is forgiving, as Hydrogen's is: a value that is not a
/// number takes Hydrogen's default and a layer without a usable sample file
/// is skipped, each recorded in `issues`; an instrument with no layer at all,
/// or only Hydrogen's placeholder `emptySample.flac`, is an empty slot (kits
/// keep such placeholders) and is left out. Levels are checked as they are
/// read: an instrument's `<volume>` and `<gain>` and a layer's `<gain>` must
/// lie in 0…`maximumLevel` (+14 dB); one outside (negative, 1e308) takes the
/// default 1 and is recorded, so no value can mute the kit or overflow the mix.
///
/// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
public struct HydrogenKit: Equatable, Sendable {
    public static let fileName = "drumkit.xml"
    /// The highest linear `<volume>` or `<gain>` read (5: +14 dB), where Hydrogen's own gain sliders stop.
    public static let maximumLevel = 5.0

    /// The kit's folder.
    public var folder: String
    public var name: String
    public var author: String?
    public var license: String?
    /// Instruments that have at least one layer, in file order.
    public var instruments: [HydrogenInstrument]
    /// Values and layers that could not be used.
    public var issues: [HydrogenKitIssue]

    /// `drumkit.xml` in the kit's folder.
    public var path: String { URL(fileURLWithPath: folder).appendingPathComponent(Self.fileName).path }

    /// Reads `folder/drumkit.xml`.
    /// - Throws: `DrumKitError.hydrogen` when the file cannot be read, is not
    ///   XML, or is not a drum kit.
    public static func load(folder: String) throws(DrumKitError) -> HydrogenKit {
        let path = URL(fileURLWithPath: folder).appendingPathComponent(fileName).path
        let data: [UInt8]
        switch RegularFile.contents(path, limit: .max) {
        case let .success(bytes): data = bytes
        case .failure(.system(ENOENT)): throw .hydrogen(path: path, reason: "no such file")
        case .failure(.system): throw .hydrogen(path: path, reason: "cannot be read")
        case let .failure(refusal): throw .hydrogen(path: path, reason: refusal.reason)
        }
        let root: HydrogenXMLElement
        do {
            root = try HydrogenXMLElement.parse(data)
        } catch {
            throw .hydrogen(path: path, reason: "line \(error.line): \(error.reason)")
        }
        return try read(root, folder: folder, path: path)
    }

    /// Builds the kit from the parsed document.
    static func read(_ root: HydrogenXMLElement, folder: String, path: String) throws(DrumKitError) -> HydrogenKit {
        guard root.name == "drumkit_info" else {
            throw .hydrogen(path: path, reason: "line \(root.line): the root element is <\(root.name)>, not <drumkit_info>")
        }
        guard let list = root.child("instrumentList") else {
            throw .hydrogen(path: path, reason: "no <instrumentList>")
        }
        var kit = HydrogenKit(folder: folder, name: root.text(of: "name").flatMap { $0.isEmpty ? nil : $0 }
                                  ?? URL(fileURLWithPath: folder).lastPathComponent,
                              author: root.text(of: "author"), license: root.text(of: "license") ?? root.text(of: "licence"),
                              instruments: [], issues: [])
        for (position, element) in list.children("instrument").enumerated() {
            var reader = InstrumentReader(element: element, index: kit.instruments.count, position: position)
            let instrument = reader.read()
            guard !instrument.layers.isEmpty || !reader.issues.isEmpty else { continue }
            kit.issues += reader.issues
            if instrument.layers.isEmpty {
                kit.issues.append(HydrogenKitIssue(instrument: kit.instruments.count, line: element.line,
                                                   reason: "no layer left", action: "instrument skipped"))
            }
            kit.instruments.append(instrument)
        }
        return kit
    }
}

/// Reads one `<instrument>`, collecting what it had to go past.
private struct InstrumentReader {
    let element: HydrogenXMLElement
    let index: Int
    let position: Int
    var issues: [HydrogenKitIssue] = []

    mutating func read() -> HydrogenInstrument {
        let id = Int(number("id", in: element, default: Double(index)))
        let name = element.text(of: "name").flatMap { $0.isEmpty ? nil : $0 } ?? "Instrument \(id)"
        let volume = level("volume", in: element)
        let gain = level("gain", in: element)
        let pan: Double
        if element.child("pan") != nil {
            pan = min(1, max(-1, number("pan", in: element, default: 0)))
        } else {
            // Older kits: a gain per side, 1 and 1 at the centre.
            let left = number("pan_L", in: element, default: 1), right = number("pan_R", in: element, default: 1)
            let louder = max(left, right)
            pan = louder > 0 ? (right - left) / louder : 0
        }
        let group = Int(number("muteGroup", in: element, default: -1))
        let inNote = element.child("midiInNote").map { _ in Int(number("midiInNote", in: element, default: -1)) }
        let pitch = element.child("pitchOffset") != nil ? number("pitchOffset", in: element, default: 0)
            : number("pitch", in: element, default: 0)
        var layers: [HydrogenLayer] = []
        let layerElements = element.child("instrumentComponent")?.children("layer") ?? element.children("layer")
        if layerElements.isEmpty, let file = element.child("filename") {
            if file.text.isEmpty {
                issue(file.line, "<filename> is empty", "instrument skipped")
            } else {
                layers.append(HydrogenLayer(file: file.text))
            }
        }
        for layer in layerElements {
            guard let file = layer.text(of: "filename"), !file.isEmpty else {
                issue(layer.line, "<layer> has no <filename>", "layer skipped")
                continue
            }
            layers.append(HydrogenLayer(file: file, minimum: number("min", in: layer, default: 0),
                                        maximum: number("max", in: layer, default: 1),
                                        gain: level("gain", in: layer), pitch: number("pitch", in: layer, default: 0)))
        }
        // Hydrogen's placeholder for an empty slot (old kits ship it as a file of silence, or not at all).
        layers.removeAll { URL(fileURLWithPath: $0.file).lastPathComponent.lowercased().hasPrefix("emptysample") }
        return HydrogenInstrument(
            id: id, name: name, gain: max(0, volume * gain), pan: pan, muteGroup: group >= 0 ? group : nil,
            stopsOnNoteOff: element.text(of: "isStopNote") == "true",
            midiInNote: inNote.flatMap { (0...127).contains($0) ? $0 : nil }, pitch: pitch, layers: layers, line: element.line,
            position: position)
    }

    /// The number in child `name` of `parent`; `fallback` when absent, and when
    /// not a finite number (recorded as an issue).
    mutating func number(_ name: String, in parent: HydrogenXMLElement, default fallback: Double) -> Double {
        guard let child = parent.child(name) else { return fallback }
        if let value = Double(child.text), value.isFinite { return value }
        let shown = fallback == fallback.rounded() ? String(Int(fallback)) : String(fallback)
        issue(child.line, "<\(name)> '\(child.text)' is not a number", "used \(shown)")
        return fallback
    }

    /// The linear level in child `name` of `parent`: 1 when absent, and when
    /// not a number or outside 0…`HydrogenKit.maximumLevel` (recorded as an issue).
    mutating func level(_ name: String, in parent: HydrogenXMLElement) -> Double {
        let value = number(name, in: parent, default: 1)
        guard value < 0 || value > HydrogenKit.maximumLevel, let child = parent.child(name) else { return value }
        issue(child.line, "<\(name)> '\(child.text)' is outside 0…\(Int(HydrogenKit.maximumLevel))", "used 1")
        return 1
    }

    mutating func issue(_ line: Int, _ reason: String, _ action: String) {
        issues.append(HydrogenKitIssue(instrument: index, line: line, reason: reason, action: action))
    }
}
