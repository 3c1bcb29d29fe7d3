/// libsndfile's error strings say "System error : File too large."; keep the useful part.
enum SoundFileErrorText {
    /// `text` without its "System error : " prefix and trailing periods and newlines.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    static func clean(_ text: String) -> String {
        var t = text
        if let range = t.range(of: "System error : ") { t = String(t[range.upperBound...]) }
        while t.hasSuffix(".") || t.hasSuffix("\n") { t.removeLast() }
        return t
    }
}
