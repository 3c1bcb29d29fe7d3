import Foundation

/// Fixes the header of a WAV file that was cut short (a crash, a power cut, a
/// full disk): the RIFF and data sizes (and RF64's ds64, and a float file's
/// fact frame count) are set from the file's real size. A partial last frame
/// is cut off, and a pad byte added where RIFF wants an even chunk.
///
/// A RIFF file whose data has grown past 4 GiB becomes RF64 when it kept a
/// JUNK chunk for the ds64 (libsndfile's RF64 auto-downgrade keeps one).
public enum WAVRepair {
    public struct Result: Equatable, Sendable {
        /// Frames the header promised before the repair.
        public var framesBefore: Int
        /// Frames in the repaired file.
        public var framesAfter: Int
        /// Bytes of a partial last frame that were cut off.
        public var bytesCut: Int
        public var channelCount: Int
        public var sampleRate: Int
        /// Whether the file is RF64 after the repair.
        public var isRF64: Bool
        /// Whether the header was already right and the file was left as it was.
        public var wasLeftAlone = false
        /// Bytes after the data the header declares that repair would take
        /// as audio: 0 for a complete file.
        public var unclaimedBytes = 0
    }

    /// Repairs `path` in place.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O, allocates)
    public static func repair(path: String) throws(RecordingError) -> Result {
        try examine(path: path, repairing: true)
    }

    /// What `repair` would do to `path`, without writing: a `Result` whose
    /// `unclaimedBytes` are the audio its header leaves out (a take cut short
    /// by a crash), for a reader to warn about.
    /// - Thread: control
    /// - Realtime: unsafe (file I/O, allocates)
    public static func inspect(path: String) throws(RecordingError) -> Result {
        try examine(path: path, repairing: false)
    }

    /// Reads the header, checks every field against the file, and (when
    /// `repairing`) writes the fixed one; no byte is written before all checks pass.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O, allocates)
    private static func examine(path: String, repairing: Bool) throws(RecordingError) -> Result {
        let file = try OpenWAV(path: path, writable: repairing)
        defer { file.closeDescriptor() }
        let isRF64 = try file.readsAsRF64()
        var chunks = try ChunkMap(of: file)
        let blockAlign = chunks.format.blockAlign, channels = chunks.format.channels, rate = chunks.format.sampleRate
        let declaredSizeIsPlaceholder = chunks.declaredDataSize == 0 || chunks.declaredDataSize == 0xFFFF_FFFF
        if isRF64 && chunks.declaredDataSize == 0xFFFF_FFFF {
            // A ds64 size past the file's end is not believed (nor used as a number that could overflow).
            chunks.declaredDataSize = chunks.ds64DataSize <= UInt64(file.size) ? Int(chunks.ds64DataSize) : -1
        }
        let declared = chunks.declaredDataSize
        let framesBefore = declared >= 0 ? declared / blockAlign : Int(clamping: chunks.ds64DataSize / UInt64(blockAlign))
        // A complete file: whole frames, and the chunks after the data (LIST,
        // id3…) tile the rest of the file exactly. Those bytes are metadata,
        // not audio the header forgot: leave the file as it is. (A header that
        // only lags behind the data, as after a crash, is followed by audio,
        // which does not read as a chain of chunks ending at the file's end.)
        if !declaredSizeIsPlaceholder || (isRF64 && declared > 0), declared >= 0, declared % blockAlign == 0,
           chunksTile(from: chunks.dataOffset + declared + (declared & 1), to: file.size, read: file.read) {
            let frames = declared / blockAlign
            return Result(framesBefore: frames, framesAfter: frames, bytesCut: 0, channelCount: channels,
                          sampleRate: rate, isRF64: isRF64, wasLeftAlone: true)
        }
        let present = file.size - chunks.dataOffset
        let whole = present / blockAlign * blockAlign
        let frames = whole / blockAlign
        let pad = whole & 1
        // A pad byte past odd data is not a partial frame.
        let cut = max(0, present - whole - pad)
        guard repairing else {
            return Result(framesBefore: framesBefore, framesAfter: frames, bytesCut: cut, channelCount: channels,
                          sampleRate: rate, isRF64: isRF64, unclaimedBytes: max(0, present - max(0, declared)))
        }
        let isRF64After = try rewriteHeader(of: file, chunks, isRF64: isRF64, dataBytes: whole, pad: pad)
        return Result(framesBefore: framesBefore, framesAfter: frames, bytesCut: cut,
                      channelCount: channels, sampleRate: rate, isRF64: isRF64After)
    }

    /// Cuts `file` to `dataBytes` of data (and its pad byte) and writes the sizes
    /// that say so, promoting a RIFF file past 4 GiB to RF64. Every check, and the
    /// RF64 header a promotion needs, comes before the first byte is written.
    /// - Returns: whether the file is RF64 now.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O, allocates)
    private static func rewriteHeader(of file: OpenWAV, _ chunks: ChunkMap, isRF64: Bool, dataBytes whole: Int,
                                      pad: Int) throws(RecordingError) -> Bool {
        let path = file.path, dataOffset = chunks.dataOffset
        let newSize = dataOffset + whole + pad
        let riffSize = newSize - 8
        let frames = whole / chunks.format.blockAlign
        var isRF64 = isRF64, ds64Offset = chunks.ds64Offset, ds64Size = chunks.ds64Size, factOffset = chunks.factOffset
        var promotion: [UInt8]?
        if riffSize > 0xFFFF_FFFF && !isRF64 {
            guard let junkOffset = chunks.junkOffset else {
                throw .notRepairable(path: path, reason: "its data passes 4 GiB and it has no room for an RF64 ds64 chunk")
            }
            promotion = try rf64Header(path: path, junkOffset: junkOffset, dataChunkOffset: dataOffset - 8, read: file.read)
            ds64Offset = junkOffset + 8
            ds64Size = 28
            factOffset = nil
        }
        if isRF64 && ds64Offset == nil {
            throw .notRepairable(path: path, reason: "it is RF64 but has no ds64 chunk before the data")
        }
        if newSize != file.size {
            guard ftruncate(file.fd, off_t(newSize)) == 0 else {
                throw .notRepairable(path: path, reason: "cannot cut the partial frame: \(String(cString: strerror(errno)))")
            }
        }
        if let promotion {
            try file.write(Array("RF64".utf8), 0)
            try file.write(promotion, 12)
            isRF64 = true
        }
        if isRF64, let ds64Offset {
            let sizes = le64Bytes(UInt64(riffSize)) + le64Bytes(UInt64(whole)) + le64Bytes(UInt64(frames))
            // The table count only where the chunk has room for it (it was checked to hold the 24 bytes of sizes).
            try file.write(ds64Size >= 28 && ds64Offset + 28 <= dataOffset - 8 ? sizes + [0, 0, 0, 0] : sizes, ds64Offset)
            try file.write(le32Bytes(0xFFFF_FFFF), 4)
            try file.write(le32Bytes(0xFFFF_FFFF), dataOffset - 4)
        } else {
            try file.write(le32Bytes(UInt32(riffSize)), 4)
            try file.write(le32Bytes(UInt32(whole)), dataOffset - 4)
        }
        if let factOffset { try file.write(le32Bytes(UInt32(truncatingIfNeeded: frames)), factOffset) }
        _ = fsync(file.fd)
        return isRF64
    }

    /// A WAV file open for examining (and, when writable, repairing) by offset.
    private struct OpenWAV {
        let path: String
        let fd: Int32
        let size: Int

        /// Opens `path`, a regular file.
        init(path: String, writable: Bool) throws(RecordingError) {
            self.path = path
            fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK)
            guard fd >= 0 else { throw .notRepairable(path: path, reason: String(cString: strerror(errno))) }
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw .notRepairable(path: path, reason: reason)
            }
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw .notRepairable(path: path, reason: "not a regular file")
            }
            size = Int(st.st_size)
        }

        func closeDescriptor() { close(fd) }

        /// `count` bytes from `offset`, or nil where the file does not hold them.
        func read(_ count: Int, _ offset: Int) -> [UInt8]? {
            guard offset >= 0, offset + count <= size else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? bytes : nil
        }

        func write(_ bytes: [UInt8], _ offset: Int) throws(RecordingError) {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
            if n != bytes.count { throw .notRepairable(path: path, reason: "writing the header failed: \(String(cString: strerror(errno)))") }
        }

        /// Whether the file starts as RF64 (else RIFF); throws when it is not a WAV file.
        func readsAsRF64() throws(RecordingError) -> Bool {
            guard let head = read(12, 0) else { throw .notRepairable(path: path, reason: "not a WAV file (shorter than a RIFF header)") }
            let riff = String(decoding: head[0..<4], as: UTF8.self), wave = String(decoding: head[8..<12], as: UTF8.self)
            guard (riff == "RIFF" || riff == "RF64"), wave == "WAVE" else {
                throw .notRepairable(path: path, reason: "not a WAV file (no RIFF/RF64 WAVE header)")
            }
            return riff == "RF64"
        }
    }

    /// Where the chunks before the data are, and what the header declares.
    private struct ChunkMap {
        var format: Format
        var ds64Offset: Int?
        var junkOffset: Int?
        var factOffset: Int?
        var ds64Size = 0
        var dataOffset: Int
        var declaredDataSize: Int
        var ds64DataSize: UInt64 = 0

        /// Reads the chunk headers from byte 12 up to the data chunk's.
        init(of file: OpenWAV) throws(RecordingError) {
            let path = file.path
            var format: Format?, dataOffset: Int?
            var offset = 12
            declaredDataSize = 0
            while let header = file.read(8, offset) {
                let id = String(decoding: header[0..<4], as: UTF8.self)
                let size = Int(WAVRepair.le32(header, 4))
                let body = offset + 8
                switch id {
                case "fmt ":
                    guard let fmt = file.read(min(size, 40), body), size >= 16 else {
                        throw .notRepairable(path: path, reason: "its fmt chunk is cut short (\(size) bytes declared, 16 needed)")
                    }
                    format = try Format(fmt, path: path)
                case "ds64":
                    // The RIFF, data and sample-count sizes: 24 bytes, written back in place, so no fewer.
                    guard size >= 24, let ds = file.read(24, body) else {
                        throw .notRepairable(path: path, reason: "its ds64 chunk holds \(size) bytes, fewer than the 24 of its sizes")
                    }
                    ds64Offset = body
                    ds64Size = size
                    ds64DataSize = WAVRepair.le64(ds, 8)
                // libsndfile keeps 24 bytes: the ds64 sizes without the table count.
                case "JUNK" where size >= 24 && junkOffset == nil && offset == 12:
                    junkOffset = offset
                    ds64Size = size
                case "fact" where size >= 4:
                    factOffset = body
                case "data":
                    dataOffset = body
                    declaredDataSize = size
                default: break
                }
                if dataOffset != nil { break }
                offset = body + size + (size & 1)
            }
            guard let dataOffset else { throw .notRepairable(path: path, reason: "no data chunk (not an audio WAV, or cut inside its header)") }
            guard let format else { throw .notRepairable(path: path, reason: "no fmt chunk before the data") }
            if let ds64Offset, ds64Offset + 24 > dataOffset - 8 {
                throw .notRepairable(path: path, reason: "its ds64 chunk runs into the data chunk")
            }
            self.format = format
            self.dataOffset = dataOffset
        }
    }

    /// The fmt chunk's fields repair relies on, checked against each other:
    /// PCM, float, A-law or μ-law samples (plain or WAVE_FORMAT_EXTENSIBLE), 1…`maximumChannels`
    /// channels of 8…64 bits, and a block align of exactly one frame. A header
    /// that contradicts itself is refused: cutting "partial frames" by a
    /// wrong block align would destroy audio.
    struct Format {
        static let maximumChannels = 1024
        var channels: Int
        var sampleRate: Int
        var blockAlign: Int

        /// - Parameter fmt: the chunk's body, 16 bytes or more.
        init(_ fmt: [UInt8], path: String) throws(RecordingError) {
            var tag = WAVRepair.le16(fmt, 0)
            if tag == 0xFFFE && fmt.count >= 26 { tag = WAVRepair.le16(fmt, 24) }
            channels = Int(WAVRepair.le16(fmt, 2))
            sampleRate = Int(WAVRepair.le32(fmt, 4))
            blockAlign = Int(WAVRepair.le16(fmt, 12))
            let bits = Int(WAVRepair.le16(fmt, 14))
            // PCM, float, A-law, μ-law: every frame the same size, so the file's size gives the frames.
            guard [1, 3, 6, 7].contains(tag) else {
                throw .notRepairable(path: path, reason: "its samples are not PCM, float, A-law or μ-law (format tag \(tag)); repair handles those only")
            }
            guard (1...Self.maximumChannels).contains(channels) else {
                throw .notRepairable(path: path, reason: "its fmt chunk claims \(channels) channels (1…\(Self.maximumChannels) repaired)")
            }
            guard (8...64).contains(bits) else { throw .notRepairable(path: path, reason: "its fmt chunk claims \(bits)-bit samples (8…64 repaired)") }
            guard sampleRate > 0 else { throw .notRepairable(path: path, reason: "its fmt chunk claims a sample rate of 0") }
            let frameBytes = channels * ((bits + 7) / 8)
            guard blockAlign == frameBytes else {
                throw .notRepairable(path: path, reason: "its fmt chunk contradicts itself: block align \(blockAlign) for \(channels) channel\(channels == 1 ? "" : "s") of \(bits) bits (\(frameBytes) expected)")
            }
        }
    }

    /// Whether `start…end` is a chain of RIFF chunks (four printable ASCII
    /// characters, a size, the body and its pad byte) ending exactly at `end`.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O through `read`, allocates)
    private static func chunksTile(from start: Int, to end: Int, read: (Int, Int) -> [UInt8]?) -> Bool {
        var offset = start
        while offset < end {
            guard let header = read(8, offset), header[0..<4].allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
            let size = Int(le32(header, 4))
            offset += 8 + size + (size & 1)
            // The last chunk of a file may lack its pad byte.
            if offset == end + 1 && size & 1 == 1 { return true }
        }
        return offset == end
    }

    /// The header between `RIFF…WAVE` and the data chunk as RF64's, to write
    /// at byte 12 (with "RF64" at 0): a 28-byte ds64 first (libsndfile reads
    /// no shorter one), the other chunks but JUNK and fact (a frame count RF64
    /// keeps in ds64), and a JUNK filler so the data does not move.
    /// - Throws: when the header has no room for the ds64 chunk.
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O, allocates)
    private static func rf64Header(path: String, junkOffset: Int, dataChunkOffset: Int,
                                   read: (Int, Int) -> [UInt8]?) throws(RecordingError) -> [UInt8] {
        guard let region = read(dataChunkOffset - 12, 12) else { throw .notRepairable(path: path, reason: "cannot read its header") }
        var kept: [UInt8] = []
        var i = 0
        while i + 8 <= region.count {
            let id = String(decoding: region[i..<(i + 4)], as: UTF8.self)
            let size = Int(le32(region, i + 4))
            let end = min(region.count, i + 8 + size + (size & 1))
            if id != "JUNK" && id != "fact" { kept += region[i..<end] }
            i = end
        }
        var header = Array("ds64".utf8) + le32Bytes(28) + [UInt8](repeating: 0, count: 28) + kept
        let filler = region.count - header.count
        guard filler == 0 || filler >= 8 else {
            throw .notRepairable(path: path, reason: "its data passes 4 GiB and its header has no room for an RF64 ds64 chunk")
        }
        if filler >= 8 { header += Array("JUNK".utf8) + le32Bytes(UInt32(filler - 8)) + [UInt8](repeating: 0, count: filler - 8) }
        return header
    }

    /// The little-endian 16-bit value at `b[i]`.
    /// - Thread: writer, control
    /// - Realtime: safe
    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    /// The little-endian 32-bit value at `b[i]`.
    /// - Thread: writer, control
    /// - Realtime: safe
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    /// The little-endian 64-bit value at `b[i]`.
    /// - Thread: writer, control
    /// - Realtime: safe
    private static func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
    /// `x` little-endian, four bytes.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    private static func le32Bytes(_ x: UInt32) -> [UInt8] { (0..<4).map { UInt8((x >> (8 * $0)) & 0xFF) } }
    /// `x` little-endian, eight bytes.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    private static func le64Bytes(_ x: UInt64) -> [UInt8] { (0..<8).map { UInt8((x >> (8 * UInt64($0))) & 0xFF) } }
}
