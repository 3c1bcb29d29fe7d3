/// The options a mistyped one was probably meant to be, for "did you mean
/// --volume?": the declared names closest to it by edit distance (a letter
/// added, dropped, changed or two swapped), or the one it is a prefix of.
public enum OptionSuggestion {
    /// The names of `known` that `typed` was most likely meant to be, best
    /// first; empty when none is close. Names are without dashes.
    ///
    /// Close means at most one edit for names of up to four letters and at
    /// most two for longer ones (`volum`, `voluem`, `volme` find `volume`;
    /// `gain` does not find `rate`), or `typed` is the start of exactly one
    /// name and at least three letters long (`vol` finds `volume`).
    public static func closest(to typed: String, among known: some Sequence<String>) -> [String] {
        let typedLetters = Array(typed)
        let allowed = typedLetters.count <= 4 ? 1 : 2
        var best: [String] = []
        var bestDistance = allowed + 1
        var prefixed: [String] = []
        for name in Set(known).sorted() {
            if typedLetters.count >= 3 && name.hasPrefix(typed) { prefixed.append(name) }
            let distance = editDistance(typedLetters, Array(name))
            if distance < bestDistance {
                best = [name]
                bestDistance = distance
            } else if distance == bestDistance {
                best.append(name)
            }
        }
        if best.isEmpty && prefixed.count == 1 { return prefixed }
        return Array(best.prefix(3))
    }

    /// The optimal string alignment distance: insertions, deletions,
    /// substitutions and swaps of two neighbours, each one edit.
    public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows of the table: two rows back (for swaps), the last, the current.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var last = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(last[j] + 1, current[j - 1] + 1, last[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], twoBack[j - 2] + 1)
                }
            }
            (twoBack, last, current) = (last, current, twoBack)
        }
        return last[b.count]
    }

    /// " (did you mean --volume?)", or "" when nothing is close: the tail of
    /// an "unknown option" message.
    public static func hint(for typed: String, among known: some Sequence<String>) -> String {
        let names = closest(to: typed, among: known).map { "--" + $0 }
        guard let last = names.last else { return "" }
        let list = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        return " (did you mean \(list)?)"
    }
}
