import ALSA
import Engine
import XCTest

/// The converters alone: exact values, clipping, NaN, both layouts.
final class SampleConversionTests: XCTestCase {
    private func roundTrip(_ format: PCMSampleFormat, _ samples: [[Float]], interleaved: Bool) -> [[Float]] {
        let channels = samples.count
        let frames = samples[0].count
        let source = AudioBuffer(channelCount: channels, capacity: frames)
        for c in 0..<channels { for i in 0..<frames { source[c][i] = samples[c][i] } }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: channels * frames * format.bytesPerSample, alignment: 16)
        defer { raw.deallocate() }
        let channelStride = interleaved ? format.bytesPerSample : frames * format.bytesPerSample
        let frameStride = interleaved ? channels * format.bytesPerSample : format.bytesPerSample
        format.encode(source.block(frames: frames), into: raw, channelStride: channelStride, frameStride: frameStride, frames: frames)
        let back = AudioBuffer(channelCount: channels, capacity: frames)
        format.decode(raw, channelStride: channelStride, frameStride: frameStride, into: back.block(frames: frames), frames: frames)
        return (0..<channels).map { c in (0..<frames).map { back[c][$0] } }
    }

    func testEveryFormatRoundTripsWithinHalfAStep() {
        let signal = ALSATestSupport.testSignal(frames: 2000)
        let other = signal.map { -$0 * 0.5 }
        for format in PCMSampleFormat.allCases {
            for interleaved in [true, false] {
                let back = roundTrip(format, [signal, other], interleaved: interleaved)
                let step: Float = switch format {
                case .float32: 0
                case .s32: 1 / Float(1 << 24)  // Float's own resolution near 1 rules here
                case .s24, .s24Packed: 1 / Float(1 << 23)
                case .s16: 1 / Float(1 << 15)
                }
                var worst: Float = 0
                for i in 0..<signal.count {
                    worst = max(worst, abs(back[0][i] - signal[i]), abs(back[1][i] - other[i]))
                }
                XCTAssertLessThanOrEqual(worst, step / 2 + 1e-9, "\(format) interleaved=\(interleaved)")
            }
        }
    }

    func testFullScaleClippingAndNaN() {
        let input: [Float] = [-1, 1, 2, -2, .nan, 0.5, -0.5, .infinity]
        for format in PCMSampleFormat.allCases where format != .float32 {
            let back = roundTrip(format, [input], interleaved: true)[0]
            XCTAssertEqual(back[0], -1, "\(format): -1 is exact")
            XCTAssertLessThan(back[1], 1)
            XCTAssertGreaterThan(back[1], 0.9999)
            XCTAssertEqual(back[2], back[1], "\(format): +2 clips to full scale")
            XCTAssertEqual(back[3], -1, "\(format): -2 clips to -1")
            XCTAssertEqual(back[4], 0, "\(format): NaN becomes silence")
            XCTAssertEqual(back[5], 0.5)
            XCTAssertEqual(back[6], -0.5)
            XCTAssertEqual(back[7], back[1])
        }
    }

    func testKnownBitPatterns() {
        // S16_LE 0x8000 is -1, 0x4000 is 0.5; S24_3LE 0x400000 is 0.5; S24_LE ignores the padding byte.
        let bytes: [UInt8] = [0x00, 0x80, 0x00, 0x40]
        let out = AudioBuffer(channelCount: 1, capacity: 2)
        bytes.withUnsafeBytes { PCMSampleFormat.s16.decodeInterleaved($0.baseAddress!, into: out.block(frames: 2), frames: 2) }
        XCTAssertEqual(out[0][0], -1)
        XCTAssertEqual(out[0][1], 0.5)
        let packed: [UInt8] = [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0]
        packed.withUnsafeBytes { PCMSampleFormat.s24Packed.decodeInterleaved($0.baseAddress!, into: out.block(frames: 2), frames: 2) }
        XCTAssertEqual(out[0][0], 0.5)
        XCTAssertEqual(out[0][1], -0.5)
        let padded: [UInt8] = [0x00, 0x00, 0x40, 0xAB, 0x00, 0x00, 0xC0, 0x00]
        padded.withUnsafeBytes { PCMSampleFormat.s24.decodeInterleaved($0.baseAddress!, into: out.block(frames: 2), frames: 2) }
        XCTAssertEqual(out[0][0], 0.5)
        XCTAssertEqual(out[0][1], -0.5)
    }

    func testFormatNamesAreALSAs() {
        XCTAssertEqual(PCMSampleFormat.preferenceOrder.map(\.rawValue), ["FLOAT_LE", "S32_LE", "S24_LE", "S24_3LE", "S16_LE"])
        XCTAssertEqual(PCMSampleFormat(alsaName: "s24_3le"), .s24Packed)
    }
}
