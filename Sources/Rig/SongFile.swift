import MIDI
import Sequencing

/// Opening a song for `busker play` and `busker render`.
public enum SongFile {
    /// The longest song Busker plays: a day. Anything longer is a file whose
    /// lengths lie (a crafted tempo and delta times can claim centuries).
    public static let maximumSeconds = 24 * 3600

    /// Reads `path` and places its events at `sampleRate`.
    /// - Throws: `CommandLineError.runtime` naming the file: unreadable, not
    ///   MIDI, corrupt, or longer than a day.
    public static func player(path: String, sampleRate: Int) throws -> MIDIFilePlayer {
        let song: StandardMIDIFile
        do {
            song = try StandardMIDIFile(contentsOfFile: path)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
        let player = MIDIFilePlayer(file: song, sampleRate: sampleRate)
        guard player.lengthFrames <= Int64(maximumSeconds) * Int64(sampleRate) else {
            throw CommandLineError.runtime("\(path): the song claims to last more than 24 hours; its tempo or times are not believable")
        }
        return player
    }
}
