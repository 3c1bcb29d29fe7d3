/// libsndfile's error strings, for one-line messages: "System error : File
/// too large." says "File too large".
public enum SoundFileErrorText {
    /// `text` without its "System error : " prefix, surrounding white space and
    /// trailing periods; "unknown error" when nothing is left.
    /// - Thread: any
    /// - Realtime: unsafe (allocates)
    public static func clean(_ text: String) -> String {
        var t = Substring(text)
        if let range = t.range(of: "System error : ") { t = t[range.upperBound...] }
        t = t.drop { $0.isWhitespace }
        while let last = t.last, last == "." || last.isWhitespace { t.removeLast() }
        return t.isEmpty ? "unknown error" : String(t)
    }
}
