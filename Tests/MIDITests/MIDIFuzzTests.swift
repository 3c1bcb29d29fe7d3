import XCTest
import MIDI

/// Seeded random fuzzing: a million inputs between the byte parser and the file
/// reader (each file read strictly and forgivingly), asserting no crash, bounded
/// memory and termination, plus the invariants every output must keep. Seeds
/// are fixed, so a failure reproduces.
final class MIDIFuzzTests: XCTestCase {
    static let parserInputs = 600_000
    static let fileInputs = 400_000

    // MARK: Byte parser

    func testByteParserOnRandomStreams() {
        var random = SeededGenerator(seed: 0xF022_0001)
        // One parser lives through every input, carrying its state across them;
        // each input also goes through a fresh parser.
        var longLived = MIDIByteParser()
        let parserSize = MemoryLayout<MIDIByteParser>.size
        var messages = 0, sysExBytes = 0, bytesFed = 0
        let clock = ContinuousClock()
        let start = clock.now
        var input: [UInt8] = []
        input.reserveCapacity(96)
        // SysEx bytes delivered and not yet ended, per parser (0: fresh, 1: long-lived).
        var pendingSysEx = [0, 0]
        var firstChunkSeen = [false, false]
        for _ in 0..<Self.parserInputs {
            input.removeAll(keepingCapacity: true)
            let length = Int.random(in: 0..<96, using: &random)
            for _ in 0..<length {
                // Bias towards the interesting bytes: data, SysEx framing and real-time.
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5: input.append(random.byte(0...0x7F))
                case 5: input.append(Bool.random(using: &random) ? 0xF0 : 0xF7)
                case 6: input.append(random.byte(0xF8...0xFF))
                default: input.append(random.byte(0x80...0xFF))
                }
            }
            bytesFed += input.count
            var fresh = MIDIByteParser()
            for parser in [0, 1] {
                // The long-lived parser may still be inside a SysEx from earlier inputs: its tally carries over.
                if parser == 0 { pendingSysEx[0] = 0; firstChunkSeen[0] = false }
                let handler: (MIDIParserOutput) -> Void = { output in
                    switch output {
                    case .sysExData(let chunk, let isFirst):
                        precondition(chunk.count > 0 && chunk.count <= MIDIByteParser.sysExChunkCapacity)
                        precondition(chunk.allSatisfy { $0 < 0x80 })
                        precondition(isFirst == !firstChunkSeen[parser])
                        firstChunkSeen[parser] = true
                        pendingSysEx[parser] += chunk.count
                        sysExBytes += chunk.count
                    case .message(.systemExclusive(let byteCount, _)):
                        precondition(byteCount == pendingSysEx[parser])
                        pendingSysEx[parser] = 0
                        firstChunkSeen[parser] = false
                        messages += 1
                    case .message(let message):
                        // Every field in range, and the message survives its own bytes.
                        let data = message.dataBytes
                        precondition(message.channel.map { $0 < 16 } ?? true)
                        precondition(MIDIMessage(status: message.statusByte, data1: data.first, data2: data.second) == message)
                        messages += 1
                    }
                }
                if parser == 0 { fresh.parse(input, handler) } else { longLived.parse(input, handler) }
            }
            precondition(fresh.statistics.total <= input.count)
        }
        let elapsed = clock.now - start
        XCTAssertEqual(MemoryLayout<MIDIByteParser>.size, parserSize, "fixed storage")
        XCTAssertTrue(_isPOD(MIDIByteParser.self), "no heap references inside the parser")
        XCTAssertLessThanOrEqual(parserSize, 256)
        XCTAssertGreaterThan(messages, 1_000_000)
        XCTAssertGreaterThan(sysExBytes, 100_000)
        print("MIDI parser fuzz: \(Self.parserInputs) inputs, \(bytesFed) bytes (each through a fresh and a long-lived parser), \(messages) messages, \(sysExBytes) SysEx bytes, parser \(parserSize) bytes, \(elapsed)")
    }

    // MARK: File reader

    /// Valid files to mutate: every format, both divisions, SysEx, escapes, meta events, running status.
    private var seedFiles: [[UInt8]] {
        let smpte = Int(UInt8(bitPattern: -25)) << 8 | 40
        return [
            header(format: 0, trackCount: 1, division: 96) + track([
                (0, tempoEvent(500_000)), (0, [0xC0, 0x05]), (0, [0x90, 0x3C, 0x64]), (96, [0x3C, 0x00]),
                (0, [0xE0, 0x00, 0x40]), (48, [0x7F, 0x7F]), (300, [0xB0, 0x7B, 0x00]), (0, endOfTrack),
            ]),
            header(format: 1, trackCount: 3, division: 480)
                + track([(0, textEvent(0x03, "Song")), (0, [0xFF, 0x58, 0x04, 0x04, 0x02, 0x18, 0x08]), (0, tempoEvent(600_000)),
                         (960, tempoEvent(300_000)), (0, endOfTrack)])
                + track([(0, [0x91, 0x40, 0x50]), (240, [0x81, 0x40, 0x00]), (0, [0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),
                         (10, [0xF0, 0x02, 0x43, 0x12]), (10, [0xF7, 0x02, 0x00, 0xF7]), (0, endOfTrack)])
                + track([(0x0FFF_FFFF, [0x99, 0x24, 0x7F]), (0, [0x24, 0x00]), (0, endOfTrack)]),
            header(format: 2, trackCount: 2, division: smpte)
                + track([(1000, [0xA0, 0x3C, 0x10]), (0, [0xD0, 0x20]), (0, endOfTrack)])
                + chunk("XXXX", [1, 2, 3]) + track([(1, [0xFF, 0x59, 0x02, 0xFD, 0x01]), (0, endOfTrack)]),
            header(format: 1, trackCount: 2, division: 96)
                + track([(0, textEvent(0x01, "@KMIDI KARAOKE FILE")), (0, endOfTrack)])
                + track([(0, textEvent(0x01, "@TTitle")), (96, textEvent(0x01, "\\Hel")), (48, textEvent(0x01, "/lo")), (0, endOfTrack)]),
        ]
    }


    func testFileReaderOnMutatedAndRandomFiles() {
        var random = SeededGenerator(seed: 0xF11E_0002)
        let seeds = seedFiles
        for seed in seeds { XCTAssertEqual(try StandardMIDIFile(bytes: seed, mode: .strict).repairs, []) }
        let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0x81, 0xF0, 0xF7, 0xFF, 0x2F, 0x51]
        let interestingLengths: [UInt32] = [0, 1, 2, 3, 6, 0x7F, 0x80, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]
        var parsed = 0, rejected = 0, events = 0, bytesRead = 0, repaired = 0, forgivingRejected = 0
        var errorOffsets = Set<Int>()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<Self.fileInputs {
            var bytes: [UInt8]
            if Int.random(in: 0..<10, using: &random) == 0 {
                // Random bytes behind a plausible header start.
                bytes = Array("MThd".utf8) + [0, 0, 0, 6]
                for _ in 0..<Int.random(in: 0..<64, using: &random) { bytes.append(random.byte(0...0xFF)) }
            } else {
                bytes = seeds.randomElement(using: &random)!
                // Mostly a single mutation, so that many mutants stay readable and reach deep code.
                let mutations = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 2...4, using: &random) : 1
                for _ in 0..<mutations where !bytes.isEmpty {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: bytes[at] = random.byte(0...0xFF)
                    case 1: bytes[at] = interesting.randomElement(using: &random)!
                    case 2: bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in random.byte(0...0xFF) }, at: at)
                    case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
                    case 4: bytes.removeSubrange(at...)  // truncate
                    case 5:
                        // A length (or any 32-bit field) that lies.
                        let value = interestingLengths.randomElement(using: &random)!
                        for index in 0..<4 where at + index < bytes.count { bytes[at + index] = UInt8(value >> (24 - 8 * UInt32(index)) & 0xFF) }
                    case 6:
                        // Splice: this file's start, another file's end.
                        let other = seeds.randomElement(using: &random)!
                        bytes = Array(bytes[..<at]) + other[Int.random(in: 0..<other.count, using: &random)...]
                    case 7:
                        let end = min(bytes.count, at + Int.random(in: 1...16, using: &random))
                        bytes.insert(contentsOf: bytes[at..<end], at: at)
                    case 8, 9: bytes[at] &= 0x7F  // a status byte becomes data, or a data value changes
                    default:
                        break
                    }
                }
            }
            bytesRead += bytes.count
            // Strictly: read, or refused with an offset inside the file.
            var strict: StandardMIDIFile?
            do {
                let file = try StandardMIDIFile(bytes: bytes, mode: .strict)
                checkInvariants(file, bytes: bytes)
                precondition(file.repairs.isEmpty)
                strict = file
                parsed += 1
                events += file.tracks.reduce(0) { $0 + $1.events.count }
            } catch {
                rejected += 1
                precondition(error.offset.map { $0 >= 0 && $0 <= bytes.count } ?? false, "\(error)")
                precondition(!error.description.contains("\n"))
                errorOffsets.insert(error.offset!)
            }
            // Forgivingly: refused only for a missing or unreadable header; otherwise
            // everything the strict reader read, and repairs that point into the file.
            do {
                let file = try StandardMIDIFile(bytes: bytes)
                checkInvariants(file, bytes: bytes)
                if let strict {
                    precondition(Array(file.tracks.prefix(strict.tracks.count)) == strict.tracks, "forgiving reads what strict reads")
                }
                for repair in file.repairs {
                    precondition(repair.offset >= 0 && repair.offset <= bytes.count && repair.count >= 0 && repair.byteCount >= 0)
                    precondition(repair.track.map { $0 < file.tracks.count } ?? true)
                }
                precondition(!(file.repairSummary ?? "").contains("\n"))
                if !file.repairs.isEmpty { repaired += 1 }
            } catch {
                forgivingRejected += 1
                precondition(strict == nil)
                switch error.reason {
                case .notAStandardMIDIFile, .truncated("the MThd header"), .headerTooShort, .invalidTimeDivision,
                     .chunkLengthPastEnd(chunkType: "MThd", _, _):
                    break
                default:
                    preconditionFailure("forgiving reading refused a readable header: \(error)")
                }
            }
        }
        let elapsed = clock.now - start
        XCTAssertEqual(parsed + rejected, Self.fileInputs)
        XCTAssertGreaterThan(parsed, Self.fileInputs / 10, "mutations leave many files readable")
        XCTAssertGreaterThan(rejected, Self.fileInputs / 10, "and break many")
        XCTAssertGreaterThan(repaired, Self.fileInputs / 10, "forgiving reading repairs many")
        // Every refusal is a header it cannot read (checked per input above); a fifth of the
        // inputs here have one: random fields behind "MThd", mutations landing in its 14 bytes.
        XCTAssertLessThan(forgivingRejected, rejected / 2, "forgiving reading refuses far fewer than strict reading")
        print("MIDI file fuzz: \(Self.fileInputs) inputs, \(bytesRead) bytes; strict: \(parsed) read (\(events) events), \(rejected) rejected at \(errorOffsets.count) distinct offsets; "
              + "forgiving: \(repaired) repaired, \(forgivingRejected) refused; \(elapsed)")
    }

    /// What every file read must keep, strictly or forgivingly: bounded memory, time order, a finite timeline.
    private func checkInvariants(_ file: StandardMIDIFile, bytes: [UInt8]) {
        // Bounded memory: every event takes at least 2 bytes of the file.
        let count = file.tracks.reduce(0) { $0 + $1.events.count }
        precondition(count * 2 <= bytes.count)
        let merged = file.mergedEvents()
        precondition(file.format == .independentTracks || merged.count == count)
        var lastTick = 0, lastSeconds = 0.0
        for event in merged {
            precondition(event.tick >= lastTick && event.seconds >= lastSeconds)
            lastTick = event.tick
            lastSeconds = event.seconds
        }
        precondition(file.tempoMap().sampleFrame(atTick: lastTick, sampleRate: 192_000) >= 0)
        _ = file.lyrics()
    }
}
