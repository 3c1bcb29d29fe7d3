/// What a `SequencerMIDIInput` is doing, for the TUI: a snapshot the
/// sequencer thread publishes after each batch of events.
public struct SequencerInputStatus: Equatable, Sendable, CustomStringConvertible {
    public enum State: Equatable, Sendable, CustomStringConvertible {
        case notStarted
        case running
        /// `stop()` ended it; every source's notes were released.
        case stopped
        /// Reading the sequencer failed; every source's notes were released.
        case failed(SequencerError)

        public var description: String {
            switch self {
            case .notStarted: "not started"
            case .running: "running"
            case .stopped: "stopped"
            case .failed(let error): "failed: \(error)"
            }
        }
    }

    public var state: State = .notStarted
    /// Busker's port ("128:0"), where sources are connected.
    public var address: SequencerAddress
    /// `auto` or the `CLIENT:PORT` given.
    public var selection: String
    /// The sources connected to Busker's port (by Busker or by `aconnect`) that are still there.
    public var connectedSources: [SequencerPortDescription] = []
    /// For each port of the pool, the source playing through it now (nil: free).
    public var sourcesBySlot: [SequencerAddress?] = []
    public var counters = SequencerEventRouter.Counters()
    /// Times the kernel's input queue overflowed and dropped events.
    public var inputOverruns = 0
    /// The last thing that went wrong without stopping the input (a subscription refused).
    public var lastProblem: String?

    public init(address: SequencerAddress, selection: String) {
        self.address = address
        self.selection = selection
    }

    public var description: String {
        let sources = connectedSources.isEmpty ? "no source connected" : connectedSources.map(\.description).joined(separator: ", ")
        return "ALSA sequencer \(address) (\(selection)): \(state); \(sources); \(counters.messagesForwarded) messages"
    }
}
