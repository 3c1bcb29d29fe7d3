import Chains
import Foundation

/// OSC remote control of `busker live` (`--osc PORT`, `--osc-bind ADDR`):
/// the socket and its receive thread (`OSCServer`), the validator and the
/// counts (`OSCControlResponder`), and the lines a headless session prints.
/// The session's controller (`LiveController.pollOSC`) takes the messages on the control
/// thread and applies them as it applies keys and MIDI: knobs and mutes
/// through its settings (parameters, which ramp), the mic through its mic
/// switch (the mixer's 20 ms ramp). The render thread never sees OSC.
///
/// - Realtime: unsafe (allocates, opens a socket). Control thread only.
public final class LiveOSCControl {
    public let server: OSCServer
    public private(set) var responder = OSCControlResponder()
    /// What OSC did, by address (`takeActionLines()`, `lastAction`).
    private var actionLog = ControlActionLog<String>()
    /// The last thing OSC did, for the screen ("/busker/volume → volume 0.42").
    public var lastAction: String? { actionLog.latest }

    /// Listens through `server` (not started yet).
    public init(server: OSCServer) {
        self.server = server
    }

    /// Binds the socket (port 0: one the system chooses, for tests).
    /// - Throws: `OSCServerError`.
    public convenience init(bindAddress: String = OSCServer.defaultBindAddress, port: Int) throws(OSCServerError) {
        self.init(server: try OSCServer(bindAddress: bindAddress, port: port))
    }

    /// "OSC on 127.0.0.1 port 9000 (UDP)".
    public var startLine: String { "OSC on \(server.bindAddress) port \(server.port) (UDP)" }

    public var counts: OSCControlResponder.Counts { responder.counts }

    /// The counts' line, and the replies the budget held back when there were any
    /// ("…; 0 malformed; 744 replies over one host's budget, not sent").
    /// - Thread: control
    public var summary: String {
        let dropped = server.repliesDropped
        return counts.summary + (dropped == 0 ? "" : "; \(dropped) repl\(dropped == 1 ? "y" : "ies") over one host's budget, not sent")
    }

    public func start() { server.start() }
    public func stop() { server.stop() }

    /// Takes the messages received since the last call (datagrams that were
    /// not OSC are counted as malformed here).
    /// - Thread: control
    public func take() -> [OSCServer.Received] {
        let (messages, malformed) = server.receive()
        responder.countMalformed(malformed)
        return messages
    }

    /// Validates one message and applies it to `settings` where it can (see
    /// `OSCControlResponder`); records the action line.
    /// - Thread: control
    public func respond(to received: OSCServer.Received, settings: inout LiveSettings, micOn: Bool,
                        presetName: String?) -> OSCControlResponder.Outcome {
        let message = received.message
        let outcome = responder.respond(to: message, settings: &settings, micOn: micOn, presetName: presetName)
        switch outcome {
        case let .changed(control):
            record("\(message.address) → \(control.description(in: settings))", address: message.address)
        case let .mic(on):
            record("\(message.address) → mic \(on ? "on" : "off")")
        case let .loadPreset(name):
            record("\(message.address) → preset \(name)")
        case .reply:
            break
        case .unknownAddress:
            break  // counted; a stray surface page would flood the log
        case let .refused(refusal):
            record("\(message.text): refused, \(refusal.text)", address: message.address)
        }
        return outcome
    }

    /// Sends a query's replies to whoever asked.
    /// - Thread: control
    public func reply(_ messages: [OSCMessage], to received: OSCServer.Received) {
        for message in messages { server.send(message, to: received.sender) }
    }

    /// A preset the session could not load: counted as refused.
    /// - Thread: control
    public func presetRefused(_ name: String, because why: String) {
        responder.presetRefused()
        record("/busker/preset \(name): refused, \(why)")
    }

    /// Lines describing what OSC did since the last call (headless output).
    public func takeActionLines() -> [String] { actionLog.takeLines() }

    /// The longest action line kept, in characters: a packet's strings can be
    /// any length. With "busker live: OSC: " a headless line stays within 200.
    public static let actionLineLimit = 180

    /// Logs `line` escaped (a packet's strings may hold control characters)
    /// and cut to `actionLineLimit`.
    private func record(_ line: String, address: String? = nil) {
        actionLog.record(TerminalText.shortened(TerminalText.escaped(line), to: Self.actionLineLimit),
                         source: address.map { TerminalText.shortened($0, to: Self.actionLineLimit) })
    }
}
