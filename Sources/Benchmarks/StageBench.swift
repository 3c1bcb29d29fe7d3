import Chains
import Engine
import Foundation

/// `busker bench --stage`: what the whole stage (`BenchStage`) costs on this
/// machine, against issue 27's goals.
///
/// The stage renders `seconds` of audio in `period`-frame blocks at 48 kHz on
/// a thread named `audio-render` (SCHED_FIFO when the system grants it), one
/// block per period of real time as a sound card asks for them: between
/// blocks the thread sleeps, so other work can take its caches as it would
/// on stage. The mic strips get a voice on both inputs. Printed:
/// - the average DSP load: the thread's CPU time against the audio time (%
///   of one core), and the mean block's wall time against its period (% of
///   the block's budget);
/// - the worst block and the 99.9th percentile, in % of the budget, with the
///   worst block's CPU time and the most CPU time any block took (a worst
///   block far above its CPU time is one the thread waited in: the host);
/// - the sampler voices sounding (keys and song, mean and most) and the
///   kit's hits, and the cost of one sampler voice, two ways: the slope of
///   the least-squares line through every block's CPU time against the
///   voices sounding in it (one run: the machine's other load falls on all
///   voice counts alike), and the same stage rendered again without the held
///   chord, the CPU time per block between the two runs over the keys'
///   voices between them (two runs: the load may differ between them);
/// - private memory (RssAnon + RssFile) with the stage built and played.
/// Each figure against its goal: average under 10 % of one core, worst block
/// under 50 % of its budget, memory under 120 MB.
public enum StageBench {
    /// What `busker bench --stage` asks for (see its help).
    public struct Options {
        public var seconds = 20
        public var period = 64
        public var soundFont: String?
        public var kit: String?
        /// Each sampler's voices (nil: the default, 256).
        public var polyphony: Int?
        /// Also render the stage with nothing playing and with the keys alone:
        /// what the mic's chain and the idle parts, the keys and kit, and the song each cost.
        public var partCosts = false
        public init() {}
    }

    /// Issue 27's goals on this machine.
    public static let averageGoalPercent = 10.0
    public static let worstBlockGoalPercent = 50.0
    public static let memoryGoalBytes = 120 * 1_048_576
    /// The render thread's SCHED_FIFO priority, as the ALSA driver's default.
    static let realtimePriority: Int32 = 70

    /// - Parameter say: where each line of the report goes (the command prints it).
    /// - Throws: `ChainError` for a SoundFont or kit that cannot be read; `GraphError` (a wiring mistake).
    /// - Thread: control (it starts and joins the render thread)
    /// - Realtime: unsafe
    public static func run(_ options: Options, say: (String) -> Void) throws {
        let rate = 48000, period = options.period
        let budget = Double(period) / Double(rate)
        let voice = ChainBench.voice(rate: rate)
        let before = PrivateMemory.current()

        let full: Measurement
        let memory: PrivateMemory?
        do {
            let stage = try BenchStage(sampleRate: rate, chord: true, soundFont: options.soundFont, kit: options.kit, polyphony: options.polyphony)
            say("stage: 2 mic strips (every stage on, reverb send 30 %), howl guard; keys with a 16-note chord held "
                + "and a running part in 16ths, drums in 16ths on channel 10; a 16-channel General MIDI song; "
                + "parts' reverb and chorus, limiter")
            say("  \(stage.summary)")
            full = try measure(stage, voice: voice, seconds: options.seconds, period: period)
            memory = PrivateMemory.current()
        }
        // The same stage without the chord: what the chord's voices cost.
        let plain = try measure(BenchStage(sampleRate: rate, chord: false, soundFont: options.soundFont, kit: options.kit, polyphony: options.polyphony),
                                voice: voice, seconds: options.seconds, period: period)

        say(String(format: "%d-frame blocks at %d Hz (budget %.0f µs), %d blocks (%d s), one a period, thread %@, %@",
                   period, rate, budget * 1e6, full.blocks, options.seconds, full.threadName, full.scheduling))
        let averageCore = full.cpuSeconds / full.audioSeconds * 100
        let averageBudget = full.meanBlock / budget * 100
        say(String(format: "average DSP load: %.1f %% of one core (thread CPU time); mean block %.1f µs = %.1f %% of its budget; goal under %.0f %%: %@",
                   averageCore, full.meanBlock * 1e6, averageBudget, averageGoalPercent, verdict(averageCore < averageGoalPercent)))
        let worst = full.worstBlock / budget * 100
        say(String(format: "worst block: %.1f µs = %.1f %% of its budget (block %d, at %.2f s, %.1f µs of it CPU time); 99.9th percentile %.1f %%; goal under %.0f %%: %@",
                   full.worstBlock * 1e6, worst, full.worstBlockIndex, Double(full.worstBlockIndex * period) / Double(rate),
                   full.worstBlockCPU * 1e6, full.p999Block / budget * 100, worstBlockGoalPercent,
                   verdict(worst < worstBlockGoalPercent)))
        say(String(format: "  the most CPU time a block took: %.1f µs = %.1f %% of its budget (the rest of a worse block is time the thread was not running)",
                   full.mostBlockCPU * 1e6, full.mostBlockCPU / budget * 100))
        say(String(format: "sampler voices: keys mean %.1f (most %d), song mean %.1f (most %d); kit hits most %d",
                   full.keysVoices.mean, full.keysVoices.most, full.songVoices.mean, full.songVoices.most, full.drumVoicesMost))
        say(String(format: "cost per sampler voice: %.2f µs a block = %.3f %% of one core (the slope of every block's CPU time against its voices)",
                   full.cpuPerVoice * 1e6, full.cpuPerVoice / budget * 100))
        let voiceDifference = full.keysVoices.mean - plain.keysVoices.mean
        let cpuDifference = (full.cpuSeconds / Double(full.blocks) - plain.cpuSeconds / Double(plain.blocks))
        if voiceDifference >= 1 {
            let perVoice = cpuDifference / voiceDifference
            say(String(format: "  against a run without the chord: %.2f µs a block = %.3f %% of one core (%.1f µs CPU a block with the chord, %.1f without; %.1f voices between)",
                       perVoice * 1e6, perVoice / budget * 100, full.cpuSeconds / Double(full.blocks) * 1e6,
                       plain.cpuSeconds / Double(plain.blocks) * 1e6, voiceDifference))
        } else {
            say(String(format: "  against a run without the chord: not measured (the chord added %.1f voices)", voiceDifference))
        }
        if options.partCosts {
            try reportPartCosts(options, full: full, voice: voice, rate: rate, say: say)
        }
        if let memory {
            let stageShare = before.map { " (the stage built and played: \(PrivateMemory.megabytes(memory.total - $0.total)) MB)" } ?? ""
            say("private memory: \(PrivateMemory.megabytes(memory.total)) MB = RssAnon \(PrivateMemory.megabytes(memory.anonymous))"
                + " + RssFile \(PrivateMemory.megabytes(memory.file))\(stageShare); goal under "
                + "\(memoryGoalBytes / 1_048_576) MB: \(verdict(memory.total < memoryGoalBytes))")
        } else {
            say("private memory: not measured (/proc/self/status has no RssAnon or RssFile)")
        }
    }

    /// The stage again with nothing playing, then with the keyboard's part
    /// alone: the CPU each adds, against the full stage's.
    static func reportPartCosts(_ options: Options, full: Measurement, voice: [Float], rate: Int, say: (String) -> Void) throws {
        func load(_ m: Measurement) -> Double { m.cpuSeconds / m.audioSeconds * 100 }
        let idle = try measure(BenchStage(sampleRate: rate, soundFont: options.soundFont, kit: options.kit, polyphony: options.polyphony), voice: voice,
                               seconds: options.seconds, period: options.period, keys: false, song: false)
        let keys = try measure(BenchStage(sampleRate: rate, soundFont: options.soundFont, kit: options.kit, polyphony: options.polyphony), voice: voice,
                               seconds: options.seconds, period: options.period, keys: true, song: false)
        say("where the time goes (% of one core, thread CPU time, each a run of its own):")
        say(String(format: "  the mic's strips, reverbs, guard, limiter, samplers and kit idle: %.1f %%", load(idle)))
        say(String(format: "  + keys and kit playing: +%.1f %% (keys mean %.1f voices)", load(keys) - load(idle), keys.keysVoices.mean))
        say(String(format: "  + the song playing: +%.1f %% (song mean %.1f voices); the whole stage %.1f %%",
                   load(full) - load(keys), full.songVoices.mean, load(full)))
    }

    static func verdict(_ met: Bool) -> String { met ? "met" : "MISSED" }

    /// What one render of the stage measured.
    struct Measurement {
        var blocks: Int
        var audioSeconds: Double
        /// The render thread's CPU time over the whole run.
        var cpuSeconds: Double
        /// Wall time of `engine.render`, per block.
        var meanBlock: Double
        var worstBlock: Double
        /// Which block it was (0 the first), and when in the run.
        var worstBlockIndex: Int
        /// The render thread's CPU time in that block: far less than its wall
        /// time means the thread waited (preempted, a page fault), not worked.
        var worstBlockCPU: Double
        /// The most CPU time any block took.
        var mostBlockCPU: Double
        /// The slope of the least-squares line through every block's CPU time
        /// against the sampler voices (keys and song) sounding in it: seconds a voice.
        var cpuPerVoice: Double
        var p999Block: Double
        var keysVoices: (mean: Double, most: Int)
        var songVoices: (mean: Double, most: Int)
        var drumVoicesMost: Int
        var threadName: String
        /// "SCHED_FIFO 70", or why not.
        var scheduling: String
    }

    /// Renders `stage` for `seconds` in `period`-frame blocks on an `audio-render`
    /// thread, one block a period, timing every block and counting voices.
    /// - Thread: control, audio (the block loop runs on an `audio-render` thread it starts and joins)
    /// - Realtime: unsafe (allocates and starts a thread; on the audio thread, before the first
    ///   block, it asks for SCHED_FIFO and reads the thread's name; between blocks it sleeps)
    static func measure(_ stage: BenchStage, voice: [Float], seconds: Int, period: Int, keys: Bool = true,
                        song: Bool = true) throws -> Measurement {
        let engine = RenderEngine()
        try stage.install(in: engine, period: period, keys: keys, song: song)
        defer { engine.releaseAll() }
        let rate = stage.sampleRate
        let blocks = max(1, seconds * rate / period)
        // The mic's two inputs: the voice, looped, laid out before the thread starts.
        let loopFrames = max(1, voice.count / period) * period
        let input = AudioBuffer(channelCount: stage.inputChannelCount, capacity: loopFrames)
        for i in 0..<loopFrames {
            let v = i < voice.count ? voice[i] : 0
            input[0][i] = v
            input[1][i] = v * 0.9
        }
        let output = AudioBuffer(channelCount: 2, capacity: period)
        let times = UnsafeMutablePointer<UInt64>.allocate(capacity: blocks)
        defer { times.deallocate() }
        let cpuTimes = UnsafeMutablePointer<UInt64>.allocate(capacity: blocks)
        defer { cpuTimes.deallocate() }
        let voiceCounts = UnsafeMutablePointer<Int>.allocate(capacity: blocks)
        defer { voiceCounts.deallocate() }
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 6)
        counts.initialize(repeating: 0, count: 6)
        defer { counts.deallocate() }
        let nameBuffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 16)
        nameBuffer.initialize(repeating: 0)
        defer { nameBuffer.deallocate() }
        nonisolated(unsafe) var schedulingError: Int32 = 0
        nonisolated(unsafe) var cpuNanoseconds: UInt64 = 0
        let periodNanoseconds = UInt64(period) * 1_000_000_000 / UInt64(rate)

        let thread = RealtimeThread {
            schedulingError = RealtimeScheduling.promoteCurrentThread(priority: StageBench.realtimePriority)
            RealtimeThread.copyCurrentName(into: nameBuffer)
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
            defer { pointers.deallocate() }
            let cpuStart = ChainBench.threadCPUNanoseconds()
            var due = StageBench.monotonicNanoseconds()
            for b in 0..<blocks {
                let offset = (b * period) % loopFrames
                pointers[0] = input[0] + offset
                pointers[1] = input[1] + offset
                let block = AudioBlock(channels: UnsafePointer(pointers), channelCount: 2, frameCount: period)
                let c0 = ChainBench.threadCPUNanoseconds()
                let t0 = StageBench.monotonicNanoseconds()
                engine.render(input: block, output: output.block(frames: period))
                let t1 = StageBench.monotonicNanoseconds()
                times[b] = t1 - t0
                cpuTimes[b] = ChainBench.threadCPUNanoseconds() - c0
                let voices = stage.samplerVoices
                counts[0] += voices.keys
                counts[1] = max(counts[1], voices.keys)
                counts[2] += voices.song
                counts[3] = max(counts[3], voices.song)
                counts[4] = max(counts[4], stage.drumVoices)
                voiceCounts[b] = voices.keys + voices.song
                // The next block is due one period after this one was; a late block is not made up for.
                due += periodNanoseconds
                if due > t1 { StageBench.sleepUntil(due) } else { due = t1 }
            }
            cpuNanoseconds = ChainBench.threadCPUNanoseconds() - cpuStart
        }
        thread.join()
        let all = UnsafeMutableBufferPointer(start: times, count: blocks)
        let worstIndex = all.indices.max { all[$0] < all[$1] } ?? 0
        let sorted = all.sorted()
        let total = Double(sorted.reduce(0, +)) / 1e9
        let line = leastSquares(x: UnsafeBufferPointer(start: voiceCounts, count: blocks).map(Double.init),
                                y: UnsafeBufferPointer(start: cpuTimes, count: blocks).map { Double($0) / 1e9 })
        return Measurement(
            blocks: blocks, audioSeconds: Double(blocks * period) / Double(rate), cpuSeconds: Double(cpuNanoseconds) / 1e9,
            meanBlock: total / Double(blocks), worstBlock: Double(sorted.last ?? 0) / 1e9, worstBlockIndex: worstIndex,
            worstBlockCPU: Double(cpuTimes[worstIndex]) / 1e9,
            mostBlockCPU: Double(UnsafeMutableBufferPointer(start: cpuTimes, count: blocks).max() ?? 0) / 1e9,
            cpuPerVoice: line.slope,
            p999Block: Double(sorted[min(blocks - 1, Int(Double(blocks) * 0.999))]) / 1e9,
            keysVoices: (Double(counts[0]) / Double(blocks), counts[1]), songVoices: (Double(counts[2]) / Double(blocks), counts[3]),
            drumVoicesMost: counts[4], threadName: String(cString: nameBuffer.baseAddress!),
            scheduling: schedulingError == 0 ? "SCHED_FIFO \(realtimePriority)"
                : "without real-time priority (SCHED_FIFO: \(String(cString: strerror(schedulingError))))")
    }

    /// The least-squares line y = intercept + slope · x (slope 0 when x never changes).
    static func leastSquares(x: [Double], y: [Double]) -> (slope: Double, intercept: Double) {
        let n = Double(max(1, x.count))
        let meanX = x.reduce(0, +) / n, meanY = y.reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for (a, b) in zip(x, y) {
            covariance += (a - meanX) * (b - meanY)
            variance += (a - meanX) * (a - meanX)
        }
        let slope = variance > 0 ? covariance / variance : 0
        return (slope, meanY - slope * meanX)
    }

    /// CLOCK_MONOTONIC, in nanoseconds.
    /// - Realtime: safe (vDSO clock read)
    static func monotonicNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Sleeps until CLOCK_MONOTONIC reads `nanoseconds`: the bench's stand-in for a sound card's period.
    static func sleepUntil(_ nanoseconds: UInt64) {
        var t = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) == EINTR {}
    }
}
