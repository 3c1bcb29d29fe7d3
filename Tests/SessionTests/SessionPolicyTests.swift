import Session
import XCTest

final class SessionPolicyTests: XCTestCase {
    func testNothingHappensByItselfUnlessAsked() {
        let policy = SessionPolicy()
        XCTAssertFalse(policy.autoResume)
        XCTAssertFalse(policy.reconnect)
    }
}
