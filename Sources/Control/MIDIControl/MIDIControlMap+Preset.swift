/// The MIDI control mapping in a preset: the `[midi]` section's entries.
extension MIDIControlMap {
    /// The mapping a preset's `[midi]` section holds: the defaults when the
    /// file has no `[midi]`, else exactly its lines (an empty section binds nothing).
    /// - Throws: the first bad line, as the preset reader reports lines.
    public init(preset entries: [PresetEntry]?) throws(PresetLineError) {
        guard let entries else {
            self = .defaults
            return
        }
        do {
            try self.init(entries: entries.map { ($0.key, $0.value, $0.line) })
        } catch {
            throw PresetLineError(line: error.line ?? 0, message: error.message)
        }
    }

    /// The `[midi]` entries to save, one binding each, CCs first.
    public var presetEntries: [PresetEntry] {
        entries.map { PresetEntry($0.key, $0.value) }
    }
}
