import AudioFiles
import Foundation

extension DrumKit {
    /// Loads the kit described by the manifest at `manifestPath`: decodes
    /// every sample once (a file used by several layers is decoded once),
    /// converts it to `sampleRate`, and lays out the pads and voice pool.
    ///
    /// A missing or unreadable sample does not stop the kit: the sample is
    /// left out and the problem recorded in `problems` (naming the file and
    /// what the kit does instead: the layer alternates its other samples, or
    /// its velocities play the nearest layer, or the pad is skipped). Only a
    /// bad manifest, or a kit in which nothing loads, is an error.
    ///
    /// - Realtime: unsafe (file I/O, allocates). Loader or control thread; it
    ///   takes as long as decoding the samples does.
    public static func load(manifestAt manifestPath: String, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        let manifest: KitManifest
        do {
            manifest = try KitManifest.load(path: manifestPath)
        } catch {
            throw .manifest(error)
        }
        return try load(manifest, manifestPath: manifestPath, sampleRate: sampleRate)
    }

    /// Loads the samples of a decoded (so checked) `manifest`; relative
    /// sample paths are taken from `manifestPath`'s folder.
    /// - Realtime: unsafe (file I/O, allocates).
    static func load(_ manifest: KitManifest, manifestPath: String, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        precondition(sampleRate > 0, "sample rate must be positive")
        let folder = URL(fileURLWithPath: manifestPath).deletingLastPathComponent()
        let rate = Int(sampleRate.rounded())
        var decoder = DrumSampleDecoder(sampleRate: rate, folder: folder.path)
        var plans: [DrumPadPlan] = []
        var problems: [DrumKitProblem] = []

        for pad in manifest.pads {
            var layers: [DrumPadPlan.Layer] = []
            var lost: [ClosedRange<Int>] = []
            var failures: [(file: String, error: String, layerLost: ClosedRange<Int>?)] = []
            for layer in pad.layers {
                var indices: [Int] = []
                var layerFailures: [(file: String, error: String)] = []
                for file in layer.samples {
                    let path = file.hasPrefix("/") ? file : folder.appendingPathComponent(file).path
                    switch decoder.buffer(name: file) {
                    case let .success(index): indices.append(index)
                    case let .failure(error): layerFailures.append((path, error.description))
                    }
                }
                if indices.isEmpty {
                    lost.append(layer.velocities)
                } else {
                    layers.append(DrumPadPlan.Layer(velocities: layer.velocities, sampleIndices: indices))
                }
                failures += layerFailures.map { ($0.file, $0.error, indices.isEmpty ? layer.velocities : nil) }
            }
            let note = UInt8(pad.note)
            for failure in failures {
                let effect: DrumKitProblem.Effect
                if layers.isEmpty {
                    effect = .padSkipped
                } else if let range = failure.layerLost {
                    effect = .layerPlaysNearest(velocities: range)
                } else {
                    effect = .sampleSkipped
                }
                problems.append(DrumKitProblem(padName: pad.name, note: note, file: failure.file, error: failure.error, effect: effect))
            }
            guard !layers.isEmpty else { continue }
            plans.append(DrumPadPlan(
                note: note, notes: pad.allNotes.map { UInt8($0) }, name: pad.name, chokeGroup: pad.chokeGroup,
                gainDB: pad.gainDB, pan: pad.pan, voiceCount: pad.voices, stopsOnNoteOff: pad.stopsOnNoteOff,
                layers: layers, lostRanges: lost))
        }
        guard !plans.isEmpty else { throw .nothingLoaded(manifestPath: manifestPath, problems: problems) }
        return DrumKit(name: manifest.name, manifestPath: manifestPath, sampleRate: sampleRate,
                       sampleBuffers: decoder.buffers, plans: plans, problems: problems)
    }
}
