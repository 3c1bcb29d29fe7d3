import ALSA
import CommandLineInterface
import Foundation
import Sequencing
import Session

/// Every way a player reaches `busker play`, wired to the engine: the
/// computer keyboard (always), the ALSA sequencer (`--midi auto` or
/// `--midi CLIENT:PORT`), a raw MIDI byte stream (`--midi-in PATH`), and
/// the driver's own MIDI input (with `--driver jack`, the client's `midi_in`),
/// attached when the driver opens.
/// Each source has its own ports, so when one goes away only its notes end.
public final class MIDISources {
    public static let valued: Set<String> = ["midi", "midi-in"]

    public static let help = """
    MIDI in (the computer keyboard always plays too):
      --midi auto|none|CLIENT:PORT
                             ALSA sequencer: auto connects every hardware MIDI input and
                             follows them as they come and go (default); CLIENT:PORT picks
                             one, as aconnect names it (20:0, "Keystation:0"; repeatable:
                             --midi 20:0 --midi 24:0 connects both); none skips it
      --midi-in PATH         read raw MIDI bytes from a device (/dev/snd/midiC1D0), a FIFO or a file
                             (with a /dev/snd device, --midi defaults to none: the two would share it)
    """

    /// The computer keyboard's lane; the control thread is its producer.
    public let keyboardPort = MIDIInputPort(name: "keyboard")
    public let sequencer: SequencerMIDIInput?
    public let raw: RawMIDIInput?
    /// The driver's own input (JACK's `midi_in`); its producer is the driver's thread.
    public private(set) var driverInput: (any DriverMIDIInput)?
    /// All ports, for the scheduler.
    public private(set) var ports: [MIDIInputPort]
    /// Things the user should know that are not errors ("no ALSA sequencer here").
    public private(set) var notices: [String] = []

    /// - Parameters:
    ///   - midi: `auto`, `none` or `CLIENT:PORT` (nil: auto, or none when `midiIn` is an ALSA device).
    ///   - midiIn: a raw MIDI device, FIFO or file to read, or nil.
    /// - Throws: `SessionError` naming the option.
    public convenience init(midi: String?, midiIn: String?) throws {
        try self.init(midi: midi.map { [$0] } ?? [], midiIn: midiIn)
    }

    /// - Parameters:
    ///   - midi: every `--midi` value: `auto`, `none`, or one or more `CLIENT:PORT`
    ///     (empty: auto, or none when `midiIn` is an ALSA device).
    public init(midi: [String], midiIn: String?) throws {
        var ports = [keyboardPort]
        // A raw ALSA MIDI device can be opened once: with --midi-in naming one,
        // the sequencer (which would open it too) stays off unless asked for.
        let rawDevice = midiIn?.hasPrefix("/dev/snd/") ?? false
        let choices = midi.isEmpty ? [rawDevice ? "none" : "auto"] : midi
        let choice = choices.joined(separator: ", ")
        if choices.count > 1, choices.contains(where: { $0.lowercased() == "none" }) {
            throw SessionError.invalidRequest("--midi none turns the sequencer off: give it alone, not with \(choices.filter { $0 != "none" }.joined(separator: ", "))")
        }
        if choices.count > 1, choices.contains(where: { $0.lowercased() == "auto" }) {
            throw SessionError.invalidRequest("--midi auto takes every hardware input: give it alone, not with \(choices.filter { $0.lowercased() != "auto" }.joined(separator: ", "))")
        }
        if choices == ["none"] {
            sequencer = nil
        } else {
            let selection: SequencerSourceSelection
            do {
                selection = try SequencerSourceSelection(arguments: choices)
            } catch {
                throw SessionError.invalidRequest("--midi: \(error)")
            }
            let pool = SequencerMIDIInput.makePortPool()
            do {
                sequencer = try SequencerMIDIInput(selection: selection, ports: pool)
                ports += pool
            } catch {
                // Asked for by name: an error. Automatic: carry on with the other sources.
                if selection.isExplicit { throw SessionError.failed("--midi \(choice): \(error)") }
                sequencer = nil
                notices.append("no MIDI devices: \(error)")
            }
        }
        if let path = midiIn {
            let port = MIDIInputPort(name: path)
            do {
                raw = try RawMIDIInput(path: path, port: port)
            } catch {
                throw SessionError.failed("--midi-in: \(error)")
            }
            ports.append(port)
        } else {
            raw = nil
        }
        self.ports = ports
    }

    /// Adds the driver's own MIDI input. Before the scheduler is built
    /// (it takes the ports as they are then).
    /// - Thread: control
    public func attach(_ input: any DriverMIDIInput) {
        driverInput = input
        ports.append(input.port)
    }

    public func start() {
        sequencer?.start()
        raw?.start()
    }

    /// Stops the reader threads; each releases its notes on the way out.
    /// The driver's input's notes end with the session (the scheduler's
    /// release on stop): its one producer is the driver's thread, not this one.
    public func stop() {
        sequencer?.stop()
        raw?.stop()
        keyboardPort.releaseAllNotes()
    }

    /// Whether any source besides the computer keyboard can send now: an
    /// ALSA sequencer port connected, a raw MIDI input still reading, or a
    /// JACK MIDI source patched in. Learn mode has nothing to learn without one.
    public var hasSource: Bool {
        if let sequencer, !sequencer.status.connectedSources.isEmpty { return true }
        if let raw, !raw.status.state.isFinal { return true }
        if let driverInput, driverInput.connectedSourceCount > 0 { return true }
        return false
    }

    /// One line for the screen: which sources are connected.
    public var summary: String {
        var parts = ["keyboard"]
        if let sequencer {
            let status = sequencer.status
            if status.connectedSources.isEmpty {
                parts.append("ALSA seq \(status.address) (\(status.selection), nothing connected)")
            } else {
                parts.append(contentsOf: status.connectedSources.map { "\($0.address) \($0.portName)" })
            }
        }
        if let raw { parts.append("\(raw.path) (\(raw.status.state))") }
        if let driverInput {
            let sources = driverInput.connectedSourceCount
            let malformed = driverInput.malformedCount > 0 ? ", \(driverInput.malformedCount) malformed skipped" : ""
            parts.append("\(driverInput.portName) (\(sources == 0 ? "nothing" : "\(sources) source\(sources == 1 ? "" : "s")") connected\(malformed))")
        }
        return parts.joined(separator: " · ")
    }
}
