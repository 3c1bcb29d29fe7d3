import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The UDP socket `busker live --osc PORT` listens on, and its receive
/// thread (`osc-in`): it waits in `poll`, reads each datagram, decodes it
/// (`OSCPacket`, liblo's decoder) and leaves the messages, with their
/// sender, for the control thread to take (`receive()`). The control thread
/// validates and applies them; replies go out through `send(_:to:)`.
///
/// The socket is Busker's own, bound to the address asked for (the loopback
/// address by default): liblo 0.31's server always binds the wildcard
/// address, so liblo is used for what it does well, the OSC codec. Nothing
/// is sent except a reply to a message's sender, within a budget per
/// address (`OSCReplyBudget`).
///
/// - Realtime: unsafe (opens a socket, starts a thread, allocates). The
///   receive thread is not the audio thread and never touches it.
public final class OSCServer: @unchecked Sendable {
    /// Where a datagram came from: the reply goes there.
    public struct Sender: Hashable, Sendable {
        fileprivate var address: [UInt8]

        /// The host part of the address, family first, port left out: a
        /// forged source can name any port of one host.
        var host: [UInt8] {
            let family = address.count >= 2 ? Int32(address.withUnsafeBytes { $0.loadUnaligned(as: sa_family_t.self) }) : -1
            switch family {
            case AF_INET where address.count >= 8: return [4] + address[4..<8]
            case AF_INET6 where address.count >= 24: return [6] + address[8..<24]
            default: return address
            }
        }
    }

    /// A decoded message and where it came from.
    public struct Received: Sendable {
        public var message: OSCMessage
        public var sender: Sender
    }

    /// The receive thread's name (`ps -L`, `top -H`).
    public static let threadName = "osc-in"
    /// The loopback address: only programs on this machine reach it.
    public static let defaultBindAddress = "127.0.0.1"
    /// Messages waiting for the control thread at most; more are dropped (and counted).
    public static let inboxLimit = 1024
    /// Largest datagram read (UDP's own limit); longer ones are cut and so malformed.
    static let maximumDatagram = 65_536

    public let bindAddress: String
    /// The port bound (the one asked for, or the system's choice for 0).
    public let port: Int

    private struct Inbox {
        var messages: [Received] = []
        /// Datagrams or elements that did not decode, plus messages dropped for a full inbox.
        var malformed = 0
    }

    // MARK: Shared
    private let inbox = Mutex(Inbox())
    private let socketFD: Int32
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32

    // MARK: Control thread only
    private var thread: RealtimeThread?
    private var closed = false
    private var budget = OSCReplyBudget()

    /// Replies not sent because their address had used its budget (`OSCReplyBudget`).
    /// - Thread: control
    public var repliesDropped: Int { budget.dropped }

    /// Binds a UDP socket to `bindAddress`:`port` (a numeric IPv4 or IPv6 address).
    /// Nothing is read until `start()`.
    /// - Throws: `OSCServerError`: `.addressNotNumeric` for an address that is
    ///   not numeric; the others for one the system refuses (in use, not this machine's).
    public init(bindAddress: String = OSCServer.defaultBindAddress, port: Int) throws(OSCServerError) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(bindAddress, String(port), &hints, &info) == 0, let ai = info else {
            throw .addressNotNumeric(bindAddress)
        }
        defer { freeaddrinfo(info) }
        let fd = socket(ai.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .noSocket(reason: String(cString: strerror(errno))) }
        guard bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(fd)
            throw .cannotListen(address: bindAddress, port: port, reason: String(cString: strerror(code)), inUse: code == EADDRINUSE)
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let boundPort = withUnsafeBytes(of: &bound) { raw -> UInt16 in
            // sin_port and sin6_port sit at the same offset, after the family.
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw .noPipe(reason: String(cString: strerror(errno)))
        }
        for wakeFD in pipeFDs {
            _ = fcntl(wakeFD, F_SETFD, FD_CLOEXEC)
            _ = fcntl(wakeFD, F_SETFL, O_NONBLOCK)
        }
        socketFD = fd
        wakeReadFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
        self.bindAddress = bindAddress
        self.port = Int(boundPort)
    }

    deinit {
        stop()
        close(socketFD)
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    /// Starts the receive thread.
    /// - Thread: control
    public func start() {
        guard thread == nil, !closed else { return }
        thread = RealtimeThread(name: Self.threadName) { [self] in run() }
    }

    /// Wakes and joins the receive thread; nothing more is read.
    /// - Thread: control
    public func stop() {
        guard !closed else { return }
        closed = true
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
        thread?.join()
        thread = nil
    }

    /// Takes every message received since the last call, and the count of
    /// datagrams that did not decode or messages dropped meanwhile.
    /// - Thread: control
    public func receive() -> (messages: [Received], malformed: Int) {
        inbox.withLock { inbox in
            defer { inbox = Inbox() }
            return (inbox.messages, inbox.malformed)
        }
    }

    /// Sends `message` to `sender` from the listening socket (so the reply
    /// comes from the port the surface sent to), unless the sender's address
    /// has used its budget. A failure is dropped: UDP promises nothing, and a
    /// surface asks again.
    /// - Thread: control
    public func send(_ message: OSCMessage, to sender: Sender) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        guard budget.take(for: sender, at: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9) else { return }
        let bytes = message.encoded()
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { data in
            sender.address.withUnsafeBytes { address in
                _ = sendto(socketFD, data.baseAddress, data.count, Int32(MSG_DONTWAIT),
                           address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
    }

    // MARK: Receive thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: Self.maximumDatagram)
        var fds = [pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || fds[0].revents & Int16(POLLNVAL) != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else {
                // A pending socket error (POLLERR) is cleared by reading it, so poll waits again.
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(socketFD, SOL_SOCKET, SO_ERROR, &code, &length)
                continue
            }
            var from = sockaddr_storage()
            var fromLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(socketFD, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, &fromLength)
                    }
                }
            }
            if count < 0 { continue }  // EAGAIN, or an ICMP error from an earlier reply
            let packet = buffer.withUnsafeBytes { OSCPacket(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            let sender = Sender(address: withUnsafeBytes(of: &from) { Array($0.prefix(Int(fromLength))) })
            inbox.withLock { inbox in
                inbox.malformed += packet.malformed
                let room = max(0, Self.inboxLimit - inbox.messages.count)
                for message in packet.messages.prefix(room) { inbox.messages.append(Received(message: message, sender: sender)) }
                inbox.malformed += max(0, packet.messages.count - room)
            }
        }
    }
}
