/// What a song has set on each of the 16 channels by some point: the state a
/// sequencer "chases" when it starts playing in the middle, so the song sounds
/// there as it would have had it played from the top.
///
/// Kept per channel: bank select (CC 0 and 32), the program, the pitch bend,
/// modulation (1), volume (7), pan (10), expression (11), the sustain pedal
/// (64), the reverb and chorus sends (91, 93), the pitch-bend range (RPN 0,
/// through data entry CC 6 and 38) and which parameter number (RPN or NRPN)
/// data entry addresses. Reset All Controllers (CC 121) sets what General
/// MIDI's RP-015 says it resets: pitch bend, modulation, expression, sustain
/// and the parameter selection.
///
/// A fixed-size value (no heap storage): built on the control thread by
/// `observe`, it can be handed to the audio thread in a queue, which turns it
/// into messages with `forEachMessage` without allocating.
public struct MIDIChaseState: Sendable {
    /// One channel's values; −1 where the song has not set it.
    struct Channel: Sendable {
        var bankMSB: Int16 = -1
        var bankLSB: Int16 = -1
        var program: Int16 = -1
        var pitchBend: Int32 = -1
        var modulation: Int16 = -1
        var volume: Int16 = -1
        var pan: Int16 = -1
        var expression: Int16 = -1
        var sustain: Int16 = -1
        var reverbSend: Int16 = -1
        var chorusSend: Int16 = -1
        var bendRangeSemitones: Int16 = -1
        var bendRangeCents: Int16 = -1
        /// The parameter number data entry addresses (CC 101/100 for an RPN,
        /// 99/98 for an NRPN); −1 where never selected (127, "none", when sent).
        var parameterMSB: Int16 = -1
        var parameterLSB: Int16 = -1
        var parameterIsRegistered = true

        var selectsParameter: Bool { parameterMSB >= 0 || parameterLSB >= 0 }
        var selectsBendRange: Bool { parameterIsRegistered && parameterMSB == 0 && parameterLSB == 0 }

        mutating func select(registered: Bool, msb: Int16? = nil, lsb: Int16? = nil) {
            if registered != parameterIsRegistered {
                parameterMSB = 127
                parameterLSB = 127
            }
            parameterIsRegistered = registered
            if let msb { parameterMSB = msb }
            if let lsb { parameterLSB = lsb }
        }
    }

    var channels = InlineArray<16, Channel>(repeating: Channel())

    public init() {}

    /// The General MIDI values a receiver starts with, for what `song` sets
    /// somewhere but not here: so that moving back before the song's first
    /// change undoes it (volume 100, pan 64, expression 127, reverb 40 and
    /// chorus 0 as General MIDI 2 gives them, bend centred, a range of 2
    /// semitones, program and bank 0, sustain off, no parameter selected).
    /// What the song never sets is left alone (a program the player chose
    /// for a channel the song never changes stays).
    /// - Realtime: safe. Control thread.
    public func withDefaults(forWhatIsSetIn song: MIDIChaseState) -> MIDIChaseState {
        var result = self
        for index in 0..<16 {
            let whole = song.channels[index]
            var channel = result.channels[index]
            func fill(_ value: inout Int16, _ set: Int16, _ initial: Int16) { if value < 0 && set >= 0 { value = initial } }
            fill(&channel.bankMSB, whole.bankMSB, 0)
            fill(&channel.bankLSB, whole.bankLSB, 0)
            fill(&channel.program, whole.program, 0)
            if channel.pitchBend < 0 && whole.pitchBend >= 0 { channel.pitchBend = Int32(MIDIMessage.pitchBendCenter) }
            fill(&channel.modulation, whole.modulation, 0)
            fill(&channel.volume, whole.volume, 100)
            fill(&channel.pan, whole.pan, 64)
            fill(&channel.expression, whole.expression, 127)
            fill(&channel.sustain, whole.sustain, 0)
            fill(&channel.reverbSend, whole.reverbSend, 40)
            fill(&channel.chorusSend, whole.chorusSend, 0)
            fill(&channel.bendRangeSemitones, whole.bendRangeSemitones, 2)
            fill(&channel.bendRangeCents, whole.bendRangeCents, 0)
            if !channel.selectsParameter && whole.selectsParameter { channel.select(registered: true, msb: 127, lsb: 127) }
            result.channels[index] = channel
        }
        return result
    }

    /// Takes in one message of the song, in playing order.
    /// - Realtime: safe. Control thread.
    public mutating func observe(_ message: MIDIMessage) {
        switch message {
        case .programChange(let channel, let program):
            channels[Int(channel & 0x0F)].program = Int16(program & 0x7F)
        case .pitchBend(let channel, let value):
            channels[Int(channel & 0x0F)].pitchBend = Int32(value & 0x3FFF)
        case .controlChange(let channel, let controller, let value):
            Self.observe(controller: controller, value: Int16(value & 0x7F), on: &channels[Int(channel & 0x0F)])
        default:
            break
        }
    }

    private static func observe(controller: UInt8, value: Int16, on channel: inout Channel) {
        switch controller {
        case 0: channel.bankMSB = value
        case 32: channel.bankLSB = value
        case 1: channel.modulation = value
        case 7: channel.volume = value
        case 10: channel.pan = value
        case 11: channel.expression = value
        case 64: channel.sustain = value
        case 91: channel.reverbSend = value
        case 93: channel.chorusSend = value
        case 101: channel.select(registered: true, msb: value)
        case 100: channel.select(registered: true, lsb: value)
        case 99: channel.select(registered: false, msb: value)
        case 98: channel.select(registered: false, lsb: value)
        case 6 where channel.selectsBendRange: channel.bendRangeSemitones = value
        case 38 where channel.selectsBendRange: channel.bendRangeCents = value
        case 121:
            channel.pitchBend = Int32(MIDIMessage.pitchBendCenter)
            channel.modulation = 0
            channel.expression = 127
            channel.sustain = 0
            channel.select(registered: true, msb: 127, lsb: 127)
        default:
            break
        }
    }

    /// Calls `emit` with the messages that put each channel in this state, in
    /// an order receivers need: bank select before the program, the
    /// controllers, the pitch-bend range (RPN 0 then the parameter the song
    /// had selected, or none), the bend, and the sustain pedal only when it
    /// is down (a pedal that is up needs nothing: the player lifts its pedals
    /// before it chases).
    /// - Returns: how many messages were emitted.
    /// - Thread: audio, control
    /// - Realtime: safe (`emit` must be too)
    @discardableResult
    public func forEachMessage(_ emit: (MIDIMessage) -> Void) -> Int {
        var count = 0
        for index in 0..<16 {
            let state = channels[index]
            let channel = UInt8(index)
            func send(_ message: MIDIMessage) {
                emit(message)
                count += 1
            }
            func control(_ controller: UInt8, _ value: Int16) {
                if value >= 0 { send(.controlChange(channel: channel, controller: controller, value: UInt8(value))) }
            }
            control(0, state.bankMSB)
            control(32, state.bankLSB)
            if state.program >= 0 { send(.programChange(channel: channel, program: UInt8(state.program))) }
            control(1, state.modulation)
            control(7, state.volume)
            control(10, state.pan)
            control(11, state.expression)
            control(91, state.reverbSend)
            control(93, state.chorusSend)
            func selectParameter() {
                let registered = state.parameterIsRegistered || !state.selectsParameter
                control(registered ? 101 : 99, state.parameterMSB < 0 ? 127 : state.parameterMSB)
                control(registered ? 100 : 98, state.parameterLSB < 0 ? 127 : state.parameterLSB)
            }
            if state.bendRangeSemitones >= 0 || state.bendRangeCents >= 0 {
                control(101, 0)
                control(100, 0)
                control(6, state.bendRangeSemitones < 0 ? 2 : state.bendRangeSemitones)
                control(38, max(state.bendRangeCents, 0))
                selectParameter()
            } else if state.selectsParameter {
                selectParameter()
            }
            if state.pitchBend >= 0 { send(.pitchBend(channel: channel, value: UInt16(state.pitchBend))) }
            if state.sustain >= 64 { control(64, state.sustain) }
        }
        return count
    }

    /// How many messages `forEachMessage` emits.
    /// - Thread: audio, control
    /// - Realtime: safe
    public var messageCount: Int { forEachMessage { _ in } }
}
