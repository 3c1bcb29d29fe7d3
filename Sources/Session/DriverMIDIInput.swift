import Sequencing

/// A MIDI input a driver provides itself, such as a JACK client's `midi_in`:
/// the driver reads it on its own thread and hands each event, stamped with
/// its frame, to `port`. A session adds `port` to its MIDI sources; the
/// same input carries on through a driver reopened after a loss.
public protocol DriverMIDIInput: AnyObject {
    /// The lane its events arrive on (one producer: the driver's thread).
    var port: MIDIInputPort { get }
    /// Its name on the driver (`midi_in`), for summaries.
    var portName: String { get }
    /// Where it is and how to patch a source to it, for the start-up line.
    var patchHint: String { get }
    /// Sources connected to it now.
    /// - Thread: any
    var connectedSourceCount: Int { get }
    /// Malformed events skipped since it opened.
    /// - Thread: any
    var malformedCount: Int { get }
}
