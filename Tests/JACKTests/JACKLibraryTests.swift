import JACK
import XCTest

final class JACKLibraryTests: XCTestCase {
    /// libjack is linked and answers: jackd2's version strings start with a digit.
    func testTheLinkedLibraryReportsItsVersion() {
        XCTAssertTrue(JACKLibrary.version.first?.isNumber ?? false, JACKLibrary.version)
    }
}
