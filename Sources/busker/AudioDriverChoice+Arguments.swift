import ALSA
import CommandLineInterface
import JACK
import Sessions

/// `--driver`, `--name` and `--connect`: the driver a device command runs on.
extension AudioDriverChoice {
    /// The options `--driver`, `--name` and `--connect` make, for commands
    /// whose ALSA options come from `alsa` (called only when ALSA is chosen).
    /// - Returns: the choice and the start-up words for it, "driver jack (--driver)".
    /// - Throws: `CommandLineError.usage` (exit 2) for a bad value or a JACK option with ALSA.
    static func parse(_ args: ArgumentScanner, inputChannels: Int,
                             alsa: () throws -> DuplexDriver.Options) throws -> (AudioDriverChoice, reason: String) {
        let name = args.string("driver") ?? "alsa"
        let why = args.string("driver") == nil ? "driver alsa (default)" : "driver \(name) (--driver)"
        switch name {
        case "alsa":
            for option in ["name", "connect"] where args.string(option) != nil {
                throw CommandLineError.usage("\(args.spelling(option)) is for --driver jack")
            }
            return (.alsa(try alsa()), why)
        case "jack":
            for option in ["device", "input", "output", "period", "periods", "periods-ahead", "rate"] where args.string(option) != nil {
                throw CommandLineError.usage("\(args.spelling(option)) is for --driver alsa: the JACK server sets the rate and buffer size")
            }
            var options = JACKDriver.Options(inputChannels: inputChannels)
            if let clientName = args.string("name") {
                guard !clientName.isEmpty, clientName.utf8.count <= 63, !clientName.contains(":") else {
                    throw CommandLineError.usage("--name '\(clientName)': a JACK client name is 1…63 characters, without ':'")
                }
                options.clientName = clientName
            }
            // jackd2 names a client's socket after the client as it names the server's after the
            // server (jack_NAME_UID_0): a client named as its server replaces the server's socket,
            // and no other client (jack_connect, qjackctl) reaches the server again.
            let server = JACKDriver.defaultServerName
            guard options.clientName != server else {
                let given = args.string("name") != nil ? "--name '\(server)'" : "the client name 'busker' (the default)"
                throw CommandLineError.usage("\(given) is the JACK server's name; a client named as its server cuts the server "
                                             + "off from every other client: give --name another name")
            }
            if let text = args.string("connect") {
                guard let connections = JACKDriver.Connections(argument: text) else {
                    throw CommandLineError.usage("--connect '\(text)': expected \(JACKDriver.Connections.syntax)")
                }
                options.connections = connections
            }
            return (.jack(options), why)
        default:
            throw CommandLineError.usage("--driver '\(name)': expected alsa or jack")
        }
    }

    /// What `--help` says of these options.
    static let help = """
      --driver alsa|jack     ALSA devices (default), or Busker as a JACK client (jackd, or
                             PipeWire through pw-jack): ports in_1…in_N, out_L, out_R; the
                             server sets the rate and buffer size; no server is an error
      --name NAME            JACK client name (default busker; JACK renames on a clash), never
                             the server's name (that cuts the server off from other clients)
      --connect HOW          JACK patching: auto (inputs from the first physical capture ports,
                             out_L/out_R to the first two playback ports; the default), none
                             (patch in qjackctl, Carla, jack_connect), or PORT=OTHER,… with
                             our port first: in_1=system:capture_2,out_L=system:playback_1
    """
}
