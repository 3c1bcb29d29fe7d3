import MIDI

/// Which MIDI control drives which live control: a CC or note (optionally on
/// one channel) → a `LiveControl`. Each source drives one control; one control
/// may have several sources (a footswitch and a pad for the mic).
///
/// The defaults are what a user would guess: the sustain-pedal footswitch
/// (CC 64) toggles the mic, CC 7 (channel volume) sets the volume, CC 91
/// (reverb depth) strip 1's reverb send.
///
/// A preset stores the map as text, one binding a line (`cc64 = mic`,
/// `cc7 = volume`, `cc91 = reverb 1`, `note36 ch10 = mute 2`): `lines` writes
/// it, `init(lines:firstLineNumber:)` reads it back, with errors naming the line.
public struct MIDIControlMap: Equatable, Sendable {
    public private(set) var bindings: [MIDIControlSource: LiveControl]

    /// No bindings at all.
    public static let empty = MIDIControlMap(bindings: [:])

    /// CC 64 → mic, CC 7 → volume, CC 91 → strip 1's reverb send, on any channel.
    public static let defaults = MIDIControlMap(bindings: [.cc(64): .mic, .cc(7): .volume, .cc(91): .reverb(strip: 1)])

    public init(bindings: [MIDIControlSource: LiveControl]) {
        self.bindings = bindings
    }

    /// Makes `source` drive `control`, replacing what it drove before.
    public mutating func bind(_ source: MIDIControlSource, to control: LiveControl) {
        bindings[source] = control
    }

    public mutating func unbind(_ source: MIDIControlSource) {
        bindings[source] = nil
    }

    /// The binding a message falls under, and the value it carries: a CC's
    /// value, or a note-on's velocity (0 for a note-off). A binding on the
    /// message's channel wins over one on any channel.
    public func binding(for message: MIDIMessage) -> (source: MIDIControlSource, control: LiveControl, value: UInt8)? {
        let kind: MIDIControlSource.Kind, number: UInt8, channel: UInt8, value: UInt8
        switch message {
        case let .controlChange(c, controller, v):
            (kind, number, channel, value) = (.controlChange, controller, c, v)
        case let .noteOn(c, note, velocity):
            (kind, number, channel, value) = (.note, note, c, velocity)
        case let .noteOff(c, note, _):
            (kind, number, channel, value) = (.note, note, c, 0)
        default:
            return nil
        }
        let exact = MIDIControlSource(kind, number, channel: channel)
        if let control = bindings[exact] { return (exact, control, value) }
        let any = MIDIControlSource(kind, number)
        if let control = bindings[any] { return (any, control, value) }
        return nil
    }

    /// The sources bound to `control`, in order.
    public func sources(for control: LiveControl) -> [MIDIControlSource] {
        bindings.filter { $0.value == control }.map(\.key).sorted()
    }

    // MARK: Text form

    /// The preset's lines, CCs first, by number: `cc7 = volume`.
    public var lines: [String] {
        bindings.keys.sorted().map { "\($0.text) = \(bindings[$0]!.text)" }
    }

    /// Reads one binding, `SOURCE = CONTROL` (`cc64 = mic`, `note36 ch10 = mute 2`).
    /// A note can drive only a toggle: a pad has no position to set a level from.
    /// - Throws: the reason, without a line number.
    public static func binding(key: String, value: String) throws(MIDIControlMapError) -> (MIDIControlSource, LiveControl) {
        let source = try MIDIControlSource(text: key.trimmingSpaces)
        let control = try LiveControl(text: value.trimmingSpaces)
        if source.kind == .note && !control.isToggle {
            throw .init(problem: "a note can only switch mic or mute N; \(control.text) needs a knob or fader (a CC)")
        }
        return (source, control)
    }

    /// Reads the preset's lines: `SOURCE = CONTROL` each; blank lines and
    /// lines starting with `#` or `;` are skipped. The map holds exactly
    /// what the lines say (no defaults added).
    /// - Parameter firstLineNumber: the file's line number of `lines[0]`, for errors.
    /// - Throws: `MIDIControlMapError` naming the first bad line; a source given twice is an error too.
    public init(lines: [String], firstLineNumber: Int = 1) throws(MIDIControlMapError) {
        var bindings: [MIDIControlSource: LiveControl] = [:]
        for (offset, raw) in lines.enumerated() {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            let number = firstLineNumber + offset
            guard let equals = line.firstIndex(of: "=") else {
                throw .init(line: number, text: line, problem: "expected SOURCE = CONTROL, as in cc64 = mic")
            }
            let source: MIDIControlSource, control: LiveControl
            do {
                (source, control) = try Self.binding(key: String(line[..<equals]), value: String(line[line.index(after: equals)...]))
            } catch {
                throw .init(line: number, text: line, problem: error.problem)
            }
            if let earlier = bindings[source] {
                throw .init(line: number, text: line, problem: "\(source.text) is already bound to \(earlier.text)")
            }
            bindings[source] = control
        }
        self.bindings = bindings
    }
}

extension MIDIControlMap {
    /// The preset's `[midi]` entries, as `key = value` pairs in the order `lines` has them.
    public var entries: [(key: String, value: String)] {
        bindings.keys.sorted().map { ($0.text, bindings[$0]!.text) }
    }

    /// Reads a preset's `[midi]` entries, already split at `=` by the preset
    /// reader, each with its line in the file. The map holds exactly these.
    /// - Throws: `MIDIControlMapError` naming the first bad entry's line.
    public init(entries: [(key: String, value: String, line: Int)]) throws(MIDIControlMapError) {
        var bindings: [MIDIControlSource: LiveControl] = [:]
        for entry in entries {
            let text = "\(entry.key.trimmingSpaces) = \(entry.value.trimmingSpaces)"
            let source: MIDIControlSource, control: LiveControl
            do {
                (source, control) = try Self.binding(key: entry.key, value: entry.value)
            } catch {
                throw .init(line: entry.line, text: text, problem: error.problem)
            }
            if let earlier = bindings[source] {
                throw .init(line: entry.line, text: text, problem: "\(source.text) is already bound to \(earlier.text)")
            }
            bindings[source] = control
        }
        self.init(bindings: bindings)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }
}
