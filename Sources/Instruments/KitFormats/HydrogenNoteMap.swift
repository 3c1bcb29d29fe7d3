/// Which MIDI notes play which instrument of a Hydrogen kit.
///
/// Hydrogen's own MIDI input plays instrument *i* of the list from note
/// 36 + *i*, and many kits are ordered so that this is the General MIDI drum
/// map; others are not (an open hi-hat at 36 + 11, a crash at 36 + 18). So
/// that a GM file and a GM drum pad play a drum kit as they would the
/// shipped one, the instruments' names choose their notes when the kit is a
/// drum kit in GM's sense: one instrument of each kind, so that at most a
/// quarter of the instruments whose names say a GM drum find every GM note
/// they could take already taken (`followsNames`). A kit of variations
/// (twelve kicks, five djembes) keeps its own order.
///
/// Notes are given in this order, each note to one instrument only:
/// 1. the kit's `<midiInNote>`, when it has one (its author's mapping);
/// 2. when the kit follows names: the GM note the instrument's name says
///    ("Kick" 36, "Hat Closed" 42, "Tom Floor" 41, "Ride Bell" 53, …
///    `gmNotes(name:)`), or, when an earlier instrument has it, the name's
///    second GM note (a second crash 57, a second ride 59);
/// 3. Hydrogen's 36 + position, to instruments that have no note yet;
/// 4. the name's other GM notes, where free, as extra notes (35 for a kick…);
/// 5. an instrument still without a note gets the lowest free one from 36 up
///    (then below 36).
///
/// Every instrument thus has at least one note while the kit has at most 128.
/// The first note an instrument gets is its own: `busker kits` shows it.
public enum HydrogenNoteMap {
    /// The notes of each instrument, its own note first; `[]` past 128 instruments.
    public static func notes(for instruments: [HydrogenInstrument]) -> [[UInt8]] {
        var owner = [Int](repeating: -1, count: 128)
        var notes = [[UInt8]](repeating: [], count: instruments.count)
        func give(_ note: Int, to index: Int) {
            guard (0...127).contains(note), owner[note] < 0 else { return }
            owner[note] = index
            notes[index].append(UInt8(note))
        }
        let named = instruments.map { gmNotes(name: $0.name) }
        for (index, instrument) in instruments.enumerated() {
            if let note = instrument.midiInNote { give(note, to: index) }
        }
        if followsNames(instruments) {
            for index in instruments.indices where notes[index].isEmpty {
                if let note = named[index].first(where: { owner[$0] < 0 }) { give(note, to: index) }
            }
        }
        for (index, instrument) in instruments.enumerated() where notes[index].isEmpty {
            give(36 + instrument.position, to: index)
        }
        for index in instruments.indices {
            for note in named[index] { give(note, to: index) }
        }
        for index in instruments.indices where notes[index].isEmpty {
            if let free = (Array(36...127) + Array((0..<36).reversed())).first(where: { owner[$0] < 0 }) {
                give(free, to: index)
            }
        }
        return notes
    }

    /// Whether the instruments' names choose their notes: some name says a GM
    /// drum, and at most a quarter of those that do find all their GM notes
    /// taken by earlier instruments.
    public static func followsNames(_ instruments: [HydrogenInstrument]) -> Bool {
        var taken = Set(instruments.compactMap(\.midiInNote))
        var namedCount = 0, crowded = 0
        for instrument in instruments {
            let candidates = gmNotes(name: instrument.name)
            guard !candidates.isEmpty, instrument.midiInNote == nil else { continue }
            namedCount += 1
            if let note = candidates.first(where: { !taken.contains($0) }) { taken.insert(note) } else { crowded += 1 }
        }
        return namedCount > 0 && crowded * 4 <= namedCount
    }

    /// The General MIDI percussion notes an instrument's name describes, the
    /// best first; `[]` when the name says nothing Busker recognises.
    public static func gmNotes(name: String) -> [Int] {
        let text = name.lowercased()
        let words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        func has(_ part: String) -> Bool { text.contains(part) }
        func word(_ exact: String) -> Bool { words.contains(exact) }
        let low = has("low") || word("lo")
        let high = has("high") || word("hi")

        if has("cowbell") || has("cow bell") { return [56] }
        if has("hat") || word("hh") {
            if has("pedal") || word("pd") || has("foot") { return [44] }
            if has("semi") || has("half") || has("swish") || has("choke") { return [] }
            if has("open") || word("op") { return [46] }
            return [42]
        }
        if has("kick") || has("bass drum") || has("bassdrum") || word("bd") || word("kik") { return [36, 35] }
        if has("snare") || word("sd") {
            return has("rim") || has("2") ? [40] : [38, 40]
        }
        if has("stick") || has("rim") { return [37] }
        if has("clap") { return [39] }
        if words.contains(where: { $0.hasPrefix("tom") }) {
            if has("floor") { return [41, 43] }
            if has("mid") { return [47, 48] }
            if high || has("hi") { return [50, 48] }
            if low { return [45, 43] }
            if has("1") { return [48, 50] }
            if has("2") { return [45, 47] }
            if has("3") { return [43, 41] }
            return [45]
        }
        if has("ride") { return has("bell") || has("cup") ? [53] : [51, 59] }
        if has("china") { return [52] }
        if has("splash") { return [55] }
        if has("crash") || has("cymbal") { return [49, 57] }
        if has("bell") { return [53] }
        if has("tamb") { return [54] }
        if has("maraca") || has("shaker") { return [70] }
        if has("cabasa") { return [69] }
        if has("clave") { return [75] }
        if has("woodblock") || has("wood block") { return low ? [77] : [76] }
        if has("triangle") { return [81, 80] }
        if has("guiro") { return [73] }
        if has("vibra") { return [58] }
        if has("whistle") { return [71] }
        if has("conga") { return low ? [64] : [63, 62] }
        if has("bongo") { return low ? [61] : [60] }
        if has("timbal") { return low ? [66] : [65] }
        if has("agogo") { return low ? [68] : [67] }
        if has("cuica") { return [79, 78] }
        return []
    }
}
