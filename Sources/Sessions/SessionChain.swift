import Chains
import Engine
import Sequencing

/// The graph a session built from its sources, for the format the driver granted.
public enum SessionChain {
    /// The mic's strips and the live bus (`busker live`).
    case live(LiveChain)
    /// The instruments, their scheduler and bus (`busker play`).
    case instruments(InstrumentRig)
    /// The input as it is (`busker record`).
    case capture(AudioGraph)

    public var graph: AudioGraph {
        switch self {
        case let .live(chain): chain.graph
        case let .instruments(rig): rig.chain.graph
        case let .capture(graph): graph
        }
    }

    /// Frames the chain adds (the limiter's look-ahead, the strips' clean-up).
    public var latencyFrames: Int {
        switch self {
        case let .live(chain): chain.latencyFrames
        case let .instruments(rig): rig.chain.latencyFrames
        case .capture: 0
        }
    }

    /// The channels the chain's output carries (what a take of it holds).
    public var outputChannels: Int {
        switch self {
        case let .live(chain): chain.master.outputChannels
        case .instruments: 2
        case let .capture(graph): graph.inputChannelCount
        }
    }

    /// The scheduler the engine drains MIDI from, when instruments play.
    public var scheduler: MIDIScheduler? {
        guard case let .instruments(rig) = self else { return nil }
        return rig.scheduler
    }

    /// - Thread: control
    /// - Realtime: unsafe (compiles and allocates)
    public func compile(spec: ProcessSpec) throws -> RenderPlan {
        try graph.compile(spec: spec)
    }
}
