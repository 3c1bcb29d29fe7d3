/// The computer keyboard as a MIDI instrument, laid out like the on-screen
/// keyboard of a phone app: two octaves of piano keys on the letter rows,
/// drum pads on the number row.
///
/// ```
///  number row   1    2    3    4    5    6    7    8    9    0    -    =     drum pads
///  Q row        C+   D+   E+   F+   G+   A+   B+   C++  D++  E++   [ ]       upper octave, octave down/up
///  A row          C#   D#      F#   G#   A#      C#+  D#+                    sharps of the lower octave
///  Z row        C    D    E    F    G    A    B    C+   D+   E+              lower octave
/// ```
/// Shift raises any piano key by a semitone (so Shift+Q is the upper
/// octave's C#), and Shift on the number row plays an accent.
///
/// A terminal speaking the kitty keyboard protocol reports releases: then
/// `keyDown` strikes a piano note and it sounds until `keyUp` of the same
/// physical key (a chord holds every note; auto-repeat is not passed on).
///
/// Other terminals report key presses but no releases: `press`. A piano note therefore ends
/// `holdSeconds` after its key was last seen; the terminal's auto-repeat
/// (a burst of presses every 30–50 ms while a key is held) keeps it sounding,
/// and a press that comes later than `repeatWindowSeconds` after the previous
/// one strikes the note again, as a new tap on a phone screen would. The one
/// ambiguity: a terminal's first auto-repeat arrives after its repeat delay
/// (250–600 ms), which looks like a second tap and restrikes once.
///
/// Pure logic on the control thread: feed it key bytes and the clock, send
/// what it returns through a `MIDIInputPort`.
public struct ComputerKeyboard: Sendable {
    public struct Options: Equatable, Sendable {
        /// How long a piano note sounds after its key was last seen.
        public var holdSeconds: Double = 0.6
        /// A press within this long of the previous press of the same key is auto-repeat.
        public var repeatWindowSeconds: Double = 0.1
        /// How long a drum hit's note is held (drum voices are one-shots; this only closes the note).
        public var drumHoldSeconds: Double = 0.1
        public var velocity: UInt8 = 100
        public var accentVelocity: UInt8 = 127
        /// The channel of the piano keys (0-based); drums always use GM channel 10 (index 9).
        public var channel: UInt8 = 0
        /// The MIDI note of the Z key (the lower octave's C): 60 is middle C (C4).
        public var lowerC: Int = 60

        public init() {}
    }

    /// What a key does.
    public enum Binding: Equatable, Sendable {
        /// A piano key: semitones above the lower octave's C.
        case piano(semitone: Int)
        /// A drum pad: a General MIDI percussion note.
        case drum(note: UInt8)
        case octaveDown, octaveUp
    }

    public var options: Options
    /// Sounding notes, keyed by channel << 8 | note, with the time each one ends.
    private var sounding: [UInt16: Double] = [:]
    private var lastPress: [UInt8: Double] = [:]
    /// With real releases: the note each held physical key sounds.
    private var held: [UInt32: UInt16] = [:]

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The drum pads of the number row, in key order, as GM percussion notes:
    /// kick, snare, closed hat, open hat, pedal hat, floor, mid and high tom,
    /// crash, ride, clap, side stick: the pads of a standard kit, at the GM
    /// notes of Busker's shipped kit.
    public static let drumRow: [(key: Character, note: UInt8)] = [
        ("1", 36), ("2", 38), ("3", 42), ("4", 46), ("5", 44), ("6", 43),
        ("7", 47), ("8", 50), ("9", 49), ("0", 51), ("-", 39), ("=", 37),
    ]
    /// The same keys with Shift on a US layout: accents.
    private static let shiftedDrumKeys: [Character] = ["!", "@", "#", "$", "%", "^", "&", "*", "(", ")", "_", "+"]

    private static let lowerWhite: [Character] = ["z", "x", "c", "v", "b", "n", "m", ",", ".", "/"]
    private static let lowerBlack: [(Character, Int)] = [("s", 1), ("d", 3), ("g", 6), ("h", 8), ("j", 10), ("l", 13), (";", 15)]
    private static let upperWhite: [Character] = ["q", "w", "e", "r", "t", "y", "u", "i", "o", "p"]
    private static let shiftedLowerWhite: [Character] = ["Z", "X", "C", "V", "B", "N", "M", "<", ">", "?"]
    /// Semitones of the white keys C D E F G A B C D E.
    private static let whiteSemitones = [0, 2, 4, 5, 7, 9, 11, 12, 14, 16]

    /// What `key` does, or nil when it plays nothing. The second value is true for accents.
    public static func binding(for key: Character) -> (binding: Binding, accent: Bool)? {
        if key == "[" { return (.octaveDown, false) }
        if key == "]" { return (.octaveUp, false) }
        if let pad = drumRow.first(where: { $0.key == key }) { return (.drum(note: pad.note), false) }
        if let index = shiftedDrumKeys.firstIndex(of: key) { return (.drum(note: drumRow[index].note), true) }
        if let index = lowerWhite.firstIndex(of: key) { return (.piano(semitone: whiteSemitones[index]), false) }
        if let index = shiftedLowerWhite.firstIndex(of: key) { return (.piano(semitone: whiteSemitones[index] + 1), false) }
        if let black = lowerBlack.first(where: { $0.0 == key }) { return (.piano(semitone: black.1), false) }
        // Shift on a sharp key: a semitone up too (S is D, : is E on a US layout).
        if let black = lowerBlack.first(where: { String($0.0).uppercased() == String(key) && key.isUppercase }) {
            return (.piano(semitone: black.1 + 1), false)
        }
        if key == ":" { return (.piano(semitone: 16), false) }
        if let index = upperWhite.firstIndex(of: key) { return (.piano(semitone: 12 + whiteSemitones[index]), false) }
        if let index = upperWhite.firstIndex(of: Character(key.lowercased())), key.isUppercase {
            return (.piano(semitone: 12 + whiteSemitones[index] + 1), false)
        }
        return nil
    }

    /// Handles one key press at `now` (seconds on any monotonic clock).
    /// - Returns: the messages to send, in order; empty for keys that play nothing.
    public mutating func press(_ key: Character, at now: Double) -> [MIDIMessage] {
        var out = expire(at: now)
        guard let (binding, accent) = Self.binding(for: key) else { return out }
        let keyCode = key.asciiValue ?? 0
        let isRepeat = lastPress[keyCode].map { now - $0 < options.repeatWindowSeconds } ?? false
        lastPress[keyCode] = now
        switch binding {
        case .octaveDown:
            if !isRepeat { shiftOctave(by: -1) }
        case .octaveUp:
            if !isRepeat { shiftOctave(by: 1) }
        case .drum(let note):
            // A held pad key does not machine-gun: auto-repeat is ignored.
            if isRepeat { break }
            out += strikePad(note, accent: accent, at: now)
        case .piano(let semitone):
            guard let note = pianoNote(semitone) else { break }
            let id = Self.id(channel: options.channel, note: note)
            if isRepeat, sounding[id] != nil {
                sounding[id] = now + options.holdSeconds
            } else {
                out += strike(note, channel: options.channel, velocity: options.velocity, until: now + options.holdSeconds)
            }
        }
        return out
    }

    /// A key went down, from a terminal that reports releases: a piano note
    /// sounds until `keyUp` of the same `keyCode` (the physical key, so a
    /// release after Shift was let go still finds it); a drum pad strikes as
    /// with `press`. Auto-repeat must not be passed here.
    /// - Returns: the messages to send, in order; empty for keys that play nothing.
    public mutating func keyDown(_ key: Character, keyCode: UInt32, at now: Double) -> [MIDIMessage] {
        var out = expire(at: now)
        // A press without the release of the last one (the release was lost): end that note first.
        if held[keyCode] != nil { out += keyUp(keyCode: keyCode, at: now) }
        guard let (binding, accent) = Self.binding(for: key) else { return out }
        switch binding {
        case .octaveDown: shiftOctave(by: -1)
        case .octaveUp: shiftOctave(by: 1)
        case .drum(let note):
            out += strikePad(note, accent: accent, at: now)
        case .piano(let semitone):
            guard let note = pianoNote(semitone) else { break }
            out += strike(note, channel: options.channel, velocity: options.velocity, until: .infinity)
            held[keyCode] = Self.id(channel: options.channel, note: note)
        }
        return out
    }

    /// A key came up, from a terminal that reports releases: its piano note
    /// ends, unless another held key sounds the same note.
    public mutating func keyUp(keyCode: UInt32, at now: Double) -> [MIDIMessage] {
        var out = expire(at: now)
        guard let id = held.removeValue(forKey: keyCode), !held.values.contains(id),
              sounding.removeValue(forKey: id) != nil else { return out }
        out.append(Self.noteOff(id))
        return out
    }

    /// Ends the notes whose hold ran out by `now`. Call it regularly (every 10–20 ms).
    public mutating func expire(at now: Double) -> [MIDIMessage] {
        let due = sounding.filter { $0.value <= now }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
        for (id, _) in due { sounding[id] = nil }
        return due.map { Self.noteOff($0.key) }
    }

    /// Ends every sounding note now (on stop, or when the keyboard source is switched off).
    public mutating func releaseAll() -> [MIDIMessage] {
        let all = sounding.keys.sorted()
        sounding.removeAll()
        held.removeAll()
        return all.map(Self.noteOff)
    }

    private static func id(channel: UInt8, note: UInt8) -> UInt16 { UInt16(channel) << 8 | UInt16(note) }

    private static func noteOff(_ id: UInt16) -> MIDIMessage {
        .noteOff(channel: UInt8(id >> 8), note: UInt8(id & 0xFF), velocity: 0)
    }

    /// The lower octave's C as a note name, e.g. "C4".
    public var octaveName: String { NoteName.name(of: options.lowerC) }

    private mutating func shiftOctave(by octaves: Int) {
        // Keep both octaves and the top key (E two octaves up) on the MIDI range.
        let shifted = options.lowerC + 12 * octaves
        if shifted >= 0 && shifted + 28 <= 127 { options.lowerC = shifted }
    }

    /// The note a piano key `semitone` above the lower C plays; nil off the MIDI range.
    private func pianoNote(_ semitone: Int) -> UInt8? {
        let value = options.lowerC + semitone
        return (0...127).contains(value) ? UInt8(value) : nil
    }

    /// Strikes drum pad `note` on channel 10 for the pads' hold, at the
    /// accent velocity when `accent` (Shift).
    private mutating func strikePad(_ note: UInt8, accent: Bool, at now: Double) -> [MIDIMessage] {
        strike(note, channel: 9, velocity: accent ? options.accentVelocity : options.velocity, until: now + options.drumHoldSeconds)
    }

    private mutating func strike(_ note: UInt8, channel: UInt8, velocity: UInt8, until ends: Double) -> [MIDIMessage] {
        var out: [MIDIMessage] = []
        let id = Self.id(channel: channel, note: note)
        if sounding[id] != nil { out.append(.noteOff(channel: channel, note: note, velocity: 0)) }
        sounding[id] = ends
        out.append(.noteOn(channel: channel, note: note, velocity: velocity))
        return out
    }

    /// Lines for the screen: which key plays what, with the current octave.
    public func legend(style: NoteName.Style = .letters) -> [String] {
        let c = options.lowerC
        let lower = Self.lowerWhite.enumerated().map { "\($0.element)=\(NoteName.name(of: c + Self.whiteSemitones[$0.offset], style: style))" }
        let sharps = Self.lowerBlack.map { "\($0.0)=\(NoteName.name(of: c + $0.1, style: style))" }
        let upper = Self.upperWhite.enumerated().map { "\($0.element)=\(NoteName.name(of: c + 12 + Self.whiteSemitones[$0.offset], style: style))" }
        let pads = Self.drumRow.map { "\($0.key)=\(Self.shortDrumNames[$0.note] ?? "?")" }
        return [
            "piano  " + lower.joined(separator: " "),
            "sharps " + sharps.joined(separator: " ") + "  (Shift+key: a semitone up)",
            "upper  " + upper.joined(separator: " "),
            "drums  " + pads.joined(separator: " ") + "  (Shift: accent)",
            "octave [ down  ] up   (Z is \(NoteName.name(of: c, style: style)))",
        ]
    }

    private static let shortDrumNames: [UInt8: String] = [
        36: "kick", 38: "snare", 42: "hat", 46: "open-hat", 44: "pedal-hat", 43: "floor-tom",
        47: "tom-mid", 50: "tom-hi", 49: "crash", 51: "ride", 39: "clap", 37: "stick",
    ]
}
