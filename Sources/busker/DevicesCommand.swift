import ALSA
import CommandLineInterface
import JACK
import Sessions

/// `busker devices`: the cards and PCM names ALSA knows, like `aplay -L`
/// and `arecord -l` together, with the default marked; and the JACK
/// server's ports when one runs.
enum DevicesCommand {
    static let help = """
    usage: busker devices

    Lists sound cards and the ALSA PCM names to use with busker live
    (--device, --input, --output) and busker play (--output), says which is
    the default, and lists the MIDI inputs busker play can connect to
    (--midi CLIENT:PORT; --midi auto takes every hardware one).
    When a JACK server runs ($JACK_DEFAULT_SERVER, else default), lists its
    ports too, for --driver jack --connect; it never starts one.
    No sound card? Tools/virtual-soundcard starts a virtual one.

      --names                only the PCM names, one a line (for scripts and completion)
      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        if let extra = args.positionals.first { throw CommandLineError.usage("unexpected argument '\(extra)'") }
        if args.has("names") {
            for name in DeviceList.current().pcmNames { print(name) }
            return
        }
        print(DeviceList.current().description)
        print("")
        print(SequencerMIDIInput.listingText(SequencerMIDIInput.listInputs()))
        print("")
        let server = JACKDriver.defaultServerName
        if let ports = JACKServerWatcher.serverPorts(nil) {
            print("JACK server '\(server)' ports (busker live --driver jack --connect PORT=OTHER,…):")
            for port in ports { print("  \(port)") }
        } else {
            print("JACK: no server '\(server)' is running (busker live --driver jack needs one: jackd, qjackctl or pw-jack)")
        }
    }
}
