import Recording
import XCTest

final class RecordingFormatTests: XCTestCase {
    func testEveryFormatHasItsExtension() {
        XCTAssertEqual(RecordingFormat(rawValue: "wav24")?.fileExtension, "wav")
        XCTAssertEqual(RecordingFormat.flac.fileExtension, "flac")
        XCTAssertEqual(RecordingFormat.ogg.fileExtension, "ogg")
        XCTAssertNil(RecordingFormat(rawValue: "mp3"))
    }

    func testFormatNamesAndAliases() {
        XCTAssertEqual(RecordingFormat.named("float"), .wavFloat)
        XCTAssertEqual(RecordingFormat.named("WAV16"), .wav16)
        XCTAssertEqual(RecordingFormat.named("wav"), .wav24)
        XCTAssertNil(RecordingFormat.named("mp3"))
        XCTAssertEqual(RecordingFormat.implied(byPath: "/tmp/a.b/take.FLAC"), .flac)
        XCTAssertNil(RecordingFormat.implied(byPath: "/tmp/a.flac/take"))
        XCTAssertNil(RecordingFormat.implied(byPath: "take.wav"))
    }
}
