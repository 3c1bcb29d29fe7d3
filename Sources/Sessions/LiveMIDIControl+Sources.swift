import Control

/// The MIDI sources a session opens are what live MIDI control reads.
extension MIDISources: MIDIControlInputs {}

extension LiveMIDIControl {
    /// Opens the MIDI sources (`MIDISources`) and reads them through `map`.
    /// The driver's own MIDI input (JACK's `midi_in`) joins them when a
    /// session opens the driver.
    /// - Parameters:
    ///   - midi: `auto`, `none` or `CLIENT:PORT` (nil: auto, or none when `midiIn` is an ALSA device).
    ///   - midiIn: a raw MIDI device, FIFO or file, or nil.
    ///   - map: the bindings (the defaults, or a preset's).
    /// - Throws: `SessionError` naming the option. No ALSA sequencer with
    ///   `auto` is a notice (`notices`), not an error.
    public convenience init(midi: String?, midiIn: String?, map: MIDIControlMap = .defaults) throws {
        try self.init(midi: midi.map { [$0] } ?? [], midiIn: midiIn, map: map)
    }

    /// - Parameter midi: every `--midi` value (see `MIDISources`).
    public convenience init(midi: [String], midiIn: String?, map: MIDIControlMap = .defaults) throws {
        self.init(inputs: try MIDISources(midi: midi, midiIn: midiIn), map: map)
    }
}
