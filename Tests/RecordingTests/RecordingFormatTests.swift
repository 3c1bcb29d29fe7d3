import Recording
import XCTest

final class RecordingFormatTests: XCTestCase {
    func testEveryFormatHasItsExtension() {
        XCTAssertEqual(RecordingFormat(rawValue: "wav24")?.fileExtension, "wav")
        XCTAssertEqual(RecordingFormat.flac.fileExtension, "flac")
        XCTAssertEqual(RecordingFormat.ogg.fileExtension, "ogg")
        XCTAssertNil(RecordingFormat(rawValue: "mp3"))
    }
}
