import CJACK
import Foundation
import XCTest

/// Opening and patching JACK clients in tests, on the server the fixture
/// started (`JACK_DEFAULT_SERVER`; never starting one of its own).
enum JACKTestClient {
    static let audioType = "32 bit float mono audio"
    static let midiType = "8 bit raw midi"

    /// Opens client `name` or fails the test.
    static func open(_ name: String) throws -> OpaquePointer {
        var status = jack_status_t(rawValue: 0)
        guard let client = busker_jack_client_open(name, JackNoStartServer, &status, nil) else {
            throw XCTSkip("cannot open JACK client \(name): status 0x\(String(status.rawValue, radix: 16))")
        }
        return client
    }

    static func register(_ client: OpaquePointer, _ name: String, type: String, output: Bool) throws -> OpaquePointer {
        let flags = UInt(output ? JackPortIsOutput.rawValue : JackPortIsInput.rawValue)
        return try XCTUnwrap(jack_port_register(client, name, type, flags, 0), "register \(name)")
    }

    /// Connects `source` to `destination` (full port names) through `client`.
    static func connect(_ client: OpaquePointer, _ source: String, _ destination: String) {
        XCTAssertEqual(jack_connect(client, source, destination), 0, "jack_connect \(source) \(destination)")
    }

    /// Waits (bounded) until `condition` holds.
    @discardableResult
    static func wait(seconds: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }
}
