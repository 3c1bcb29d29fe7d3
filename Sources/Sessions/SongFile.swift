import CommandLineInterface
import Foundation
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

    /// Whether `path` starts as a MIDI file does (an `MThd` chunk, or a RIFF
    /// `RMID` around one); any other regular file given as a stage's song
    /// is audio. What is not a regular file (a FIFO) is read as MIDI, as
    /// `busker play` reads it, without being opened here.
    public static func looksLikeMIDI(path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 12))
        return head.starts(with: Array("MThd".utf8)) || (head.starts(with: Array("RIFF".utf8)) && head.count == 12
                                                         && Array(head[8..<12]) == Array("RMID".utf8))
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
