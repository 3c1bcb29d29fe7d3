#if canImport(Glibc)
import Glibc
#endif
import CFluidSynth
import Synchronization

/// A SoundFont read for playing preset by preset: its presets are known at
/// once, and a preset's zones and samples are read into memory only when it
/// is made resident, so a session holds what it plays and nothing more.
///
/// FluidSynth reads fonts here on a synth of its own that never renders
/// (the *loader synth*). Making a preset resident cuts from the file a font
/// holding that preset alone (`SoundFontSubset`: the original's sample data,
/// its preset's tables), loads it with `synth.dynamic-sample-loading = 1`
/// and pins the preset (`fluid_synth_pin_preset`: FluidSynth reads and
/// converts its samples, which then stay until the preset is freed, see
/// `unload`, or the loader synth is deleted). FluidSynth thus builds zones for the presets played, not for
/// the whole font (FluidR3_GM's 189 presets take 11.5 MB of them). A file
/// whose tables cannot be cut is read whole, its presets pinned in it.
///
/// The synths that play never hold the real font: they hold a
/// `PresetProxyFont`, whose presets hand note-ons to the real presets here
/// once resident and play nothing before. That is what keeps disk reads and
/// allocation off the audio thread: with dynamic loading, selecting a real
/// preset on a playing synth's channel would read its samples right there.
///
/// Thread safety: `makeResident` runs on any thread but one load at a time
/// (a mutex; the loader synth is only touched under it). The audio thread
/// only reads states (atomics) and calls note-ons of resident presets, whose
/// sample data no longer changes; FluidSynth's per-sample counters that the
/// audio thread touches (voice references) are ones loading never writes,
/// and a pinned sample is never unloaded.
public final class SoundFontPresets: @unchecked Sendable {
    /// Where a preset's samples are.
    public enum Residency: Int, Sendable {
        /// On disk only.
        case absent = 0
        /// Asked for; the loader will read it.
        case requested = 1
        /// In memory: it plays.
        case resident = 2
        /// Reading it failed (the file changed or went away); it plays nothing.
        case failed = 3
        /// Let go by the audio thread (no channel selects it, no voice plays
        /// it, and none can start); the loader frees it, then it is absent.
        case retiring = 4
    }

    /// What the loads so far took.
    public struct Totals: Equatable, Sendable {
        /// Presets resident now.
        public var presets = 0
        /// Presets freed again since (`unload`).
        public var unloaded = 0
        /// The growth of the process's resident set while they were read (VmRSS, /proc).
        public var bytes = 0
        /// Wall time spent reading them, in seconds.
        public var seconds = 0.0
    }

    /// Where the loader synth finds a preset.
    private enum Source {
        /// In a font of its own, cut from the file when it is made resident;
        /// `records` holds each preset's record in the file's preset table.
        case subsets(records: [Int])
        /// In the whole font, read at init (FluidSynth's font ID).
        case wholeFont(Int32)
    }

    /// The loader's state.
    private struct Loads {
        var totals = Totals()
        /// The font cut for each preset read (registered until deinit or unload).
        var subsets: [Int: SoundFontSubset] = [:]
        /// The loader synth's font ID of each resident preset's cut font.
        var fontIDs: [Int: Int32] = [:]
        /// What FluidSynth said when a preset last failed to load.
        var lastFailure: String?
    }

    public let path: String
    /// Every preset of the font, by bank, then program.
    public let presets: [SoundFontPreset]
    /// The growth of the resident set while the font's presets were listed:
    /// reading its preset tables, or, for a font read whole, FluidSynth's
    /// structure of every preset (instruments, zones; no sample data).
    public let structureBytes: Int
    /// Whether presets are cut from the file one by one, and so can be freed
    /// one by one (`unload`); else the whole font was read, and keeps them all.
    public let loadsPresetsAlone: Bool

    // MARK: Loader side (under `loads`)
    private let settings: OpaquePointer
    private let synth: OpaquePointer
    private let source: Source
    private let loads = Mutex(Loads())

    // MARK: Shared with the audio thread (immutable after init, or atomic)
    /// `bank << 7 | program` per preset, ascending: the lookup key.
    private let keys: UnsafeMutablePointer<Int32>
    /// FluidSynth's preset per index (owned by a font of the loader synth);
    /// written before its state turns resident, read after.
    private let realPresets: UnsafeMutablePointer<OpaquePointer?>
    /// Each preset's note-on function, with the same ordering as `realPresets`.
    private let noteOns: UnsafeMutablePointer<fluid_preset_noteon_t?>
    /// `Residency` raw values per index.
    private let states: UnsafeMutablePointer<Atomic<Int>>
    /// Per index: never unloaded (a song's presets, read before it starts).
    private let kept: UnsafeMutablePointer<Atomic<Bool>>
    /// Whether a playing synth frees idle presets (`claimFreeing`).
    private let freeingClaimed = Atomic<Bool>(false)

    /// Settings for a synth that never renders (this loader synth, and
    /// `SelectedPresets`' scratch synth): one voice, no effects, no worker
    /// threads, no FluidSynth mutex, one output pair, quiet. The caller deletes them.
    /// - Realtime: unsafe (allocates). Control or loader thread.
    static func silentSynthSettings() -> OpaquePointer? {
        guard let settings = new_fluid_settings() else { return nil }
        _ = fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        _ = fluid_settings_setint(settings, "synth.polyphony", 1)
        _ = fluid_settings_setint(settings, "synth.reverb.active", 0)
        _ = fluid_settings_setint(settings, "synth.chorus.active", 0)
        _ = fluid_settings_setint(settings, "synth.cpu-cores", 1)
        _ = fluid_settings_setint(settings, "synth.audio-channels", 1)
        _ = fluid_settings_setint(settings, "synth.audio-groups", 1)
        _ = fluid_settings_setint(settings, "synth.midi-channels", 16)
        _ = fluid_settings_setint(settings, "synth.verbose", 0)
        return settings
    }

    /// Reads the font's presets (no zones, no samples).
    /// - Parameter readingWholeFont: read the whole font's structure at once
    ///   even where presets could be cut from it one by one.
    /// - Throws: `SamplerError` naming the file: not found, not a SoundFont,
    ///   truncated, refused by FluidSynth; `.synthesizerCreationFailed` when
    ///   this FluidSynth's presets cannot be proxied.
    /// - Realtime: unsafe (allocates, reads files). Control or loader thread.
    public init(path: String, readingWholeFont: Bool = false) throws {
        _ = try SoundFontHeader(checking: path)
        SoundFontLoadLog.install()
        guard let settings = Self.silentSynthSettings() else {
            throw SamplerError.synthesizerCreationFailed("new_fluid_settings failed")
        }
        _ = fluid_settings_setint(settings, "synth.dynamic-sample-loading", 1)
        _ = fluid_settings_setint(settings, "synth.lock-memory", 1)
        let (created, creationError) = SoundFontLoadLog.capturing { new_fluid_synth(settings) }
        guard let synth = created else {
            delete_fluid_settings(settings)
            throw SamplerError.synthesizerCreationFailed(creationError ?? "new_fluid_synth failed")
        }
        guard Self.presetLayoutMatches() else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw SamplerError.synthesizerCreationFailed("this FluidSynth's presets are not laid out as FluidSynth 2's; Busker cannot load them one by one")
        }
        let before = Self.residentSetBytes()
        var found: [(key: Int32, preset: SoundFontPreset, real: OpaquePointer?, record: Int)] = []
        if !readingWholeFont, let tables = try? SoundFontPresetTables(path: path),
           SoundFontSubset.install(on: synth, settings: settings) {
            // Of two presets at one bank and program, the later in the file: FluidSynth's
            // merge sort puts equal keys in reverse file order and takes the first match.
            var byKey: [Int32: SoundFontPresetTables.PresetHeader] = [:]
            for header in tables.presetHeaders
            where SamplerInstrument.bankRange.contains(header.bank) && SamplerInstrument.programRange.contains(header.program) {
                byKey[Int32(header.bank << 7 | header.program)] = header
            }
            found = byKey.map { key, header in
                (key, SoundFontPreset(bank: header.bank, program: header.program, name: header.name), nil, header.record)
            }
            found.sort { $0.key < $1.key }
            source = .subsets(records: found.map(\.record))
        } else {
            // No preset reset: nothing is selected on the loader synth, so nothing is read yet.
            let (id, loadError) = SoundFontLoadLog.capturing { fluid_synth_sfload(synth, path, 0) }
            guard id != FLUID_FAILED, let font = fluid_synth_get_sfont_by_id(synth, id) else {
                delete_fluid_synth(synth)
                delete_fluid_settings(settings)
                throw SamplerError.soundFontLoadFailed(path: path, message: loadError)
            }
            // FluidSynth's own order: of two presets at one bank and program, the first it lists is the one it plays.
            var seen = Set<Int>()
            fluid_sfont_iteration_start(font)
            while let real = fluid_sfont_iteration_next(font) {
                let bank = Int(fluid_preset_get_banknum(real)), program = Int(fluid_preset_get_num(real))
                guard SamplerInstrument.bankRange.contains(bank), SamplerInstrument.programRange.contains(program),
                      seen.insert(bank << 7 | program).inserted else { continue }
                let name = fluid_preset_get_name(real).map { String(cString: $0) } ?? ""
                found.append((Int32(bank << 7 | program), SoundFontPreset(bank: bank, program: program, name: name), real, 0))
            }
            found.sort { $0.key < $1.key }
            source = .wholeFont(id)
        }
        structureBytes = max(0, Self.residentSetBytes() - before)
        if case .subsets = source { loadsPresetsAlone = true } else { loadsPresetsAlone = false }
        self.path = path
        self.settings = settings
        self.synth = synth
        presets = found.map(\.preset)
        let count = max(1, found.count)
        keys = .allocate(capacity: count)
        realPresets = .allocate(capacity: count)
        noteOns = .allocate(capacity: count)
        states = .allocate(capacity: count)
        kept = .allocate(capacity: count)
        for i in 0..<count { (kept + i).initialize(to: Atomic(false)) }
        for (i, entry) in found.enumerated() {
            (keys + i).initialize(to: entry.key)
            (realPresets + i).initialize(to: entry.real)
            (noteOns + i).initialize(to: entry.real.flatMap { busker_fluid_preset_noteon($0) })
            (states + i).initialize(to: Atomic(Residency.absent.rawValue))
        }
    }

    deinit {
        // Unpins and frees every sample: the synths that played them are gone by now.
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
        loads.withLock { $0.subsets.values.forEach { $0.retire() } }
        (states).deinitialize(count: presets.count)
        states.deallocate()
        kept.deinitialize(count: max(1, presets.count))
        kept.deallocate()
        keys.deallocate()
        realPresets.deallocate()
        noteOns.deallocate()
    }

    /// Whether this FluidSynth's `fluid_preset_t` has the fields where
    /// `busker_fluid_preset_fields` reads them: checked on a preset made here
    /// with known functions.
    private static func presetLayoutMatches() -> Bool {
        let getName: fluid_sfont_get_name_t = { _ in nil }
        let getPreset: fluid_sfont_get_preset_t = { _, _, _ in nil }
        guard let font = new_fluid_sfont(getName, getPreset, nil, nil, { _ in 0 }) else { return false }
        defer { delete_fluid_sfont(font) }
        let presetName: fluid_preset_get_name_t = { _ in nil }
        let bank: fluid_preset_get_banknum_t = { _ in 0 }
        let number: fluid_preset_get_num_t = { _ in 7 }
        let noteOn: fluid_preset_noteon_t = { _, _, _, _, _ in 0 }
        guard let preset = new_fluid_preset(font, presetName, bank, number, noteOn, { _ in }) else { return false }
        defer { delete_fluid_preset(preset) }
        let marker = UnsafeMutableRawPointer(bitPattern: 0xB05C)
        _ = fluid_preset_set_data(preset, marker)
        return busker_fluid_preset_layout_matches(preset, font, marker, number, noteOn) != 0
    }

    // MARK: Control or loader thread

    /// The index of the preset at `bank` and `program`, or nil.
    /// - Thread: any
    /// - Realtime: safe (a binary search over preallocated keys)
    public func index(bank: Int, program: Int) -> Int? {
        guard SamplerInstrument.bankRange.contains(bank), SamplerInstrument.programRange.contains(program) else { return nil }
        let key = Int32(bank << 7 | program)
        var low = 0, high = presets.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < presets.count && keys[low] == key ? low : nil
    }

    /// The instrument `offset` steps after `current` (before it, for a
    /// negative offset) among the font's melodic presets (banks 0–127, by
    /// bank then program), wrapping around at the ends: what the play
    /// screen's `{ }` keys choose. From nil or a drum kit: the first.
    /// - Thread: any
    public func step(from current: SoundFontPreset?, by offset: Int) -> SoundFontPreset? {
        let melodic = presets.filter { $0.bank < 128 }
        guard !melodic.isEmpty else { return nil }
        guard let current, let position = melodic.firstIndex(where: { $0.bank == current.bank && $0.program == current.program }) else {
            return melodic[0]
        }
        let count = melodic.count
        return melodic[((position + offset) % count + count) % count]
    }

    /// Reads the zones and samples of the preset at `index` into memory, unless they are already.
    /// - Returns: true when the preset is resident (now or before).
    /// - Realtime: unsafe (reads the file, allocates, locks). Control or loader thread.
    @discardableResult
    public func makeResident(_ index: Int) -> Bool {
        precondition(presets.indices.contains(index))
        return loads.withLock { state in
            switch residency(index) {
            case .resident: return true
            case .failed: return false
            case .absent, .requested: break
            case .retiring:
                // Let go but not yet freed: taken back as it is (the queued unload then finds it resident).
                if states[index].compareExchange(expected: Residency.retiring.rawValue, desired: Residency.resident.rawValue,
                                                 ordering: .acquiringAndReleasing).exchanged { return true }
            }
            let preset = presets[index]
            let start = monotonicNow(), before = Self.residentSetBytes()
            let real: OpaquePointer?
            switch source {
            case .wholeFont(let fontID):
                let (result, message) = SoundFontLoadLog.capturing {
                    fluid_synth_pin_preset(synth, fontID, Int32(preset.bank), Int32(preset.program))
                }
                real = result == FLUID_OK ? realPresets[index] : nil
                if real == nil { state.lastFailure = message }
            case .subsets(let records):
                real = loadAlone(preset, record: records[index], index: index, into: &state)
            }
            let loaded = real != nil
            if let real {
                realPresets[index] = real
                noteOns[index] = busker_fluid_preset_noteon(real)
                state.totals.presets += 1
                state.totals.bytes += max(0, Self.residentSetBytes() - before)
                state.totals.seconds += monotonicNow() - start
            }
            // Published after the samples: the audio thread reads the state with acquire ordering.
            states[index].store((loaded ? Residency.resident : .failed).rawValue, ordering: .releasing)
            return loaded
        }
    }

    /// Cuts the preset at `record` of the file's preset table into a font of
    /// its own, loads that on the loader synth and pins the preset.
    /// - Returns: the loaded preset; nil when the file changed under Busker
    ///   (its tables no longer read, or FluidSynth refuses the cut).
    /// - Realtime: unsafe (file I/O, allocates). Loader thread, under `loads`.
    private func loadAlone(_ preset: SoundFontPreset, record: Int, index: Int, into state: inout Loads) -> OpaquePointer? {
        guard let tables = try? SoundFontPresetTables(path: path),
              tables.presetHeaders.indices.contains(record),
              tables.presetHeaders[record].bank == preset.bank, tables.presetHeaders[record].program == preset.program else {
            state.lastFailure = "the file's preset tables changed since it was opened"
            return nil
        }
        let subset = SoundFontSubset(sourcePath: path, prefixLength: tables.listOffset, list: tables.subsetList(presetRecord: record))
        let (id, loadError) = SoundFontLoadLog.capturing { fluid_synth_sfload(synth, subset.name, 0) }
        guard id != FLUID_FAILED else {
            subset.retire()
            state.lastFailure = loadError
            return nil
        }
        let (pinned, pinError) = SoundFontLoadLog.capturing {
            fluid_synth_pin_preset(synth, id, Int32(preset.bank), Int32(preset.program))
        }
        guard pinned == FLUID_OK, let font = fluid_synth_get_sfont_by_id(synth, id),
              let real = fluid_sfont_get_preset(font, Int32(preset.bank), Int32(preset.program)) else {
            _ = SoundFontLoadLog.capturing { fluid_synth_sfunload(synth, id, 0) }
            subset.retire()
            state.lastFailure = pinError ?? "FluidSynth could not read its samples"
            return nil
        }
        state.subsets[index] = subset
        state.fontIDs[index] = id
        return real
    }

    /// Frees the preset at `index`, which the audio thread has let go
    /// (`beginRetiring`): its cut font is unloaded from the loader synth,
    /// zones and samples with it, and the preset is absent again (a later
    /// program change reads it anew). Nothing for a preset in any other state.
    /// - Realtime: unsafe (frees, locks). Loader thread.
    public func unload(_ index: Int) {
        precondition(presets.indices.contains(index))
        loads.withLock { state in
            guard residency(index) == .retiring else { return }
            free(index, state: &state)
        }
    }

    /// `unload`'s work, under `loads`.
    /// - Realtime: unsafe (frees). Loader or control thread.
    private func free(_ index: Int, state: inout Loads) {
        if let id = state.fontIDs.removeValue(forKey: index) {
            // No voice holds its samples (the audio thread let go with none sounding), so FluidSynth frees at once.
            _ = SoundFontLoadLog.capturing { fluid_synth_sfunload(synth, id, 0) }
        }
        state.subsets.removeValue(forKey: index)?.retire()
        realPresets[index] = nil
        noteOns[index] = nil
        state.totals.presets -= 1
        state.totals.unloaded += 1
        states[index].store(Residency.absent.rawValue, ordering: .releasing)
    }


    /// Marks the preset at `index` as never to be unloaded: a song's, read before it plays.
    /// - Thread: any
    public func keep(_ index: Int) {
        kept[index].store(true, ordering: .relaxed)
    }

    /// What the loads so far took.
    /// - Realtime: unsafe (may wait for a load). Control thread.
    public var totals: Totals { loads.withLock { $0.totals } }

    /// What FluidSynth said when a preset last failed to load, if it said anything.
    /// - Realtime: unsafe (may wait for a load). Control thread.
    public var lastFailure: String? { loads.withLock { $0.lastFailure } }

    /// Claims the freeing of idle presets for one playing synth: freeing
    /// rests on that synth's silence (no voice, so none holds a sample), which
    /// says nothing of a second synth's voices. True for the first caller only.
    /// - Thread: control
    func claimFreeing() -> Bool {
        !freeingClaimed.exchange(true, ordering: .relaxed)
    }

    /// The resident presets, by bank and program.
    /// - Thread: any
    public var residentPresets: [SoundFontPreset] {
        presets.indices.filter { residency($0) == .resident }.map { presets[$0] }
    }

    // MARK: Audio thread

    /// Where the preset at `index`'s samples are.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    @inline(__always)
    public func residency(_ index: Int) -> Residency {
        Residency(rawValue: states[index].load(ordering: .acquiring)) ?? .absent
    }

    /// Marks the preset at `index` as asked for, if nobody asked before.
    /// - Returns: true for the caller that should queue the load.
    /// - Thread: audio (or any)
    /// - Realtime: safe (a compare-and-exchange)
    func claimRequest(_ index: Int) -> Bool {
        states[index].compareExchange(expected: Residency.absent.rawValue, desired: Residency.requested.rawValue,
                                      ordering: .relaxed).exchanged
    }

    /// Lets the preset at `index` go: resident, not kept, and presets can be
    /// unloaded. The caller (the audio thread of the one synth that plays
    /// these presets) has checked that no channel selects it and no voice
    /// sounds, and queues `unload` to the loader when this returns true.
    /// - Thread: audio
    /// - Realtime: safe (atomics)
    func beginRetiring(_ index: Int) -> Bool {
        guard loadsPresetsAlone, !kept[index].load(ordering: .relaxed) else { return false }
        return states[index].compareExchange(expected: Residency.resident.rawValue, desired: Residency.retiring.rawValue,
                                             ordering: .acquiringAndReleasing).exchanged
    }

    /// Takes a retirement back (the loader's queue was full): the preset stays resident.
    /// - Thread: audio
    /// - Realtime: safe
    func cancelRetiring(_ index: Int) {
        _ = states[index].compareExchange(expected: Residency.retiring.rawValue, desired: Residency.resident.rawValue,
                                          ordering: .acquiringAndReleasing)
    }

    /// Gives a request back (its queue was full), so that a later note asks again.
    /// - Thread: audio
    /// - Realtime: safe
    func withdrawRequest(_ index: Int) {
        _ = states[index].compareExchange(expected: Residency.requested.rawValue, desired: Residency.absent.rawValue,
                                          ordering: .relaxed)
    }

    /// Plays a note-on with the real preset at `index` on `synth`, which
    /// calls it from its own note-on (a `PresetProxyFont` preset's); nothing
    /// when the preset is not resident.
    /// - Thread: audio (inside FluidSynth's note-on)
    /// - Realtime: safe (FluidSynth's preset note-on allocates voices from its preallocated pool)
    @inline(__always)
    func noteOn(_ index: Int, synth: OpaquePointer?, channel: Int32, key: Int32, velocity: Int32) -> Int32 {
        guard states[index].load(ordering: .acquiring) == Residency.resident.rawValue,
              let noteOn = noteOns[index], let real = realPresets[index] else { return FLUID_OK }
        return noteOn(real, synth, channel, key, velocity)
    }

    // MARK: Memory

    /// The process's resident set now (VmRSS, from /proc/self/statm), in bytes; 0 where unreadable.
    /// - Realtime: unsafe (file I/O). Control or loader thread.
    public static func residentSetBytes() -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 127) }
        guard count > 0 else { return 0 }
        // "size resident shared …", in pages.
        let fields = bytes[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private func monotonicNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
