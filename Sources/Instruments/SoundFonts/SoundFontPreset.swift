import MIDI

/// One preset of a SoundFont as `busker instruments` lists it and the play
/// screen names it: where MIDI finds it (bank, program) and its name in the font.
public struct SoundFontPreset: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 0–16383; General MIDI fonts use 0 for instruments, 8, 16… for variations, 128 for drum kits.
    public var bank: Int
    /// 0–127.
    public var program: Int
    /// The name the font gives it ("Yamaha Grand Piano").
    public var name: String

    public init(bank: Int, program: Int, name: String) {
        self.bank = bank
        self.program = program
        self.name = name
    }

    /// The percussion bank of General MIDI SoundFonts.
    public static let percussionBank = 128

    /// Whether this is a drum kit (bank 128).
    public var isPercussion: Bool { bank == Self.percussionBank }

    public var description: String { "\(name) (bank \(bank) program \(program))" }

    /// The messages that select this preset, of banks 0–127, on `channel`
    /// (0–15): bank select (CC 0, which FluidSynth's default GS style takes
    /// as the bank; CC 32 at 0) and program change.
    public func selectionMessages(channel: UInt8) -> [MIDIMessage] {
        [.controlChange(channel: channel, controller: 0, value: UInt8(min(max(bank, 0), 127))),
         .controlChange(channel: channel, controller: 32, value: 0),
         .programChange(channel: channel, program: UInt8(program & 0x7F))]
    }
}
