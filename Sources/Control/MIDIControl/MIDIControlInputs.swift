import Sequencing

/// The MIDI sources live MIDI control reads (a controller, a footswitch, a
/// JACK client's `midi_in`): one port each, which the control thread drains,
/// started and stopped with the session. The session layer opens them
/// (`MIDISources`); Control only reads their ports.
/// - Realtime: unsafe (opens and closes devices). Control thread only.
public protocol MIDIControlInputs: AnyObject {
    /// One port per source; the control thread is their one consumer.
    var ports: [MIDIInputPort] { get }
    /// Things the user should know that are not errors ("no MIDI devices: …").
    var notices: [String] { get }
    /// Whether any source is there to learn from.
    var hasSource: Bool { get }
    func start()
    func stop()
}
