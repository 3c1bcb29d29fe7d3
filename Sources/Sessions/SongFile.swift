import CommandLineInterface
import MIDI
import Sequencing

/// A song opened for `busker play` and `busker render`: the file read once,
/// forgivingly, and placed on the timeline at the output's rate.
public struct SongFile {
    /// The longest song Busker plays: a day. Anything longer is a file whose
    /// lengths lie (a crafted tempo and delta times can claim centuries).
    public static let maximumSeconds = 24 * 3600

    /// The path as given.
    public let path: String
    public let song: StandardMIDIFile

    /// Reads `path`, recovering what a damaged file allows.
    /// - Throws: `SessionError.failed` naming the file: unreadable or not MIDI.
    public init(path: String) throws {
        self.path = path
        do {
            song = try StandardMIDIFile(contentsOfFile: path)
        } catch {
            throw SessionError.failed(error.description)
        }
    }

    /// What was skipped in a damaged file, in one line naming it
    /// (`song.mid: recovered from damage: …`), or nil for a sound file.
    public var warning: String? {
        song.repairSummary.map { "\(path): \($0)" }
    }

    /// The song's events placed at `sampleRate`.
    /// - Throws: `SessionError.failed` when the song claims to last longer than a day.
    public func player(sampleRate: Int) throws -> MIDIFilePlayer {
        let player = MIDIFilePlayer(file: song, sampleRate: sampleRate)
        guard player.lengthFrames <= Int64(Self.maximumSeconds) * Int64(sampleRate) else {
            throw SessionError.failed("\(path): the song claims to last more than 24 hours; its tempo or times are not believable")
        }
        return player
    }
}
