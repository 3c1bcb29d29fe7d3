import Engine

/// Lays its input buses side by side: bus 0's channels first, then bus 1's,
/// and so on (a mono bus takes one channel, a stereo bus two). What puts a
/// chain's main output and its direct outs into one block for a driver with
/// that many ports.
public final class ChannelMergeNode: AudioNode {
    public let busCount: Int

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// Per bus: its channel count and its first output channel.
    private let counts: UnsafeMutablePointer<Int>
    private let offsets: UnsafeMutablePointer<Int>

    /// - Realtime: unsafe (allocates). Control thread only.
    public init(name: String = "merge", busCount: Int) {
        precondition(busCount > 0, "a merge has at least one bus")
        self.busCount = busCount
        counts = .allocate(capacity: busCount)
        counts.initialize(repeating: 0, count: busCount)
        offsets = .allocate(capacity: busCount)
        offsets.initialize(repeating: 0, count: busCount)
        super.init(name: name)
    }

    deinit {
        counts.deallocate()
        offsets.deallocate()
    }

    public override var inputBusCount: Int { busCount }

    /// The sum of the buses' channels. Control thread.
    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int {
        max(1, inputChannelCounts.prefix(busCount).reduce(0) { $0 + max(1, $1) })
    }

    /// - Realtime: unsafe. Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        var next = 0
        for b in 0..<busCount {
            let count = b < inputChannelCounts.count ? max(1, inputChannelCounts[b]) : 1
            counts[b] = count
            offsets[b] = next
            next += count
        }
    }

    // MARK: Audio thread

    /// Each bus's channels into its own output channels; a missing one is silence.
    /// - Thread: audio
    /// - Realtime: safe (copies; checked by the compiler with `@_noLocks`)
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        for b in 0..<busCount {
            let bus: AudioBlock? = b < inputs.count && inputs[b].channelCount > 0 ? inputs[b] : nil
            for c in 0..<counts[b] where offsets[b] + c < output.channelCount {
                let destination = output.channels[offsets[b] + c]
                if let bus, c < bus.channelCount {
                    let source = bus.channels[c]
                    for i in 0..<frames { destination[i] = source[i] }
                } else {
                    for i in 0..<frames { destination[i] = 0 }
                }
            }
        }
    }
}
