import Control
import Foundation
import Sessions

/// A UDP socket on the loopback address for talking OSC to `busker live`
/// in tests: it sends datagrams and reads what comes back to it.
final class OSCTestClient {
    let fd: Int32
    /// The port it was given.
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = Self.loopback(port: 0)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = Self.boundPort(fd)
        // A generous receive buffer: a state reply is a burst of datagrams.
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    static func boundPort(_ fd: Int32) -> Int {
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: bound.sin_port))
    }

    /// A UDP port on the loopback address that was free a moment ago.
    static func freePort() throws -> Int {
        let client = try OSCTestClient()
        return client.port
    }

    /// Sends `bytes` as one datagram to 127.0.0.1:`port`.
    func send(_ bytes: [UInt8], to port: Int) {
        var address = Self.loopback(port: port)
        bytes.withUnsafeBytes { data in
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, data.baseAddress, data.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    func send(_ message: OSCMessage, to port: Int) { send(message.encoded(), to: port) }

    /// Every datagram that arrives within `seconds` (waiting `seconds` after the last one), decoded.
    func receive(for seconds: Double) -> [OSCMessage] {
        var messages: [OSCMessage] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Int32(seconds * 1000)) > 0 else { return messages }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return messages }
            messages += OSCPacket(bytes: Array(buffer.prefix(count))).messages
        }
    }
}

/// The inodes of the UDP sockets process `pid` has open that are in
/// /proc/net/udp or udp6, with their local address as the kernel writes it
/// (`0100007F:2328` is 127.0.0.1:9000).
func udpSockets(of pid: Int32) -> [(inode: String, local: String)] {
    let fdDirectory = "/proc/\(pid)/fd"
    let links = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
    let inodes = Set(links.compactMap { name -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(name)"),
              target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    })
    var sockets: [(String, String)] = []
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
        let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 9, inodes.contains(String(columns[9])) else { continue }
            sockets.append((String(columns[9]), String(columns[1])))
        }
    }
    return sockets
}
