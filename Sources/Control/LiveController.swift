import Chains

/// The live controls other than the keys: MIDI control (`--midi`,
/// `--midi-in`), OSC (`--osc`) and presets. Whoever runs the session polls it
/// from the control loop; it takes what the MIDI ports and the OSC receive
/// thread hold and applies it to the session (`LiveControlTarget`) as the
/// keys do, so the ramps and limits are the same. It prints nothing: the
/// lines a headless session shows come back from `poll`.
///
/// - Realtime: unsafe (allocates, reads preset files). Control thread only.
public final class LiveController {
    /// MIDI control, drained by `poll`; learn mode's state. Set before the session runs.
    public var midi: LiveMIDIControl?
    /// OSC remote control, drained by `poll`. Set before the session runs.
    public var osc: LiveOSCControl?
    /// Where presets are loaded from and saved; nil: no config folder (`presetProblem` says why).
    public var presets: PresetStore?
    public var presetProblem: String?
    /// The preset the session started with, or last loaded or saved.
    public var presetName: String?
    /// The MIDI control mapping's `[midi]` lines, for a save; nil: the preset gets no `[midi]` section.
    public var midiPresetEntries: (() -> [PresetEntry])?

    public init() {}

    /// The controls a live session starts with: MIDI control (its mapping
    /// is what a preset saves), OSC, and the preset folder and name.
    public convenience init(midi: LiveMIDIControl?, osc: LiveOSCControl?, presets: PresetStore?, presetProblem: String?,
                            presetName: String?) {
        self.init()
        self.midi = midi
        self.osc = osc
        self.presets = presets
        self.presetProblem = presetProblem
        self.presetName = presetName
        if let midi { midiPresetEntries = { midi.map.presetEntries } }
    }

    /// What MIDI and OSC did during a poll, one line an action, for a
    /// headless session to show (MIDI's lines may hold a device's text: escape
    /// them; OSC's are escaped already).
    public struct ActionLines: Equatable, Sendable {
        public var midi: [String] = []
        public var osc: [String] = []

        public init(midi: [String] = [], osc: [String] = []) {
            self.midi = midi
            self.osc = osc
        }
    }

    /// Takes every waiting MIDI message, then every OSC message, and applies
    /// them to `target`.
    /// - Returns: the lines saying what they did.
    /// - Thread: control
    public func poll(_ target: some LiveControlTarget) -> ActionLines {
        ActionLines(midi: pollMIDI(target), osc: pollOSC(target))
    }

    /// Takes every waiting MIDI message and applies what it changed: the mic
    /// through `setMic(on:)`, the rest through `apply(_:)`.
    /// - Returns: the lines saying what MIDI did.
    /// - Thread: control
    public func pollMIDI(_ target: some LiveControlTarget) -> [String] {
        guard let midi else { return [] }
        var s = target.settings
        let changes = midi.poll(settings: &s, micOn: target.micOn)
        if changes.toggleMic { target.setMic(on: !target.micOn) }
        if changes.settingsChanged { target.apply(s) }
        return midi.takeActionLines()
    }

    /// Applies every OSC message received since the last call, in order:
    /// knobs and mutes through `apply(_:)`, the mic through `setMic(on:)`,
    /// presets through `loadPreset(named:into:)`; queries are answered to
    /// their sender.
    /// - Returns: the lines saying what OSC did.
    /// - Thread: control
    public func pollOSC(_ target: some LiveControlTarget) -> [String] {
        guard let osc else { return [] }
        for received in osc.take() {
            var s = target.settings
            switch osc.respond(to: received, settings: &s, micOn: target.micOn, presetName: presetName) {
            case .changed: target.apply(s)
            case let .mic(on): target.setMic(on: on)
            case let .loadPreset(name):
                if let why = loadPreset(named: name, into: target) { osc.presetRefused(name, because: why) }
            case let .reply(messages): osc.reply(messages, to: received)
            case .unknownAddress, .refused: break
            }
        }
        return osc.takeActionLines()
    }

    /// Loads preset `name`'s strips and bus into `target` (its MIDI mapping
    /// is left as it is); they ramp in as a key's change does.
    /// - Returns: nil when loaded, else why not (no such preset, or strips
    ///   that differ from the running session's, which need a new session).
    /// - Thread: control
    public func loadPreset(named name: String, into target: some LiveControlTarget) -> String? {
        guard let presets else { return presetProblem ?? "no folder for presets" }
        let preset: LivePreset
        do {
            preset = try presets.load(name)
        } catch {
            return error.description
        }
        guard target.apply(preset.settings) else { return "its strips differ from this session's (start busker live --preset \(name))" }
        presetName = name
        return nil
    }
}
