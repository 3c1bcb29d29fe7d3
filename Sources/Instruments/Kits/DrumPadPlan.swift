/// A pad between loading and laying out: the manifest's settings with the
/// samples that loaded (indices into the kit's sample list). Control thread.
struct DrumPadPlan {
    struct Layer {
        var velocities: ClosedRange<Int>
        var sampleIndices: [Int]
        /// Linear gain of the layer.
        var gain: Double = 1
    }

    var note: UInt8
    var notes: [UInt8]
    var name: String
    var chokeGroup: String?
    var gainDB: Double
    var pan: Double
    var voiceCount: Int
    var stopsOnNoteOff: Bool
    /// The layers that loaded, in manifest order.
    var layers: [Layer]
    /// Velocity ranges of layers whose samples all failed: they play the nearest layer that loaded.
    var lostRanges: [ClosedRange<Int>]

    /// For velocities 1…127, the index into `layers` that plays it, or −1 (a deliberate gap: silent).
    /// Index 0 (velocity 0, a note-off) is always −1.
    func layerTable() -> [Int] {
        var table = [Int](repeating: -1, count: 128)
        for (index, layer) in layers.enumerated() {
            for velocity in layer.velocities { table[velocity] = index }
        }
        for range in lostRanges {
            for velocity in range {
                // Nearest loaded layer by velocity distance; on a tie the louder one.
                var best = -1, bestDistance = Int.max
                for (index, layer) in layers.enumerated() {
                    let distance = velocity < layer.velocities.lowerBound ? layer.velocities.lowerBound - velocity
                        : max(0, velocity - layer.velocities.upperBound)
                    if distance < bestDistance || (distance == bestDistance && best >= 0 && layer.velocities.lowerBound > layers[best].velocities.lowerBound) {
                        best = index
                        bestDistance = distance
                    }
                }
                table[velocity] = best
            }
        }
        return table
    }
}
