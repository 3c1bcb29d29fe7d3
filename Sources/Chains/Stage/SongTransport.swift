import Sequencing

/// The backing song's transport, whatever plays it: a MIDI song's file
/// player or an audio file's `BackingTrackNode`. What the screen's keys
/// and the session's start call.
/// - Thread: control (every member; the positions are atomic loads)
public protocol SongTransport: AnyObject {
    /// From the top, whatever it was doing.
    func playFromTop()
    func pause()
    func resume()
    /// Stops and goes back to the top.
    func stop()
    /// Where the song is, in seconds of the song.
    var positionSeconds: Double { get }
    /// The song's length in seconds of the song.
    var lengthSeconds: Double { get }
    var songState: MIDIFilePlayer.State { get }
    /// What else the screen should say of it ("loop", "tempo ×2"); empty for none.
    var songNotes: [String] { get }
}

extension MIDIFilePlayer: SongTransport {
    public func playFromTop() { play() }
    public var songState: State { state }
    public var songNotes: [String] {
        (isLooping ? ["loop"] : []) + (tempoScale != 1 ? ["tempo ×\(tempoScale)"] : [])
            + (transposeSemitones != 0 ? ["transpose \(transposeSemitones > 0 ? "+" : "")\(transposeSemitones)"] : [])
    }
}

extension BackingTrackNode: SongTransport {
    public func playFromTop() {
        _ = rewind()
        play()
    }

    public var lengthSeconds: Double { durationSeconds }

    public var songState: MIDIFilePlayer.State {
        if isPlaying { return .playing }
        if hasEnded { return .finished }
        return positionFrames == 0 ? .stopped : .paused
    }

    public var songNotes: [String] {
        (loop.map { [String(format: "loop %.1f–%.1f s", $0.lowerBound, $0.upperBound)] } ?? [])
            + (underrunCount > 0 ? ["\(underrunCount) underruns"] : [])
    }
}
