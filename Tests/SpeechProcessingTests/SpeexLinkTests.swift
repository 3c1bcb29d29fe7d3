import CSpeexDSP
import XCTest

final class SpeexLinkTests: XCTestCase {
    /// The library links and its preprocessor can be made and freed at Busker's rate.
    func testPreprocessorStateCanBeCreated() throws {
        let state = try XCTUnwrap(speex_preprocess_state_init(480, 48000))
        speex_preprocess_state_destroy(state)
    }
}
