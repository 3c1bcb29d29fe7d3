/// What in a SoundFont FluidSynth would play as silence, without a word of
/// its own: sample headers whose start and end do not lie in the sample
/// data (past its end, end 0, end before start), sample data of size 0 or of
/// an odd size, and the presets none of whose zones reach a playable sample
/// (a zeroed `ibag`, samples all bad, an attenuation of 144 dB or more). The
/// sampler still loads the font; the command line names what will be silent.
///
/// - Realtime: unsafe (file I/O, allocates). Control thread.
public struct SoundFontSilence: Equatable, Sendable {
    /// A sample header FluidSynth cannot play, and why ("end 0 before start 120").
    public struct Sample: Equatable, Sendable {
        public var name: String
        public var reason: String
    }

    /// The font's path.
    public var path: String
    /// What is wrong with the font as a whole (its sample data's size, tables that do not hold together).
    public var fontProblem: String?
    public var samples: [Sample]
    /// The presets that play nothing at all ("000:000 Piano 1").
    public var silentPresets: [String]

    /// Whether nothing was found.
    public var isEmpty: Bool { fontProblem == nil && samples.isEmpty && silentPresets.isEmpty }

    /// An attenuation (generator 48, centibels) at which a zone is inaudible: 144 dB, the range of 24-bit audio.
    static let inaudibleAttenuation = 1440
    static let attenuationGenerator: UInt16 = 48

    /// Checks the SoundFont at `path`. A file that is not one is left to the
    /// sampler's loader to refuse: this returns no findings for it.
    public static func check(path: String) -> SoundFontSilence {
        var result = SoundFontSilence(path: path, fontProblem: nil, samples: [], silentPresets: [])
        let tables: SoundFontPresetTables
        do {
            tables = try SoundFontPresetTables(path: path)
        } catch {
            // Only indices that point out of their tables are this check's to name ("igen record 3 names shdr record
            // 32767 of 12"); a file that is not a SoundFont at all is the loader's to refuse.
            guard error.reason.contains(" names ") else { return result }
            result.fontProblem = "its tables do not hold together (\(error.reason))"
            return result
        }
        let dataBytes = tables.sampleDataBytes ?? 0
        if dataBytes == 0 {
            result.fontProblem = "it holds no sample data"
        } else if dataBytes % 2 == 1 {
            result.fontProblem = "its sample data has an odd size (\(dataBytes) bytes) where 16-bit samples need an even one"
        }
        let bad = result.findSamples(tables, frames: dataBytes / 2)
        result.silentPresets = Self.presetsWithoutSound(tables, badSamples: bad)
        return result
    }

    /// Records each unplayable sample header; returns their record numbers.
    private mutating func findSamples(_ tables: SoundFontPresetTables, frames: Int) -> Set<Int> {
        var bad = Set<Int>()
        for record in 0..<(tables.count(.shdr) - 1) {
            let base = record * SoundFontPresetTables.Table.shdr.recordSize
            let bytes = tables.tables[SoundFontPresetTables.Table.shdr.rawValue]
            let name = String(decoding: bytes[base..<(base + 20)].prefix { $0 != 0 }, as: UTF8.self)
            let start = Int(SoundFontPresetTables.uint32(bytes, base + 20)), end = Int(SoundFontPresetTables.uint32(bytes, base + 24))
            let type = tables.field(.shdr, record, 44)
            // Compressed (SF3: offsets count bytes of Ogg data) and ROM samples are not checked against 16-bit frames.
            if type & 0x0010 != 0 || type & 0x8000 != 0 { continue }
            let reason: String?
            if end <= start {
                reason = "end \(end) is not after start \(start)"
            } else if end > frames {
                reason = "end \(end) is past the sample data's \(frames) frames"
            } else {
                reason = nil
            }
            if let reason {
                samples.append(Sample(name: name, reason: reason))
                bad.insert(record)
            }
        }
        return bad
    }

    /// The presets none of whose zones reach a sample outside `badSamples` at an audible attenuation.
    private static func presetsWithoutSound(_ tables: SoundFontPresetTables, badSamples: Set<Int>) -> [String] {
        func zones(_ bag: SoundFontPresetTables.Table, _ range: Range<Int>) -> [Range<Int>] {
            range.map { Int(tables.field(bag, $0, 0))..<Int(tables.field(bag, $0 + 1, 0)) }
        }
        /// The last value of `generator` in the zone's generators `gens`, as stored (unsigned).
        func value(_ gen: SoundFontPresetTables.Table, _ gens: Range<Int>, _ generator: UInt16) -> UInt16? {
            gens.last { tables.field(gen, $0, 0) == generator }.map { tables.field(gen, $0, 2) }
        }
        func index(_ gen: SoundFontPresetTables.Table, _ gens: Range<Int>, _ generator: UInt16) -> Int? {
            value(gen, gens, generator).map(Int.init)
        }
        /// An attenuation in centibels (a signed amount), 0 when the zone has none.
        func attenuation(_ gen: SoundFontPresetTables.Table, _ gens: Range<Int>) -> Int {
            value(gen, gens, attenuationGenerator).map { Int(Int16(bitPattern: $0)) } ?? 0
        }
        var audibleInstrument: [Int: Bool] = [:]
        func audible(instrument: Int) -> Bool {
            if let known = audibleInstrument[instrument] { return known }
            let bags = Int(tables.field(.inst, instrument, 20))..<Int(tables.field(.inst, instrument + 1, 20))
            let result = zones(.ibag, bags).contains { gens in
                guard let sample = index(.igen, gens, SoundFontPresetTables.sampleGenerator), !badSamples.contains(sample) else { return false }
                return attenuation(.igen, gens) < inaudibleAttenuation
            }
            audibleInstrument[instrument] = result
            return result
        }
        return tables.presetHeaders.filter { preset in
            let bags = Int(tables.field(.phdr, preset.record, 24))..<Int(tables.field(.phdr, preset.record + 1, 24))
            return !zones(.pbag, bags).contains { gens in
                guard let instrument = index(.pgen, gens, SoundFontPresetTables.instrumentGenerator) else { return false }
                return attenuation(.pgen, gens) < inaudibleAttenuation && audible(instrument: instrument)
            }
        }.map { "\(padded($0.bank)):\(padded($0.program)) \($0.name)" }
    }

    /// `number` in three digits, as FluidSynth lists presets ("000:024").
    private static func padded(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }
}
