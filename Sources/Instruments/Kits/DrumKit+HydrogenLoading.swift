import Foundation

extension DrumKit {
    /// Loads a Hydrogen drum kit from its folder (the one holding
    /// `drumkit.xml`): each instrument becomes a pad, on the notes
    /// `HydrogenNoteMap` gives it; its layers become velocity layers (the
    /// first layer whose range holds a velocity plays it, as in Hydrogen;
    /// velocities no layer holds play the nearest); instrument volume × gain
    /// is the pad's gain, a layer's gain multiplies it; layer and instrument
    /// pitch shift the sample at load; pan, and mute groups as choke groups.
    /// Samples are decoded and resampled as for a manifest kit.
    ///
    /// A sample that fails or an element that cannot be read does not stop
    /// the kit: `problems` says what was skipped. Only an unreadable
    /// `drumkit.xml`, or a kit in which no sample loads, is an error.
    ///
    /// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
    public static func load(hydrogenKitAt folder: String, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        try load(HydrogenKit.load(folder: folder), sampleRate: sampleRate)
    }

    /// Loads the samples of a read `kit`.
    /// - Realtime: unsafe (file I/O, allocates).
    public static func load(_ kit: HydrogenKit, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        precondition(sampleRate > 0, "sample rate must be positive")
        let folder = URL(fileURLWithPath: kit.folder)
        var decoder = DrumSampleDecoder(sampleRate: Int(sampleRate.rounded()), folder: kit.folder)
        let notes = HydrogenNoteMap.notes(for: kit.instruments)
        var plans: [DrumPadPlan] = []
        var problems: [DrumKitProblem] = []

        for issue in kit.issues {
            let instrument = kit.instruments[issue.instrument]
            problems.append(DrumKitProblem(
                padName: instrument.name, note: notes[issue.instrument].first ?? 0, file: kit.path,
                error: "\(HydrogenKit.fileName) line \(issue.line): \(issue.reason)", effect: .elementSkipped(action: issue.action)))
        }
        for (index, instrument) in kit.instruments.enumerated() where !instrument.layers.isEmpty {
            guard let note = notes[index].first else {
                problems.append(DrumKitProblem(padName: instrument.name, note: 0, file: kit.path,
                                               error: "no MIDI note left for instrument \(index + 1)", effect: .padSkipped))
                continue
            }
            // Decode each layer's sample.
            var sampleOfLayer: [Int?] = []
            var failures: [(layer: Int, file: String, error: String)] = []
            for (layerIndex, layer) in instrument.layers.enumerated() {
                let path = layer.file.hasPrefix("/") ? layer.file : folder.appendingPathComponent(layer.file).path
                switch decoder.buffer(name: layer.file, semitones: instrument.pitch + layer.pitch) {
                case let .success(sample): sampleOfLayer.append(sample)
                case let .failure(error):
                    sampleOfLayer.append(nil)
                    failures.append((layerIndex, path, error.description))
                }
            }
            // Each velocity goes to the first layer that holds it; runs of one layer become a plan layer.
            var layerOfVelocity = [Int](repeating: -1, count: 128)
            for velocity in 1...127 {
                layerOfVelocity[velocity] = instrument.layers.firstIndex { $0.answers(velocity: velocity) } ?? -1
            }
            var layers: [DrumPadPlan.Layer] = []
            var lost: [ClosedRange<Int>] = []
            var start = 1
            for velocity in 1...128 where velocity == 128 || layerOfVelocity[velocity] != layerOfVelocity[start] {
                let owner = layerOfVelocity[start]
                if owner >= 0, let sample = sampleOfLayer[owner] {
                    layers.append(DrumPadPlan.Layer(velocities: start...(velocity - 1), sampleIndices: [sample],
                                                    gain: instrument.layers[owner].gain))
                } else {
                    lost.append(start...(velocity - 1))
                }
                start = velocity
            }
            for failure in failures {
                let effect: DrumKitProblem.Effect
                if layers.isEmpty {
                    effect = .padSkipped
                } else {
                    let own = (1...127).filter { layerOfVelocity[$0] == failure.layer }
                    effect = own.isEmpty ? .elementSkipped(action: "layer skipped (no velocity reaches it)")
                        : .layerPlaysNearest(velocities: own.first!...own.last!)
                }
                problems.append(DrumKitProblem(padName: instrument.name, note: note, file: failure.file,
                                               error: failure.error, effect: effect))
            }
            guard !layers.isEmpty else { continue }
            plans.append(DrumPadPlan(
                note: note, notes: notes[index], name: instrument.name,
                chokeGroup: instrument.muteGroup.map { "mute group \($0)" },
                gainDB: instrument.gain > 0 ? max(-144, 20 * log10(instrument.gain)) : -144, pan: instrument.pan,
                voiceCount: KitManifestPad.defaultVoices, stopsOnNoteOff: instrument.stopsOnNoteOff,
                layers: layers, lostRanges: lost))
        }
        guard !plans.isEmpty else { throw .nothingLoaded(manifestPath: kit.path, problems: problems) }
        return DrumKit(name: kit.name, manifestPath: kit.path, sampleRate: sampleRate,
                       sampleBuffers: decoder.buffers, plans: plans, problems: problems)
    }
}
