import Control

/// `--osc PORT` and `--osc-bind ADDR` of `busker live`.
extension LiveOSCControl {
    public static let valued: Set<String> = ["osc", "osc-bind"]

    public static let help = """
    remote control over OSC (a phone or tablet on the mic stand; off by default; see docs/osc.md):
      --osc PORT             listen for OSC messages on UDP port PORT, 1…65535:
                             /busker/mic 1|0, /busker/volume 0…1, /busker/preset NAME,
                             /busker/strip/N/gain|pan|mute|bass|treble|reverb VALUE;
                             an address without a value is a query, /busker/state asks for
                             everything: the replies go to the sender, and nothing else is sent
      --osc-bind ADDR        the address to listen on (default 127.0.0.1: this machine only;
                             0.0.0.0 for every network, as a phone on Wi-Fi needs)
    """

    /// Reads `--osc` and `--osc-bind`; nil without `--osc`: no socket at all.
    /// - Throws: `CommandLineError` naming the option, or why the port cannot be bound.
    public convenience init?(arguments args: ArgumentScanner) throws {
        guard let port = try args.int("osc", in: 1...65_535) else {
            if args.string("osc-bind") != nil { throw CommandLineError.usage("--osc-bind goes with --osc PORT") }
            return nil
        }
        let server: OSCServer
        do {
            server = try OSCServer(bindAddress: args.string("osc-bind") ?? OSCServer.defaultBindAddress, port: port)
        } catch {
            throw CommandLineError(error)
        }
        self.init(server: server)
    }
}
