#if canImport(Glibc)
import Control
import Glibc
#endif
import Foundation
import Sessions
import XCTest

/// Replies to one host stay within `busker live --osc`'s budget (a burst of
/// 256 datagrams, 128 a second after), whatever port the asking datagrams
/// name: a forged source address gets Busker to send it no more than that.
final class OSCReplyBudgetTests: XCTestCase {
    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The sender of one datagram from `client`, as the server read it.
    private func sender(of client: OSCTestClient, to server: OSCServer) throws -> OSCServer.Sender {
        client.send(OSCMessage("/busker/state"), to: server.port)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let received = server.receive().messages.first { return received.sender }
            usleep(1_000)
        }
        throw XCTSkip("no datagram came back over the loopback address")
    }

    func testRepliesToOneHostStayWithinTheBudgetWhateverThePort() throws {
        let server = try OSCServer(port: 0)
        server.start()
        defer { server.stop() }
        let first = try OSCTestClient(), second = try OSCTestClient()
        let senders = [try sender(of: first, to: server), try sender(of: second, to: server)]
        XCTAssertNotEqual(senders[0], senders[1], "two ports")

        let start = now()
        for i in 0..<1_000 { server.send(OSCMessage("/busker/volume", [.float32(0.5)]), to: senders[i % 2]) }
        let elapsed = now() - start
        // At most the burst and what refilled meanwhile went out, to both ports together.
        let allowed = 256 + Int((elapsed * 128).rounded(.up))
        XCTAssertGreaterThanOrEqual(server.repliesDropped, 1_000 - allowed, "in \(elapsed) s")
        XCTAssertLessThanOrEqual(server.repliesDropped, 1_000 - 256)
        let received = first.receive(for: 0.3).count + second.receive(for: 0.3).count
        XCTAssertLessThanOrEqual(received, allowed)
        XCTAssertGreaterThan(received, 0)

        // Half a second later, about 64 more may go: what refilled since the first burst ended.
        let emptied = now()
        usleep(500_000)
        let dropped = server.repliesDropped
        let before = now()
        for _ in 0..<200 { server.send(OSCMessage("/busker/volume", [.float32(0.5)]), to: senders[0]) }
        let after = now()
        let sent = 200 - (server.repliesDropped - dropped)
        XCTAssertGreaterThanOrEqual(sent, Int((before - emptied) * 128) - 1)
        // All told: the burst and what refilled from the first reply to the last.
        XCTAssertLessThanOrEqual(1_200 - server.repliesDropped, 256 + Int(((after - start) * 128).rounded(.up)))
    }
}
