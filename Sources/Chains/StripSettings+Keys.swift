extension StripSettings {
    /// A strip control by the name the command line (`--strip N:key=value`)
    /// and presets use. The names are the global options' own (`--gain`,
    /// `--gate`…), so one word means one control everywhere.
    public enum Key: String, CaseIterable, Sendable {
        // In the order the command line prints them; a switch comes before the value it enables.
        case gain, pan, mute
        case highPass = "high-pass"
        case gate
        case gateThreshold = "gate-threshold"
        case compressor, makeup
        case voiceProcessing = "voice-processing"
        case bass, treble, boost, reverb

        /// A control's value: a number, or on/off.
        public enum Value: Equatable, Sendable {
            case number(Float)
            case flag(Bool)

            /// `on`/`off`, or the shortest decimal that reads back as the same Float.
            public var text: String {
                switch self {
                case let .flag(on): on ? "on" : "off"
                case let .number(x): Self.text(x)
                }
            }

            /// A Float as the shortest text that parses back to it exactly (`6`, `-0.5`, `0.3`).
            public static func text(_ x: Float) -> String {
                x == x.rounded() && abs(x) < 1e6 ? String(Int(x)) : "\(x)"
            }
        }

        /// Whether the control is on/off rather than a number.
        public var isFlag: Bool {
            switch self {
            case .mute, .gate, .compressor, .voiceProcessing: true
            default: false
            }
        }

        /// The switch a value needs on the command line's global form
        /// (`--gate-threshold` goes with `--gate`), if any.
        public var globalRequires: Key? {
            switch self {
            case .gateThreshold: .gate
            case .makeup: .compressor
            default: nil
            }
        }

        /// Whether a global option sets it on every strip (`--gain`, `--gate`); mute has none.
        public var hasGlobalOption: Bool { self != .mute }

        public func value(in strip: StripSettings) -> Value {
            switch self {
            case .gain: .number(strip.gainDB)
            case .pan: .number(strip.pan)
            case .mute: .flag(strip.mute)
            case .highPass: .number(strip.highPassHz)
            case .gate: .flag(strip.noiseGate)
            case .gateThreshold: .number(strip.gateThresholdDB)
            case .compressor: .flag(strip.compressor)
            case .makeup: .number(strip.compressorMakeupDB)
            case .voiceProcessing: .flag(strip.voiceProcessing)
            case .bass: .number(strip.bassDB)
            case .treble: .number(strip.trebleDB)
            case .boost: .number(strip.boostDB)
            case .reverb: .number(strip.reverbSendPercent)
            }
        }

        /// Sets the control; a value of the wrong kind is ignored.
        public func set(_ value: Value, in strip: inout StripSettings) {
            switch (self, value) {
            case let (.gain, .number(x)): strip.gainDB = x
            case let (.pan, .number(x)): strip.pan = x
            case let (.mute, .flag(on)): strip.mute = on
            case let (.highPass, .number(x)): strip.highPassHz = x
            case let (.gate, .flag(on)): strip.noiseGate = on
            case let (.gateThreshold, .number(x)): strip.gateThresholdDB = x
            case let (.compressor, .flag(on)): strip.compressor = on
            case let (.makeup, .number(x)): strip.compressorMakeupDB = x
            case let (.voiceProcessing, .flag(on)): strip.voiceProcessing = on
            case let (.bass, .number(x)): strip.bassDB = x
            case let (.treble, .number(x)): strip.trebleDB = x
            case let (.boost, .number(x)): strip.boostDB = x
            case let (.reverb, .number(x)): strip.reverbSendPercent = x
            default: break
            }
        }

        /// Reads `text` as this control's value: `on`/`off` for a switch, a number otherwise.
        /// - Throws: `ChainError.stripValue` (its description says what it takes).
        public func parse(_ text: String) throws(ChainError) -> Value {
            if isFlag {
                switch text.lowercased() {
                case "on": return .flag(true)
                case "off": return .flag(false)
                default: throw .stripValue(key: self, text: text)
                }
            }
            let cleaned = text.hasPrefix("+") ? String(text.dropFirst()) : text
            guard let x = Float(cleaned), x.isFinite else {
                throw .stripValue(key: self, text: text)
            }
            return .number(x)
        }
    }
}
