extension StandardMIDIFile {
    /// True for a `.kar` karaoke file: one with a text event starting "@KMIDI"
    /// (the "@KMIDI KARAOKE FILE" tag of the KAR convention).
    public var isKaraoke: Bool {
        tracks.contains { track in
            track.events.contains { event in
                guard case .meta(let meta) = event.kind, case .text(.text, _) = meta else { return false }
                return meta.text?.hasPrefix("@KMIDI") == true
            }
        }
    }

    /// The lyrics in time order.
    ///
    /// In a `.kar` file (see ``isKaraoke``) they are the text events (FF 01)
    /// that do not start with "@" (those are the karaoke headers: @T title,
    /// @L language, @I information…); a leading `\` starts a paragraph and a
    /// leading `/` a line, and both are removed. In any other file they are the
    /// lyric meta events (FF 05), as they are.
    public func lyrics() -> [MIDILyric] {
        let karaoke = isKaraoke
        var lyrics: [MIDILyric] = []
        for event in mergedEvents() {
            guard case .meta(let meta) = event.kind, case .text(let type, _) = meta, let text = meta.text else { continue }
            if karaoke {
                guard type == .text, !text.hasPrefix("@") else { continue }
                var body = Substring(text)
                var startsLine = false, startsParagraph = false
                if body.first == "\\" { startsParagraph = true; body = body.dropFirst() }
                else if body.first == "/" { startsLine = true; body = body.dropFirst() }
                lyrics.append(MIDILyric(tick: event.tick, seconds: event.seconds, text: String(body),
                                        startsLine: startsLine, startsParagraph: startsParagraph))
            } else if type == .lyric {
                lyrics.append(MIDILyric(tick: event.tick, seconds: event.seconds, text: text))
            }
        }
        return lyrics
    }
}
