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
    /// The mic's strips with the player's instruments and a song (`busker live --instrument`).
    case stage(StageChain)

    /// The live chain, when the mic is in it (live or the stage).
    public var live: LiveChain? {
        switch self {
        case let .live(chain): chain
        case let .stage(stage): stage.live
        default: nil
        }
    }

    public var graph: AudioGraph {
        switch self {
        case let .live(chain): chain.graph
        case let .instruments(rig): rig.chain.graph
        case let .capture(graph): graph
        case let .stage(stage): stage.live.graph
        }
    }

    /// Frames the chain adds (the limiter's look-ahead, the strips' clean-up).
    public var latencyFrames: Int {
        switch self {
        case let .live(chain): chain.latencyFrames
        case let .instruments(rig): rig.chain.latencyFrames
        case .capture: 0
        case let .stage(stage): stage.live.latencyFrames
        }
    }

    /// The channels the chain's output carries (what a take of it holds).
    public var outputChannels: Int {
        switch self {
        case let .live(chain): chain.master.outputChannels
        case .instruments: 2
        case let .capture(graph): graph.inputChannelCount
        case let .stage(stage): stage.live.master.outputChannels
        }
    }

    /// The scheduler of what the player plays, when instruments play: its
    /// events are the MIDI take's.
    public var scheduler: MIDIScheduler? {
        switch self {
        case let .instruments(rig): rig.scheduler
        case let .stage(stage): stage.keys.scheduler
        default: nil
        }
    }

    /// What the engine tells of every cycle: every scheduler the chain has.
    public var cycleObserver: (any RenderCycleObserver)? {
        switch self {
        case let .instruments(rig): rig.scheduler
        case let .stage(stage): stage.cycleObserver
        default: nil
        }
    }

    /// Frees what the audio thread has retired from the instruments. Control loop.
    public func collectRetired() {
        switch self {
        case let .instruments(rig): rig.collectRetired()
        case let .stage(stage): stage.collectRetired()
        default: break
        }
    }

    /// - Thread: control
    /// - Realtime: unsafe (compiles and allocates)
    public func compile(spec: ProcessSpec) throws -> RenderPlan {
        try graph.compile(spec: spec)
    }
}
