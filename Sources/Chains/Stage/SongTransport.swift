import Sequencing

/// The backing song's transport, whatever plays it: a MIDI song's file
/// player or an audio file's `BackingTrackNode`. What the screen's keys
/// and the session's start call.
/// - Thread: control (every member; the positions are atomic loads)
public protocol SongTransport: AnyObject {
    /// From the top (again, after the end).
    func play()
    func pause()
    func resume()
    /// Stops and rewinds.
    func stop()
    /// Where the song is, in seconds of the song.
    var positionSeconds: Double { get }
    /// The song's length in seconds of the song.
    var lengthSeconds: Double { get }
    /// Whether it is playing now (not paused, stopped or at its end).
    var isPlayingSong: Bool { get }
}

extension MIDIFilePlayer: SongTransport {
    public var isPlayingSong: Bool { state == .playing }
}

extension BackingTrackNode: SongTransport {
    public var lengthSeconds: Double { durationSeconds }
    public var isPlayingSong: Bool { isPlaying }
}
