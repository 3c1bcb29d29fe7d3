import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// A thin owner of one libasound sequencer handle: open, name, make a port,
/// subscribe, list ports, read events. libasound's handle is not thread-safe:
/// one thread at a time (`SequencerMIDIInput` hands it from the control
/// thread to its own thread at start, and back after joining).
///
/// - Realtime: unsafe (allocates, makes system calls). Never the audio thread.
final class SequencerClient {
    /// What one read of the input queue gave.
    enum Input {
        case event(snd_seq_event_t)
        /// Nothing waiting (`-EAGAIN`).
        case empty
        /// The kernel's input queue overflowed and dropped events (`-ENOSPC`).
        case overrun
        case failed(Int32)
    }

    let handle: OpaquePointer
    /// This client's number (128 and up for applications).
    let clientID: UInt8

    private init(handle: OpaquePointer) {
        self.handle = handle
        clientID = UInt8(truncatingIfNeeded: snd_seq_client_id(handle))
    }

    deinit {
        snd_seq_close(handle)
    }

    /// Opens the `default` sequencer for input, non-blocking, and names the client.
    /// - Throws: `SequencerError.unavailable` when there is no sequencer device.
    static func open(clientName: String) throws(SequencerError) -> SequencerClient {
        ALSALibrary.captureMessages()
        _ = ALSALibrary.takeLastMessage()
        var handleOptional: OpaquePointer?
        let code = snd_seq_open(&handleOptional, "default", SND_SEQ_OPEN_INPUT, SND_SEQ_NONBLOCK)
        let message = ALSALibrary.takeLastMessage()
        guard code >= 0, let handle = handleOptional else {
            throw SequencerError.forOpen(code: code < 0 ? code : -ENOENT, message: message,
                                         deviceExists: access("/dev/snd/seq", F_OK) == 0)
        }
        let client = SequencerClient(handle: handle)
        let named = snd_seq_set_client_name(handle, clientName)
        if named < 0 { throw .callFailed(call: "snd_seq_set_client_name", code: named, detail: ALSALibrary.takeLastMessage()) }
        return client
    }

    /// Makes a port others can write to and subscribe to (so `aconnect` lists
    /// it as a destination). - Returns: its address.
    func createInputPort(name: String) throws(SequencerError) -> SequencerAddress {
        let capabilities = SequencerPortDescription.Capabilities([.write, .subscribeWrite])
        let types = SequencerPortDescription.Types([.midiGeneric, .application])
        let port = snd_seq_create_simple_port(handle, name, capabilities.rawValue, types.rawValue)
        if port < 0 { throw .callFailed(call: "snd_seq_create_simple_port", code: port, detail: ALSALibrary.takeLastMessage()) }
        return SequencerAddress(client: clientID, port: UInt8(truncatingIfNeeded: port))
    }

    /// Subscribes `port` (ours) to what `source` sends.
    /// - Returns: 0, or a negative errno. Already subscribed counts as success.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (syscalls, allocates)
    func subscribe(_ port: SequencerAddress, to source: SequencerAddress) -> Int32 {
        let code = snd_seq_connect_from(handle, Int32(port.port), Int32(source.client), Int32(source.port))
        _ = ALSALibrary.takeLastMessage()
        return code == -EBUSY ? 0 : min(code, 0)
    }

    /// Every port of every client (`snd_seq_query_next_client`/`_port`).
    func allPorts() -> [SequencerPortDescription] {
        var clientInfoOptional: OpaquePointer?
        var portInfoOptional: OpaquePointer?
        guard snd_seq_client_info_malloc(&clientInfoOptional) >= 0, let clientInfo = clientInfoOptional else { return [] }
        defer { snd_seq_client_info_free(clientInfo) }
        guard snd_seq_port_info_malloc(&portInfoOptional) >= 0, let portInfo = portInfoOptional else { return [] }
        defer { snd_seq_port_info_free(portInfo) }
        var ports: [SequencerPortDescription] = []
        snd_seq_client_info_set_client(clientInfo, -1)
        while snd_seq_query_next_client(handle, clientInfo) >= 0 {
            let client = snd_seq_client_info_get_client(clientInfo)
            let clientName = String(cString: snd_seq_client_info_get_name(clientInfo))
            snd_seq_port_info_set_client(portInfo, client)
            snd_seq_port_info_set_port(portInfo, -1)
            while snd_seq_query_next_port(handle, portInfo) >= 0 {
                ports.append(Self.describe(portInfo, clientName: clientName))
            }
        }
        return ports
    }

    /// One port, or nil when it does not exist (any more).
    /// - Thread: midi-in
    /// - Realtime: unsafe (syscalls, allocates)
    func port(at address: SequencerAddress) -> SequencerPortDescription? {
        var clientInfoOptional: OpaquePointer?
        var portInfoOptional: OpaquePointer?
        guard snd_seq_client_info_malloc(&clientInfoOptional) >= 0, let clientInfo = clientInfoOptional else { return nil }
        defer { snd_seq_client_info_free(clientInfo) }
        guard snd_seq_port_info_malloc(&portInfoOptional) >= 0, let portInfo = portInfoOptional else { return nil }
        defer { snd_seq_port_info_free(portInfo) }
        guard snd_seq_get_any_client_info(handle, Int32(address.client), clientInfo) >= 0,
              snd_seq_get_any_port_info(handle, Int32(address.client), Int32(address.port), portInfo) >= 0 else {
            _ = ALSALibrary.takeLastMessage()
            return nil
        }
        return Self.describe(portInfo, clientName: String(cString: snd_seq_client_info_get_name(clientInfo)))
    }

    /// The description of the port `info` holds, of the client named `clientName`.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates)
    private static func describe(_ info: OpaquePointer, clientName: String) -> SequencerPortDescription {
        SequencerPortDescription(
            address: SequencerAddress(client: UInt8(truncatingIfNeeded: snd_seq_port_info_get_client(info)),
                                      port: UInt8(truncatingIfNeeded: snd_seq_port_info_get_port(info))),
            clientName: clientName,
            portName: String(cString: snd_seq_port_info_get_name(info)),
            capabilities: .init(rawValue: snd_seq_port_info_get_capability(info)),
            types: .init(rawValue: snd_seq_port_info_get_type(info)))
    }

    /// The descriptors to poll for input.
    /// - Thread: midi-in
    /// - Realtime: unsafe (allocates)
    func pollDescriptors() -> [pollfd] {
        let count = snd_seq_poll_descriptors_count(handle, Int16(POLLIN))
        guard count > 0 else { return [] }
        var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
        let filled = snd_seq_poll_descriptors(handle, &descriptors, UInt32(count), Int16(POLLIN))
        return Array(descriptors.prefix(Int(max(0, filled))))
    }

    /// Takes the next event from the input queue, without blocking.
    /// - Thread: midi-in
    /// - Realtime: unsafe (a syscall, which does not block)
    func nextInput() -> Input {
        var eventPointer: UnsafeMutablePointer<snd_seq_event_t>?
        let code = snd_seq_event_input(handle, &eventPointer)
        if code >= 0, let eventPointer { return .event(eventPointer.pointee) }
        switch code {
        case -EAGAIN, 0: return .empty
        case -ENOSPC: return .overrun
        default: return .failed(code)
        }
    }
}
