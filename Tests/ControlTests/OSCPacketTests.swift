import Chains
import CommandLineInterface
import Control
import XCTest

/// The OSC decoder (liblo's, behind `OSCPacket`) and the validator together,
/// as the receive thread and the control thread use them: round trips,
/// bundles, malformed packets, and 100,000 fuzzed packets that must change
/// nothing but what a valid message names, and crash nothing.
final class OSCPacketTests: XCTestCase {
    /// A small, seeded generator: the same packets on every run (SplitMix64).
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testMessagesOfEveryTypeComeBackAsSent() {
        let messages = [
            OSCMessage("/busker/volume", [.float32(0.5)]),
            OSCMessage("/busker/state"),
            OSCMessage("/a/b", [.int32(-7), .int64(1 << 40), .float64(-2.5), .string("héllo"), .symbol("sym"), .true, .false]),
            OSCMessage("/n", [.other("N")]),
        ]
        for message in messages {
            let bytes = message.encoded()
            XCTAssertEqual(bytes.count % 4, 0)
            XCTAssertEqual(OSCPacket(bytes: bytes), OSCPacket(messages: [message]), message.text)
        }
    }

    func testABundleGivesItsMessagesInOrderNestedOrNot() {
        let a = OSCMessage("/busker/volume", [.float32(0.2)]), b = OSCMessage("/busker/mic", [.int32(0)]), c = OSCMessage("/busker/state")
        let bytes = OSCPacket.bundle([a.encoded(), OSCPacket.bundle([b.encoded()]), c.encoded()])
        XCTAssertEqual(OSCPacket(bytes: bytes), OSCPacket(messages: [a, b, c]))
    }

    func testMalformedPacketsAreCountedAndGiveNoMessage() {
        let valid = OSCMessage("/busker/volume", [.float32(0.2)]).encoded()
        let cases: [[UInt8]] = [
            [],
            Array(valid.prefix(valid.count - 4)),               // an argument missing
            Array(valid.prefix(6)),                             // cut inside the address
            valid + [0, 0, 0, 0],                               // bytes after the arguments
            Array("busker\0\0,f\0\0\0\0\0\0".utf8),            // no leading slash
            Array("/busker/volume\0\0f\0\0\0\0\0\0\0".utf8),   // type tags without the comma
            Array("/busker/volume\0\0,f\0\0\0\0".utf8).dropLast(1).map { $0 },  // not a multiple of 4
            Array("#bundle\0".utf8),                            // no time tag
            Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + [0x7F, 0xFF, 0xFF, 0xFC] + valid,  // element larger than the packet
            Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0],                    // empty element
        ]
        for bytes in cases {
            let packet = OSCPacket(bytes: bytes)
            XCTAssertEqual(packet.messages, [], "\(bytes)")
            XCTAssertGreaterThanOrEqual(packet.malformed, 1, "\(bytes)")
        }
        // Bundles nested deeper than the limit stop there.
        var deep = valid
        for _ in 0..<(OSCPacket.maximumBundleDepth + 2) { deep = OSCPacket.bundle([deep]) }
        XCTAssertEqual(OSCPacket(bytes: deep).messages, [])
        XCTAssertEqual(OSCPacket(bytes: deep).malformed, 1)
    }

    /// 100,000 packets: random bytes, valid messages with bytes flipped or
    /// cut, and well-formed messages with random addresses (known, near-known
    /// and unknown), random types and values in, at and far beyond range.
    /// Each decoded message goes through the validator onto a session of two
    /// strips. After each: the settings are valid, and differ from before
    /// only in the one control a taken message names, set to a value in its
    /// range; every message is counted exactly once.
    func testOneHundredThousandFuzzedPacketsChangeOnlyWhatAValidMessageNames() throws {
        var random = Generator(state: 17)
        var responder = OSCControlResponder()
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2"])
        let addresses = ["/busker/mic", "/busker/volume", "/busker/preset", "/busker/state", "/busker/strips", "/busker/strip/1/gain",
                         "/busker/strip/2/pan", "/busker/strip/1/mute", "/busker/strip/2/bass", "/busker/strip/1/treble",
                         "/busker/strip/2/reverb", "/busker/strip/3/gain", "/busker/strip/0/pan", "/busker/strip/1/boost",
                         "/busker/strip/1", "/busker/", "/busker/mic/x", "/other", "/"]
        let values: [Double] = [0, 1, -1, 0.5, 0.3, 12, -12, 24, -24, 100, 24.0001, -100, 101, 1e9, -1e30, .nan, .infinity, -.infinity]
        func randomArgument() -> OSCArgument {
            let v = values.randomElement(using: &random)!
            switch Int.random(in: 0..<9, using: &random) {
            case 0: return .int32(Int32(clamping: Int64(v.isFinite ? max(min(v, 1e18), -1e18) : 0)))
            case 1: return .int64(Int64.random(in: -5...5, using: &random))
            case 2: return .float32(Float(v))
            case 3: return .float64(v)
            case 4: return .string(["gig", "", "../x", "0.5"].randomElement(using: &random)!)
            case 5: return .true
            case 6: return .false
            case 7: return .symbol("s")
            default: return .other("N")
            }
        }
        var decodedMessages = 0, malformed = 0, changes = 0
        let packets = 100_000
        for i in 0..<packets {
            var bytes: [UInt8]
            let message = OSCMessage(addresses.randomElement(using: &random)!,
                                     (0..<Int.random(in: 0...2, using: &random)).map { _ in randomArgument() })
            switch i % 4 {
            case 0:  // random bytes, sometimes starting like a message or a bundle
                bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                if i % 8 == 0 { bytes = Array("/busker/volume\0\0".utf8) + bytes }
                if i % 16 == 4 { bytes = Array("#bundle\0".utf8) + bytes }
            case 1:  // a valid message with bytes flipped, cut or added
                bytes = message.encoded()
                for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                }
                if Bool.random(using: &random) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random))) }
            case 2:  // a well-formed message
                bytes = message.encoded()
            default:  // a bundle of a few well-formed messages
                bytes = OSCPacket.bundle((0..<Int.random(in: 1...3, using: &random)).map { _ in
                    OSCMessage(addresses.randomElement(using: &random)!, [randomArgument()]).encoded()
                })
            }
            let packet = OSCPacket(bytes: bytes)
            malformed += packet.malformed
            for message in packet.messages {
                decodedMessages += 1
                let before = settings
                let outcome = responder.respond(to: message, settings: &settings, micOn: true, presetName: nil)
                XCTAssertNoThrow(try settings.validate(), message.text)
                var expected = before
                if case let .changed(control) = outcome {
                    changes += 1
                    // The one control named may change, within its range; nothing else.
                    if let value = control.value(in: settings) {
                        XCTAssertTrue(control.range!.contains(value), message.text)
                        control.set(value, in: &expected)
                    } else if case let .mute(strip) = control {
                        expected.strips[strip - 1].mute = settings.strips[strip - 1].mute
                    }
                }
                guard settings == expected else {
                    return XCTFail("\(message.text) changed more than it names: \(outcome)")
                }
            }
        }
        let counts = responder.counts
        XCTAssertEqual(counts.received, decodedMessages)
        XCTAssertEqual(counts.applied + counts.answered + counts.unknownAddresses + counts.refused, decodedMessages)
        print("\(packets) packets: \(decodedMessages) messages decoded, \(malformed) malformed elements; "
              + "\(counts.applied) applied (\(changes) settings changes), \(counts.answered) answered, "
              + "\(counts.unknownAddresses) unknown, \(counts.refused) refused")
        // The run covered every kind of message.
        XCTAssertGreaterThan(counts.applied, 1000)
        XCTAssertGreaterThan(counts.refused, 1000)
        XCTAssertGreaterThan(counts.unknownAddresses, 1000)
        XCTAssertGreaterThan(malformed, 10_000)
    }
}

extension OSCPacket {
    init(messages: [OSCMessage]) {
        self.init(bytes: [UInt8]())
        self.messages = messages
        self.malformed = 0
    }
}
