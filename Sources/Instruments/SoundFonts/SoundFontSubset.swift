#if canImport(Glibc)
import Glibc
#endif
import CFluidSynth
import Synchronization

/// A SoundFont holding some of another's presets, served to FluidSynth
/// through its file callbacks without being written anywhere: the original
/// file up to its `pdta` list (RIFF header, INFO, all the sample data, read
/// from the original on demand), then cut preset tables
/// (`SoundFontPresetTables.subsetList`), with the RIFF size made to match.
///
/// FluidSynth opens it by name (`busker-subset:N`) through the loader that
/// `install(on:)` adds to a synth, once to read its presets and again each
/// time it reads sample data, so a subset stays registered until `retire()`.
///
/// - Realtime: unsafe (file I/O, allocates, locks). Control or loader thread.
struct SoundFontSubset: Sendable {
    let sourcePath: String
    /// Bytes taken from the original, from its start: everything before its `pdta` list.
    let prefixLength: Int
    /// The cut `pdta` list.
    let list: [UInt8]

    var size: Int { prefixLength + list.count }

    /// The name FluidSynth loads it by.
    let name: String

    private static let registry = Mutex<(next: Int, subsets: [String: SoundFontSubset])>((0, [:]))
    private static let scheme = "busker-subset:"

    /// Registers a subset of the font at `sourcePath` whose preset tables are `list`.
    init(sourcePath: String, prefixLength: Int, list: [UInt8]) {
        self.sourcePath = sourcePath
        self.prefixLength = prefixLength
        self.list = list
        let number = Self.registry.withLock { state in
            state.next += 1
            return state.next
        }
        name = Self.scheme + String(number)
        let subset = self
        Self.registry.withLock { $0.subsets[subset.name] = subset }
    }

    /// Forgets the subset: FluidSynth cannot open it any more.
    func retire() {
        _ = Self.registry.withLock { $0.subsets.removeValue(forKey: name) }
    }

    /// Adds to `synth` a SoundFont loader that opens registered subsets (and
    /// nothing else: other names go to FluidSynth's own loader, tried next).
    /// The synth owns the loader.
    static func install(on synth: OpaquePointer, settings: OpaquePointer) -> Bool {
        guard let loader = new_fluid_defsfloader(settings) else { return false }
        let status = fluid_sfloader_set_callbacks(loader, { name in
            guard let name else { return nil }
            let key = String(cString: name)
            guard key.hasPrefix(SoundFontSubset.scheme),
                  let subset = SoundFontSubset.registry.withLock({ $0.subsets[key] }),
                  let reader = SubsetReader(subset) else { return nil }
            return Unmanaged.passRetained(reader).toOpaque()
        }, { buffer, count, handle in
            guard let buffer, let handle else { return FLUID_FAILED }
            return SubsetReader.from(handle).read(into: buffer, count: Int(count)) ? FLUID_OK : FLUID_FAILED
        }, { handle, offset, origin in
            guard let handle else { return FLUID_FAILED }
            return SubsetReader.from(handle).seek(Int(offset), origin: origin) ? FLUID_OK : FLUID_FAILED
        }, { handle in
            guard let handle else { return -1 }
            return fluid_long_long_t(SubsetReader.from(handle).position)
        }, { handle in
            guard let handle else { return FLUID_FAILED }
            Unmanaged<SubsetReader>.fromOpaque(handle).release()
            return FLUID_OK
        })
        guard status == FLUID_OK else {
            delete_fluid_sfloader(loader)
            return false
        }
        fluid_synth_add_sfloader(synth, loader)
        return true
    }
}

/// One open handle on a `SoundFontSubset`: a position and a descriptor of the original file.
private final class SubsetReader {
    let subset: SoundFontSubset
    let descriptor: Int32
    var position = 0
    /// The first 12 bytes: "RIFF", the subset's size − 8, "sfbk".
    let header: [UInt8]

    init?(_ subset: SoundFontSubset) {
        let descriptor = open(subset.sourcePath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.subset = subset
        self.descriptor = descriptor
        var header = Array("RIFF".utf8)
        SoundFontPresetTables.append32(&header, UInt32(subset.size - 8))
        header += Array("sfbk".utf8)
        self.header = header
    }

    deinit { close(descriptor) }

    static func from(_ handle: UnsafeMutableRawPointer) -> SubsetReader {
        Unmanaged<SubsetReader>.fromOpaque(handle).takeUnretainedValue()
    }

    /// Reads exactly `count` bytes from the position on; false past the end or on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard count >= 0, position + count <= subset.size else { return false }
        var done = 0
        while done < count {
            let at = position + done
            let destination = buffer + done
            if at < header.count {
                let n = min(count - done, header.count - at)
                header.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + at, byteCount: n) }
                done += n
            } else if at < subset.prefixLength {
                let n = min(count - done, subset.prefixLength - at)
                let got = pread(descriptor, destination, n, off_t(at))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            } else {
                let n = min(count - done, subset.size - at)
                subset.list.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + (at - subset.prefixLength), byteCount: n) }
                done += n
            }
        }
        position += count
        return true
    }

    func seek(_ offset: Int, origin: Int32) -> Bool {
        let base: Int
        switch origin {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = subset.size
        default: return false
        }
        guard base + offset >= 0, base + offset <= subset.size else { return false }
        position = base + offset
        return true
    }
}
