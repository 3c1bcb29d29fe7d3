import Chains
import Foundation
import Sequencing

/// What a session plays: the capture strips, the instruments and a song,
/// and the MIDI that plays them. Empty, it records its input as it is.
/// `busker live` hands it strips, `busker play` instruments, `busker record`
/// nothing.
public struct SessionSources {
    /// The instruments as `busker play` builds them, with the song they play.
    public struct Instruments {
        public var options: InstrumentRig.Options
        public var settings: VoiceSettings
        /// A Standard MIDI File to play through them, or nil.
        public var songPath: String?
        public var loop = false
        public var tempo: Float = 1
        /// The bar a MIDI song starts at (nil: the top).
        public var fromBar: Int?
        /// Semitones a MIDI song is moved by (channel 10 stays).
        public var transpose = 0
        /// A section played over and over: bars (both played) of a MIDI
        /// song, seconds of an audio one.
        public var section: ClosedRange<Double>?
        /// A Standard MIDI File played as if from the player's keyboard (the
        /// stage on files: what a MIDI keyboard would play live), or nil.
        public var performancePath: String?

        public init(options: InstrumentRig.Options, settings: VoiceSettings, songPath: String? = nil) {
            self.options = options
            self.settings = settings
            self.songPath = songPath
        }

        /// Sets a MIDI song's transport as asked: loop, tempo, transpose, its
        /// section and the bar it starts at (where it then waits, paused).
        /// - Throws: `SessionError.invalidRequest` naming the option, for a
        ///   bar or section the song does not have.
        /// - Thread: control
        public func prepare(_ player: MIDIFilePlayer) throws {
            player.isLooping = loop
            player.tempoScale = Double(tempo)
            player.transposeSemitones = transpose
            if let section {
                do {
                    try player.setLoopSection(startBar: Int(section.lowerBound), endBar: Int(section.upperBound) + 1)
                } catch {
                    throw SessionError.invalidRequest("--section \(Int(section.lowerBound))-\(Int(section.upperBound)): \(error)")
                }
            }
            if let fromBar {
                do {
                    try player.seek(toBar: fromBar)
                } catch {
                    throw SessionError.invalidRequest("--from \(fromBar): \(error)")
                }
            }
        }

        /// The song's file name, for the screen.
        public var songName: String? { songPath.map { ($0 as NSString).lastPathComponent } }
    }

    /// The mic: one strip per capture channel in use, into the live bus.
    public var strips: LiveSettings?
    public var instruments: Instruments?
    /// MIDI besides the computer keyboard (`--midi`, `--midi-in`); the
    /// driver's own MIDI input (JACK's `midi_in`) joins it when it opens.
    public var midi: MIDISources?
    /// The output limiter's look-ahead; nil: none (an instant attack, no added delay).
    public var limiterLookaheadMilliseconds: Float?
    /// With nothing but the input: the take's channels (nil: the input's).
    public var recordedChannels: Int?
    /// An output of its own for each strip and part (`--direct-outs`, JACK only).
    public var directOuts = false

    public init(strips: LiveSettings? = nil, instruments: Instruments? = nil, midi: MIDISources? = nil,
                limiterLookaheadMilliseconds: Float? = nil) {
        self.strips = strips
        self.instruments = instruments
        self.midi = midi
        self.limiterLookaheadMilliseconds = limiterLookaheadMilliseconds
    }

    /// The direct outs' port names (`DirectOuts.names`) for these strips and
    /// parts, known before the chain is built: the driver registers them when it opens.
    public var directOutNames: [String] {
        guard directOuts, let strips else { return [] }
        let parts = instruments.map { StageChain.partNames(options: $0.options, hasSong: $0.songPath != nil) } ?? []
        return DirectOuts.names(stripCount: strips.strips.count, parts: parts)
    }

    /// Nothing but the input, recorded as it is (`busker record`).
    public var isCaptureOnly: Bool { strips == nil && instruments == nil }

    /// The capture channels the sources read: up to the highest strip's
    /// input; 1 to record the input as it is (more when the device gives
    /// more); none for instruments alone.
    public var captureChannels: Int {
        if let strips { return strips.strips.flatMap(\.channels).max() ?? 1 }
        return instruments == nil ? 1 : 0
    }
}
