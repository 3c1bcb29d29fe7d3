/// Which SoundFont preset the sampler plays: a bank and a program, as MIDI
/// bank select and program change address them.
///
/// Built from the command line's `--instrument NAME`, `--program N` and
/// `--bank N` by `resolve(instrument:program:bank:)`.
public struct SamplerInstrument: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 0–16383 (MIDI bank select MSB·128 + LSB; SoundFonts use 0 for General MIDI, 128 for drum kits).
    public var bank: Int
    /// 0–127.
    public var program: Int

    public init(bank: Int = 0, program: Int) {
        self.bank = bank
        self.program = program
    }

    /// General MIDI program 0, Acoustic Grand Piano.
    public static let piano = SamplerInstrument(program: 0)
    /// General MIDI program 13, Xylophone.
    public static let xylophone = SamplerInstrument(program: 13)

    public static let programRange = 0...127
    public static let bankRange = 0...16383

    /// The General MIDI name of the program, on bank 0; nil on other banks.
    public var generalMIDIName: String? {
        bank == 0 && Self.programRange.contains(program) ? GeneralMIDI.programNames[program] : nil
    }

    public var description: String {
        if let name = generalMIDIName { return "\(name) (program \(program))" }
        return "bank \(bank) program \(program)"
    }

    /// The instrument the command line asks for.
    ///
    /// `instrument` is a General MIDI name or alias (`piano`, `xylophone`,
    /// `"Acoustic Guitar (nylon)"`, case and punctuation ignored), the unique
    /// start or part of one (`"Church"`, `nylon`), or a program number; `program` is `--program`. Giving both is allowed only when
    /// they agree. With neither, the piano.
    /// - Throws: `SamplerError.unknownInstrument`, `.ambiguousInstrument`, `.conflictingInstrument`, `.valueOutOfRange`.
    public static func resolve(instrument: String? = nil, program: Int? = nil, bank: Int? = nil) throws -> SamplerInstrument {
        let bank = bank ?? 0
        guard bankRange.contains(bank) else {
            throw SamplerError.valueOutOfRange(name: "--bank", value: String(bank), range: "0-16383")
        }
        if let program, !programRange.contains(program) {
            throw SamplerError.valueOutOfRange(name: "--program", value: String(program), range: "0-127")
        }
        var named: Int?
        if let instrument {
            if let number = Int(instrument) {
                guard programRange.contains(number) else {
                    throw SamplerError.valueOutOfRange(name: "--instrument", value: instrument, range: "0-127")
                }
                named = number
            } else {
                let found = GeneralMIDI.programs(matching: instrument)
                guard let first = found.first else { throw SamplerError.unknownInstrument(instrument) }
                guard found.count == 1 else {
                    throw SamplerError.ambiguousInstrument(instrument, candidates: found.map { GeneralMIDI.programNames[$0] })
                }
                named = first
            }
        }
        if let named, let program, named != program {
            throw SamplerError.conflictingInstrument(instrument: instrument ?? "", program: program)
        }
        return SamplerInstrument(bank: bank, program: named ?? program ?? 0)
    }
}
