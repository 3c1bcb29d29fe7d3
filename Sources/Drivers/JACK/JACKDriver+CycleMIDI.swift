extension JACKDriver {
    /// The hook JACK MIDI in plugs into: with `Options.midiInput` the driver
    /// registers `midi_in`, and each process cycle, before the engine renders
    /// that cycle, hands this reader the port's buffer. Events read there
    /// (`jack_midi_get_event_count`, `jack_midi_event_get`, each with its
    /// frame in the cycle) are due in the block about to be rendered, frame 0
    /// being the cycle's first frame.
    ///
    /// Set `JACKDriver.cycleMIDI` before `start(engine:)` (it is read by the
    /// process callback, and changed only while the driver is stopped). The
    /// reader is called in every cycle once the driver has started: with
    /// the cycle's length in cycles that render, and with `frames` 1 in cycles
    /// that do not (stopped for a rebuild, or silenced until the graph is
    /// rebuilt for a longer cycle; see the driver's "Format changes"), so
    /// those events wait in the reader's queue for the first frame of the
    /// next rendered cycle instead of being lost.
    public protocol CycleMIDI: AnyObject {
        /// Reads this cycle's `midi_in` events.
        /// - Parameters:
        ///   - buffer: `jack_port_get_buffer(midi_in, nframes)`, valid during this call only.
        ///   - frames: the cycle's length (`nframes`), the frames the engine renders next.
        /// - Thread: audio (JACK's process thread, named `audio-render`)
        /// - Realtime: must be safe: no allocation, no lock, no blocking call.
        func readCycle(buffer: UnsafeMutableRawPointer, frames: Int)
    }
}
