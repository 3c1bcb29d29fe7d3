import ALSAIO
import AudioCore
import Foundation
import MIDI

/// Every way a player reaches `busker play`, wired to the engine: the
/// computer keyboard (always), the ALSA sequencer (`--midi auto` or
/// `--midi CLIENT:PORT`), and a raw MIDI byte stream (`--midi-in PATH`).
/// Each source has its own ports, so when one goes away only its notes end.
final class MIDISources {
    static let valued: Set<String> = ["midi", "midi-in"]

    static let help = """
    MIDI in (the computer keyboard always plays too):
      --midi auto|none|CLIENT:PORT
                             ALSA sequencer: auto connects every hardware MIDI input and
                             follows them as they come and go (default); CLIENT:PORT picks
                             one, as aconnect names it (20:0, "Keystation:0"); none skips it
      --midi-in PATH         read raw MIDI bytes from a device (/dev/snd/midiC1D0), a FIFO or a file
                             (with a /dev/snd device, --midi defaults to none: the two would share it)
    """

    /// The computer keyboard's lane; the control thread is its producer.
    let keyboardPort = MIDIInputPort(name: "keyboard")
    let sequencer: SequencerMIDIInput?
    let raw: RawMIDIInput?
    /// All ports, for the scheduler.
    let ports: [MIDIInputPort]
    /// Things the user should know that are not errors ("no ALSA sequencer here").
    private(set) var notices: [String] = []

    init(args: ArgumentScanner) throws {
        var ports = [keyboardPort]
        // A raw ALSA MIDI device can be opened once: with --midi-in naming one,
        // the sequencer (which would open it too) stays off unless asked for.
        let rawDevice = args.string("midi-in")?.hasPrefix("/dev/snd/") ?? false
        let choice = args.string("midi") ?? (rawDevice ? "none" : "auto")
        if choice == "none" {
            sequencer = nil
        } else {
            let selection: SequencerSourceSelection
            do {
                selection = try SequencerSourceSelection(argument: choice)
            } catch {
                throw CommandLineError.usage("--midi: \(error)")
            }
            let pool = SequencerMIDIInput.makePortPool()
            do {
                sequencer = try SequencerMIDIInput(selection: selection, ports: pool)
                ports += pool
            } catch {
                // Asked for by name: an error. Automatic: carry on with the other sources.
                if case .port = selection { throw CommandLineError.runtime("--midi \(choice): \(error)") }
                sequencer = nil
                notices.append("no MIDI devices: \(error)")
            }
        }
        if let path = args.string("midi-in") {
            let port = MIDIInputPort(name: path)
            do {
                raw = try RawMIDIInput(path: path, port: port)
            } catch {
                throw CommandLineError.runtime("--midi-in: \(error)")
            }
            ports.append(port)
        } else {
            raw = nil
        }
        self.ports = ports
    }

    func start() {
        sequencer?.start()
        raw?.start()
    }

    /// Stops the reader threads; each releases its notes on the way out.
    func stop() {
        sequencer?.stop()
        raw?.stop()
        keyboardPort.releaseAllNotes()
    }

    /// One line for the screen: which sources are connected.
    var summary: String {
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
        return parts.joined(separator: " · ")
    }
}
