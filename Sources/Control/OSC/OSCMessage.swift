import CLiblo
#if canImport(Glibc)
import Glibc
#endif

/// An OSC message: an address and its arguments. Decoded from a packet by
/// `OSCPacket` (liblo's decoder), encoded by liblo for the replies Busker
/// sends and for tests.
public struct OSCMessage: Equatable, Sendable {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The type tags without the comma (`f`, `iT`, empty for none).
    public var typeTags: String { String(arguments.map(\.typeTag)) }

    /// For a log line: `/busker/volume 0.5`.
    public var text: String { ([address] + arguments.map(\.text)).joined(separator: " ") }

    /// The message as OSC bytes (liblo's encoder). An `.other` argument is
    /// sent as nil (`N`); an address liblo refuses gives no bytes.
    /// - Realtime: unsafe (allocates). Control thread or a test.
    public func encoded() -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case let .int32(v): lo_message_add_int32(message, v)
            case let .int64(v): lo_message_add_int64(message, v)
            case let .float32(v): lo_message_add_float(message, v)
            case let .float64(v): lo_message_add_double(message, v)
            case let .string(s): lo_message_add_string(message, s)
            case let .symbol(s): lo_message_add_symbol(message, s)
            case .true: lo_message_add_true(message)
            case .false: lo_message_add_false(message)
            case .other: lo_message_add_nil(message)
            }
        }
        let length = lo_message_length(message, address)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        var size = length
        let written = bytes.withUnsafeMutableBytes { lo_message_serialise(message, address, $0.baseAddress, &size) }
        return written == nil ? [] : Array(bytes.prefix(size))
    }

    /// Decodes one message (not a bundle) with liblo's decoder, which checks
    /// every string, type tag and argument size against the packet's length.
    /// - Returns: nil for anything that is not a well-formed message whose address starts with `/`.
    /// - Realtime: unsafe (allocates). The OSC receive thread, or a test.
    public init?(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count >= 8, bytes.count % 4 == 0, bytes[0] == UInt8(ascii: "/") else { return nil }
        var result: Int32 = 0
        // liblo copies what it keeps; it reads `bytes` only within its count.
        guard let message = lo_message_deserialise(UnsafeMutableRawPointer(mutating: base), bytes.count, &result) else { return nil }
        defer { lo_message_free(message) }
        // The address is the packet's first string, which liblo checked is NUL-terminated within it.
        guard let nul = bytes.firstIndex(of: 0) else { return nil }
        guard let address = String(validating: bytes[0..<nul], as: UTF8.self) else { return nil }
        let count = Int(lo_message_get_argc(message))
        guard let types = lo_message_get_types(message) else { return nil }
        let tags = Array(UnsafeBufferPointer(start: types, count: strlen(types)))
        guard tags.count == count else { return nil }
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(count)
        let argv = lo_message_get_argv(message)
        for i in 0..<count {
            let tag = UInt8(bitPattern: tags[i])
            let pointer = argv.flatMap { $0[i] }.map { UnsafeRawPointer($0) }
            switch tag {
            case UInt8(ascii: "T"): arguments.append(.true)
            case UInt8(ascii: "F"): arguments.append(.false)
            case UInt8(ascii: "i"):
                guard let p = pointer else { return nil }
                arguments.append(.int32(p.loadUnaligned(as: Int32.self)))
            case UInt8(ascii: "h"):
                guard let p = pointer else { return nil }
                arguments.append(.int64(p.loadUnaligned(as: Int64.self)))
            case UInt8(ascii: "f"):
                guard let p = pointer else { return nil }
                arguments.append(.float32(p.loadUnaligned(as: Float.self)))
            case UInt8(ascii: "d"):
                guard let p = pointer else { return nil }
                arguments.append(.float64(p.loadUnaligned(as: Double.self)))
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                guard let p = pointer else { return nil }
                let s = String(decoding: UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt8.self),
                                                            count: strlen(p.assumingMemoryBound(to: CChar.self))), as: UTF8.self)
                arguments.append(tag == UInt8(ascii: "s") ? .string(s) : .symbol(s))
            default:
                guard tag >= 0x20, tag < 0x7F else { return nil }
                arguments.append(.other(Character(Unicode.Scalar(tag))))
            }
        }
        self.init(address, arguments)
    }
}
