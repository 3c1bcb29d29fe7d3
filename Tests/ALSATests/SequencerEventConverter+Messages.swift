import ALSA
import CALSA
import MIDI

extension SequencerEventConverter {
    /// Every message `event` stands for, in order, collected from `convert`.
    /// - Realtime: unsafe (allocates). Tests only.
    static func messages(for event: snd_seq_event_t) -> [MIDIMessage] {
        var messages: [MIDIMessage] = []
        convert(event) { messages.append($0) }
        return messages
    }
}
