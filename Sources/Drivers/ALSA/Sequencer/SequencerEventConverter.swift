import CALSA
import MIDI

/// Turns ALSA sequencer events into MIDI 1.0 messages: a pure function of the
/// event struct, so tests build `snd_seq_event_t` values and check the result.
///
/// Most events are one message. ALSA's 14-bit controller and (N)RPN events
/// stand for several control changes on the wire, and come out as those,
/// in wire order, as ALSA's own MIDI encoder writes them (`snd_midi_event_decode`):
/// - `CONTROL14` with a controller below 32: the MSB on the controller, then
///   the LSB on controller + 32; above, one control change of the low 7 bits;
/// - `NONREGPARAM`: CC 99 and 98 (parameter MSB, LSB), then CC 6 and 38 (value);
/// - `REGPARAM`: the same with CC 101 and 100.
///
/// ALSA's pitch bend is signed (−8192 … 8191, 0 = centre); `MIDIMessage`'s is
/// the 14-bit wire value (0 … 16383, 8192 = centre). Values out of range are
/// clamped, data bytes masked to 7 bits. Not converted: SysEx (its payload
/// cannot travel in a `MIDIMessage`), `NOTE` events with a duration (only a
/// sequencer queue sends them, and the note-off would be Busker's to
/// schedule), and the sequencer's own queue, tempo and system events.
///
/// - Realtime: safe; it runs on the sequencer thread.
public enum SequencerEventConverter {
    /// Calls `emit` with each message `event` stands for (none to four).
    /// - Returns: how many.
    /// - Thread: midi-in, control
    /// - Realtime: safe (`emit` must be too)
    @discardableResult
    public static func convert(_ event: snd_seq_event_t, _ emit: (MIDIMessage) -> Void) -> Int {
        let type = UInt32(event.type)
        switch type {
        case SND_SEQ_EVENT_NOTEON.rawValue, SND_SEQ_EVENT_NOTEOFF.rawValue, SND_SEQ_EVENT_KEYPRESS.rawValue:
            let note = event.data.note
            let channel = note.channel & 0x0F, key = note.note & 0x7F, velocity = note.velocity & 0x7F
            switch type {
            case SND_SEQ_EVENT_NOTEON.rawValue: emit(.noteOn(channel: channel, note: key, velocity: velocity))
            case SND_SEQ_EVENT_NOTEOFF.rawValue: emit(.noteOff(channel: channel, note: key, velocity: velocity))
            default: emit(.polyPressure(channel: channel, note: key, pressure: velocity))
            }
            return 1
        case SND_SEQ_EVENT_CONTROLLER.rawValue:
            let control = event.data.control
            guard control.param < 128 else { return 0 }
            emit(.controlChange(channel: control.channel & 0x0F, controller: UInt8(control.param), value: sevenBits(control.value)))
            return 1
        case SND_SEQ_EVENT_PGMCHANGE.rawValue:
            let control = event.data.control
            emit(.programChange(channel: control.channel & 0x0F, program: sevenBits(control.value)))
            return 1
        case SND_SEQ_EVENT_CHANPRESS.rawValue:
            let control = event.data.control
            emit(.channelPressure(channel: control.channel & 0x0F, pressure: sevenBits(control.value)))
            return 1
        case SND_SEQ_EVENT_PITCHBEND.rawValue:
            let control = event.data.control
            let wire = Int(control.value) + Int(MIDIMessage.pitchBendCenter)
            emit(.pitchBend(channel: control.channel & 0x0F, value: UInt16(min(max(wire, 0), 16383))))
            return 1
        case SND_SEQ_EVENT_CONTROL14.rawValue:
            let control = event.data.control
            let channel = control.channel & 0x0F
            guard control.param < 128 else { return 0 }
            let value = fourteenBits(control.value)
            if control.param < 32 {
                emit(.controlChange(channel: channel, controller: UInt8(control.param), value: UInt8(value >> 7)))
                emit(.controlChange(channel: channel, controller: UInt8(control.param) + 32, value: UInt8(value & 0x7F)))
                return 2
            }
            emit(.controlChange(channel: channel, controller: UInt8(control.param), value: UInt8(value & 0x7F)))
            return 1
        case SND_SEQ_EVENT_NONREGPARAM.rawValue, SND_SEQ_EVENT_REGPARAM.rawValue:
            let control = event.data.control
            let channel = control.channel & 0x0F
            let registered = type == SND_SEQ_EVENT_REGPARAM.rawValue
            let parameter = UInt16(control.param & 0x3FFF)
            let value = fourteenBits(control.value)
            emit(.controlChange(channel: channel, controller: registered ? 101 : 99, value: UInt8(parameter >> 7)))
            emit(.controlChange(channel: channel, controller: registered ? 100 : 98, value: UInt8(parameter & 0x7F)))
            emit(.controlChange(channel: channel, controller: 6, value: UInt8(value >> 7)))
            emit(.controlChange(channel: channel, controller: 38, value: UInt8(value & 0x7F)))
            return 4
        case SND_SEQ_EVENT_SONGPOS.rawValue:
            emit(.songPosition(fourteenBits(event.data.control.value)))
            return 1
        case SND_SEQ_EVENT_SONGSEL.rawValue:
            emit(.songSelect(sevenBits(event.data.control.value)))
            return 1
        case SND_SEQ_EVENT_QFRAME.rawValue:
            emit(.timeCodeQuarterFrame(sevenBits(event.data.control.value)))
            return 1
        case SND_SEQ_EVENT_TUNE_REQUEST.rawValue: emit(.tuneRequest); return 1
        case SND_SEQ_EVENT_START.rawValue: emit(.start); return 1
        case SND_SEQ_EVENT_CONTINUE.rawValue: emit(.continue); return 1
        case SND_SEQ_EVENT_STOP.rawValue: emit(.stop); return 1
        case SND_SEQ_EVENT_CLOCK.rawValue: emit(.timingClock); return 1
        case SND_SEQ_EVENT_SENSING.rawValue: emit(.activeSensing); return 1
        case SND_SEQ_EVENT_RESET.rawValue: emit(.systemReset); return 1
        default:
            return 0
        }
    }

    /// Whether `event` is an ALSA SysEx event (counted, not converted).
    /// - Thread: midi-in
    /// - Realtime: safe
    public static func isSysEx(_ event: snd_seq_event_t) -> Bool {
        UInt32(event.type) == SND_SEQ_EVENT_SYSEX.rawValue
    }

    /// `value` clamped to 0…127.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    private static func sevenBits(_ value: Int32) -> UInt8 { UInt8(min(max(value, 0), 127)) }
    /// `value` clamped to 0…16383.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    private static func fourteenBits(_ value: Int32) -> UInt16 { UInt16(min(max(value, 0), 16383)) }
}
