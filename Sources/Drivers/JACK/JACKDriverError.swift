import Session

/// What goes wrong opening or starting the JACK driver, as the user reads
/// it: one line naming the server (or port) and what to try.
public enum JACKDriverError: DriverError, Equatable {
    /// No server runs under that name (Busker never starts one).
    case serverNotRunning(server: String)
    /// The server refused the client (`jack_client_open`'s status bits).
    case clientRefused(server: String, status: UInt32)
    /// A port could not be registered.
    case portRefused(port: String)
    /// `--connect` named a port of ours that does not exist.
    case unknownOwnPort(port: String, available: [String])
    /// `--connect` named a port the server does not have.
    case unknownServerPort(port: String, server: String)
    /// `jack_connect` refused a connection.
    case connectFailed(from: String, to: String, code: Int32)
    /// `jack_activate` failed.
    case activateFailed(server: String, code: Int32)
    /// The server shut down; this client cannot run again (a new driver must be opened).
    case serverGone(server: String)
    /// JACK refused to report `midi_in`'s connections to the client.
    case midiInputRefused(client: String)
    /// A call in the wrong state (a start after close).
    case invalidState(String)

    public var startFailure: StartFailure {
        switch self {
        case let .serverNotRunning(server), let .serverGone(server):
            StartFailure(kind: .missing, device: JACKDriver.routeName(server: server), message: description)
        default:
            StartFailure(kind: .other, device: JACKDriver.routeName(server: nil), message: description)
        }
    }

    public var description: String {
        switch self {
        case let .serverNotRunning(server):
            "no JACK server '\(server)' is running (Busker does not start one): start it with jackd "
                + "(e.g. jackd -d alsa) or qjackctl, run under PipeWire with pw-jack, or use --driver alsa"
        case let .clientRefused(server, status):
            "the JACK server '\(server)' refused the client (status 0x\(String(status, radix: 16)))"
        case let .portRefused(port):
            "the JACK server refused to register port '\(port)'"
        case let .unknownOwnPort(port, available):
            "--connect: Busker has no port '\(port)' (its ports: \(available.joined(separator: ", ")))"
        case let .unknownServerPort(port, server):
            "--connect: the JACK server '\(server)' has no port '\(port)' (jack_lsp lists them)"
        case let .connectFailed(from, to, code):
            "could not connect \(from) to \(to) (jack_connect: \(code))"
        case let .activateFailed(server, code):
            "the JACK server '\(server)' refused to activate the client (jack_activate: \(code))"
        case let .serverGone(server):
            "the JACK server '\(server)' has shut down"
        case let .midiInputRefused(client):
            "JACK client \(client): cannot follow \(JACKMIDIInput.portName)'s connections"
        case let .invalidState(what):
            "JACK driver: \(what)"
        }
    }
}
