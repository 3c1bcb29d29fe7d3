import AudioFiles
import Foundation
import XCTest

/// Checks the take busker finalized when its device was lost: a valid
/// 48 kHz stereo 24-bit WAV whose header accounts for every byte, holding at
/// least the audio that ran between `runningSeen` and `killed` (less 0.5 s
/// of slack for a loaded machine), and which libsndfile reads whole. Prints its length.
func assertTakeFinalizedAtLoss(_ takePath: String, runningSeen: Date, killed: Date,
                               file: StaticString = #filePath, line: UInt = #line) throws {
    let take = try SoundFileReader(path: takePath)
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: takePath)[.size] as? Int, file: file, line: line)
    let dataBytes = Int(take.frameCount) * take.channelCount * 3
    print("take at the loss: \(take.frameCount) frames (\(String(format: "%.2f", Double(take.frameCount) / 48_000)) s), \(size) bytes")
    XCTAssertEqual(take.sampleRate, 48_000, file: file, line: line)
    XCTAssertEqual(take.channelCount, 2, file: file, line: line)
    XCTAssertTrue((size - 512)...size ~= dataBytes, "the header counts \(dataBytes) data bytes of a \(size)-byte file", file: file, line: line)
    let ranFrames = Int(killed.timeIntervalSince(runningSeen) * 48_000)
    XCTAssertGreaterThanOrEqual(Int(take.frameCount), ranFrames - 24_000, "the take holds what was recorded before the loss",
                                file: file, line: line)
    let samples = try SoundFileReader(path: takePath).readAll()
    XCTAssertEqual(samples.count, Int(take.frameCount) * take.channelCount, "libsndfile reads the take whole", file: file, line: line)
}
