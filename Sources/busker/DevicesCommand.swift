import ALSA
import Rig

/// `busker devices`: the cards and PCM names ALSA knows, like `aplay -L`
/// and `arecord -l` together, with the default marked.
enum DevicesCommand {
    static let help = """
    usage: busker devices

    Lists sound cards and the ALSA PCM names to use with busker live
    (--device, --input, --output) and busker play (--output), says which is
    the default, and lists the MIDI inputs busker play can connect to
    (--midi CLIENT:PORT; --midi auto takes every hardware one).
    No sound card? Tools/virtual-soundcard starts a virtual one.
    """

    static func run(_ arguments: [String]) throws {
        let args = try ArgumentScanner(arguments, valued: [], flags: ["help"])
        if args.has("help") {
            print(help)
            return
        }
        if let extra = args.positionals.first { throw CommandLineError.usage("unexpected argument '\(extra)'") }
        print(DeviceList.current().description)
        print("")
        print(SequencerMIDIInput.listingText(SequencerMIDIInput.listInputs()))
    }
}
