#if canImport(Glibc)
import Glibc
#endif

/// The preset data of an SF2 or SF3 file (its `pdta` list: the nine tables
/// of presets, instruments, zones, generators, modulators and sample
/// headers), read as stored, and the place of that list in the file.
///
/// It exists to cut from a font the tables of one preset: its zones, the
/// instruments they name and the sample headers those name, renumbered. A
/// font made of the original file up to its `pdta` list followed by the cut
/// tables (`SoundFontSubset`) is a valid SoundFont whose sample data is the
/// original's, untouched; FluidSynth then builds its zones, generators and
/// modulators for that preset alone instead of for the whole font (11.5 MB
/// of index for FluidR3_GM's 189 presets).
///
/// The layout is SoundFont 2.04's (section 7): record sizes 38, 4, 10, 4,
/// 22, 4, 10, 4 and 46 bytes, each table closed by a terminal record; the
/// `instrument` generator (41) of a preset zone and the `sampleID`
/// generator (53) of an instrument zone are the only cross-references,
/// besides a sample header's link to its stereo partner.
public struct SoundFontPresetTables {
    /// A table of the `pdta` list.
    enum Table: Int, CaseIterable {
        case phdr, pbag, pmod, pgen, inst, ibag, imod, igen, shdr

        var id: String { ["phdr", "pbag", "pmod", "pgen", "inst", "ibag", "imod", "igen", "shdr"][rawValue] }
        var recordSize: Int { [38, 4, 10, 4, 22, 4, 10, 4, 46][rawValue] }
    }

    /// One preset header, as the file lists it.
    public struct PresetHeader: Equatable, Sendable {
        public var name: String
        public var bank: Int
        public var program: Int
        /// Its record number in `phdr`.
        public var record: Int
    }

    /// What keeps a file from being cut preset by preset.
    public struct Unsupported: Error, Equatable {
        public var reason: String
    }

    static let instrumentGenerator: UInt16 = 41
    static let sampleGenerator: UInt16 = 53

    /// The byte offset of the `pdta` LIST chunk in the file: what comes
    /// before it (the RIFF header, INFO, the sample data) is kept as is.
    public let listOffset: Int
    /// The size of the file up to the end of the `pdta` list.
    public let listEnd: Int
    /// The size in bytes of the sample data (`sdta`'s `smpl` chunk), nil when the list has none.
    public let sampleDataBytes: Int?
    /// Each table's bytes, terminal record included, in `Table` order.
    let tables: [[UInt8]]

    /// Reads the tables of `path`, checking the layout FluidSynth requires
    /// (RIFF sfbk holding INFO, sdta and pdta lists, in that order) and that
    /// every index in them points inside its table.
    /// - Throws: `Unsupported` with the reason.
    /// - Realtime: unsafe (file I/O, allocates). Control or loader thread.
    public init(path: String) throws(Unsupported) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Unsupported(reason: "cannot open it: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        func read(_ count: Int, at offset: Int) throws(Unsupported) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            guard got == count else { throw Unsupported(reason: "cut short at byte \(offset + max(0, got))") }
            return bytes
        }
        let header = try read(12, at: 0)
        guard header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("sfbk".utf8) else {
            throw Unsupported(reason: "no RIFF sfbk header")
        }
        let riffEnd = 8 + Int(Self.uint32(header, 4))
        // The three lists, in FluidSynth's order.
        var offset = 12
        var found: [String: (offset: Int, size: Int)] = [:]
        for expected in ["INFO", "sdta", "pdta"] {
            let list = try read(12, at: offset)
            let size = Int(Self.uint32(list, 4))
            guard list[0..<4].elementsEqual("LIST".utf8), list[8..<12].elementsEqual(expected.utf8) else {
                throw Unsupported(reason: "expected the \(expected) list at byte \(offset)")
            }
            guard size >= 4, offset + 8 + size <= riffEnd else { throw Unsupported(reason: "the \(expected) list overruns the file") }
            found[expected] = (offset, size)
            offset += 8 + size + (size & 1)
        }
        let sdta = found["sdta"]!
        if sdta.size >= 12, let smpl = try? read(8, at: sdta.offset + 12), smpl[0..<4].elementsEqual("smpl".utf8) {
            sampleDataBytes = Int(Self.uint32(smpl, 4))
        } else {
            sampleDataBytes = nil
        }
        let pdta = found["pdta"]!
        listOffset = pdta.offset
        listEnd = pdta.offset + 8 + pdta.size
        let body = try read(pdta.size - 4, at: pdta.offset + 12)
        var tables: [[UInt8]] = []
        var at = 0
        for table in Table.allCases {
            guard at + 8 <= body.count, body[at..<(at + 4)].elementsEqual(table.id.utf8) else {
                throw Unsupported(reason: "expected the \(table.id) table in the pdta list")
            }
            let size = Int(Self.uint32(body, at + 4))
            guard size % table.recordSize == 0, size >= table.recordSize, at + 8 + size <= body.count else {
                throw Unsupported(reason: "the \(table.id) table has a size of \(size) bytes")
            }
            tables.append(Array(body[(at + 8)..<(at + 8 + size)]))
            at += 8 + size
        }
        self.tables = tables
        try validate()
    }

    /// The presets, in file order (the terminal record left out).
    public var presetHeaders: [PresetHeader] {
        (0..<(count(.phdr) - 1)).map { record in
            let base = record * Table.phdr.recordSize
            let nameBytes = tables[Table.phdr.rawValue][base..<(base + 20)].prefix { $0 != 0 }
            return PresetHeader(name: String(decoding: nameBytes, as: UTF8.self),
                                bank: Int(field(.phdr, record, 22)), program: Int(field(.phdr, record, 20)), record: record)
        }
    }

    /// The `pdta` LIST chunk (header included) of a font holding only the
    /// preset at `record` of `phdr`, with the instruments and sample headers
    /// it uses, renumbered; sample headers keep their offsets into the
    /// original sample data.
    /// - Realtime: unsafe (allocates). Control or loader thread.
    public func subsetList(presetRecord preset: Int) -> [UInt8] {
        precondition((0..<(count(.phdr) - 1)).contains(preset))
        var out = Array(repeating: [UInt8](), count: Table.allCases.count)
        var instruments: [Int: Int] = [:], instrumentOrder: [Int] = []
        var samples: [Int: Int] = [:], sampleOrder: [Int] = []
        func number(_ value: Int, in map: inout [Int: Int], order: inout [Int]) -> Int {
            if let known = map[value] { return known }
            map[value] = order.count
            order.append(value)
            return order.count - 1
        }
        // Copies the zones `bags` of a bag table with their generators and modulators,
        // renumbering the one generator that names a record of the next level.
        func copyZones(_ bags: Range<Int>, bag: Table, gen: Table, mod: Table, reference: UInt16, renumber: (Int) -> Int) {
            for zone in bags {
                let gens = Int(field(bag, zone, 0))..<Int(field(bag, zone + 1, 0))
                let mods = Int(field(bag, zone, 2))..<Int(field(bag, zone + 1, 2))
                Self.append(&out[bag.rawValue], UInt16(out[gen.rawValue].count / 4), UInt16(out[mod.rawValue].count / 10))
                out[mod.rawValue] += record(mod, mods)
                for g in gens {
                    var bytes = record(gen, g..<(g + 1))
                    if field(gen, g, 0) == reference {
                        let renumbered = UInt16(renumber(Int(field(gen, g, 2))))
                        bytes[2] = UInt8(renumbered & 0xFF)
                        bytes[3] = UInt8(renumbered >> 8)
                    }
                    out[gen.rawValue] += bytes
                }
            }
        }
        // The preset and its zones.
        var phdr = record(.phdr, preset..<(preset + 1))
        phdr[24] = 0
        phdr[25] = 0
        out[Table.phdr.rawValue] = phdr
        copyZones(Int(field(.phdr, preset, 24))..<Int(field(.phdr, preset + 1, 24)), bag: .pbag, gen: .pgen, mod: .pmod,
                  reference: Self.instrumentGenerator) { number($0, in: &instruments, order: &instrumentOrder) }
        // The instruments, as they were first named.
        var i = 0
        while i < instrumentOrder.count {
            let instrument = instrumentOrder[i]
            var header = record(.inst, instrument..<(instrument + 1))
            let firstBag = UInt16(out[Table.ibag.rawValue].count / 4)
            header[20] = UInt8(firstBag & 0xFF)
            header[21] = UInt8(firstBag >> 8)
            out[Table.inst.rawValue] += header
            copyZones(Int(field(.inst, instrument, 20))..<Int(field(.inst, instrument + 1, 20)), bag: .ibag, gen: .igen,
                      mod: .imod, reference: Self.sampleGenerator) { number($0, in: &samples, order: &sampleOrder) }
            i += 1
        }
        // The samples, with each linked stereo partner (and its partner, and so on).
        var s = 0
        while s < sampleOrder.count {
            if let partner = linkedSample(sampleOrder[s]) { _ = number(partner, in: &samples, order: &sampleOrder) }
            s += 1
        }
        for sample in sampleOrder {
            var header = record(.shdr, sample..<(sample + 1))
            if let partner = linkedSample(sample) {
                let renumbered = UInt16(samples[partner]!)
                header[42] = UInt8(renumbered & 0xFF)
                header[43] = UInt8(renumbered >> 8)
            }
            out[Table.shdr.rawValue] += header
        }
        // Terminal records: the last bag of each level points past the last generator and modulator.
        Self.append(&out[Table.pbag.rawValue], UInt16(out[Table.pgen.rawValue].count / 4), UInt16(out[Table.pmod.rawValue].count / 10))
        Self.append(&out[Table.ibag.rawValue], UInt16(out[Table.igen.rawValue].count / 4), UInt16(out[Table.imod.rawValue].count / 10))
        out[Table.phdr.rawValue] += Self.terminal("EOP", size: 38, bag: (24, out[Table.pbag.rawValue].count / 4 - 1))
        out[Table.inst.rawValue] += Self.terminal("EOI", size: 22, bag: (20, out[Table.ibag.rawValue].count / 4 - 1))
        out[Table.shdr.rawValue] += Self.terminal("EOS", size: 46, bag: nil)
        for table in [Table.pmod, .pgen, .imod, .igen] { out[table.rawValue] += [UInt8](repeating: 0, count: table.recordSize) }
        var body: [UInt8] = Array("pdta".utf8)
        for table in Table.allCases {
            body += Array(table.id.utf8)
            Self.append32(&body, UInt32(out[table.rawValue].count))
            body += out[table.rawValue]
        }
        var list: [UInt8] = Array("LIST".utf8)
        Self.append32(&list, UInt32(body.count))
        return list + body
    }

    // MARK: Reading

    func count(_ table: Table) -> Int { tables[table.rawValue].count / table.recordSize }

    /// The little-endian 16-bit field at `offset` of record `record` of `table`.
    func field(_ table: Table, _ record: Int, _ offset: Int) -> UInt16 {
        let base = record * table.recordSize + offset
        return UInt16(tables[table.rawValue][base]) | UInt16(tables[table.rawValue][base + 1]) << 8
    }

    private func record(_ table: Table, _ records: Range<Int>) -> [UInt8] {
        Array(tables[table.rawValue][(records.lowerBound * table.recordSize)..<(records.upperBound * table.recordSize)])
    }

    /// The stereo partner a sample header names, when it names one in range.
    private func linkedSample(_ sample: Int) -> Int? {
        let type = field(.shdr, sample, 44)
        // Right, left or linked (2, 4, 8), in RAM (no 0x8000).
        guard type & 0x8000 == 0, type & 0x000E != 0 else { return nil }
        let link = Int(field(.shdr, sample, 42))
        return link < count(.shdr) - 1 && link != sample ? link : nil
    }

    /// Every index the subsets follow points inside its table, and every
    /// range of bags, generators and modulators runs forward.
    private func validate() throws(Unsupported) {
        func ranges(_ header: Table, bagField: Int, bag: Table) throws(Unsupported) {
            for record in 0..<(count(header) - 1) {
                let first = Int(field(header, record, bagField)), end = Int(field(header, record + 1, bagField))
                guard first <= end, end < count(bag) else {
                    throw Unsupported(reason: "\(header.id) record \(record) names \(bag.id) records \(first)..<\(end) of \(count(bag))")
                }
            }
        }
        func zones(_ bag: Table, gen: Table, mod: Table, reference: UInt16, target: Table) throws(Unsupported) {
            for zone in 0..<(count(bag) - 1) {
                let gens = (Int(field(bag, zone, 0)), Int(field(bag, zone + 1, 0)))
                let mods = (Int(field(bag, zone, 2)), Int(field(bag, zone + 1, 2)))
                guard gens.0 <= gens.1, gens.1 <= count(gen), mods.0 <= mods.1, mods.1 <= count(mod) else {
                    throw Unsupported(reason: "\(bag.id) zone \(zone) names generators or modulators out of range")
                }
                for g in gens.0..<gens.1 where field(gen, g, 0) == reference {
                    guard Int(field(gen, g, 2)) < count(target) - 1 else {
                        throw Unsupported(reason: "\(gen.id) record \(g) names \(target.id) record \(field(gen, g, 2)) of \(count(target) - 1)")
                    }
                }
            }
        }
        try ranges(.phdr, bagField: 24, bag: .pbag)
        try ranges(.inst, bagField: 20, bag: .ibag)
        try zones(.pbag, gen: .pgen, mod: .pmod, reference: Self.instrumentGenerator, target: .inst)
        try zones(.ibag, gen: .igen, mod: .imod, reference: Self.sampleGenerator, target: .shdr)
    }

    // MARK: Writing

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    private static func append(_ bytes: inout [UInt8], _ first: UInt16, _ second: UInt16) {
        bytes += [UInt8(first & 0xFF), UInt8(first >> 8), UInt8(second & 0xFF), UInt8(second >> 8)]
    }

    static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    /// A terminal record: `name`, zeros, and the bag count at `bag.offset`.
    private static func terminal(_ name: String, size: Int, bag: (offset: Int, value: Int)?) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        for (i, byte) in name.utf8.enumerated() { bytes[i] = byte }
        if let bag {
            bytes[bag.offset] = UInt8(bag.value & 0xFF)
            bytes[bag.offset + 1] = UInt8(bag.value >> 8 & 0xFF)
        }
        return bytes
    }
}
