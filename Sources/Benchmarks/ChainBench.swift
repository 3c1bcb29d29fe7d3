import AudioFiles
import Chains
import CommandLineInterface
import Engine
import Foundation
import OfflineDrivers
import Sessions

/// `busker bench`: how fast the live chain runs, against sox on the same file.
///
/// The chain measured is the heaviest a user sets up: two strips (inputs 1
/// and 2 of a stereo file; a mono file gets one), every stage on in each
/// (input gain, high-pass, voice processing, gate, compressor, bass +6,
/// treble +3, boost, pan, reverb send 30 %), the bus reverb, the howl guard
/// (unless `--no-howl-guard`), volume and the limiter.
///
/// Figures, printed (timing lives here, never in tests):
/// 1. the chain alone, in memory, at 48 kHz stereo in 64-frame blocks on the
///    `audio-render` thread: times faster than real time, and the worst and
///    99.9th-percentile block as a fraction of the block's real-time budget;
/// 2. end to end, file to file (`busker live --input file: --output file:`,
///    in its offline default of 1024-frame blocks: the output is the same at
///    any block size, and larger blocks cost less per frame) against
///    `sox IN OUT bass +6 treble +3 reverb 30`, best of N runs each, in the
///    same run on the same file, with the ratio;
/// 3. with `--nodes`, each node alone and, with sox, stage for stage: sox's
///    `bass +6 treble +3` and `reverb 30` alone (its CPU time less that of a
///    plain copy) against the nodes doing that work, and the whole chain's
///    nodes against the 3× budget.
public enum ChainBench {
    /// What `busker bench` asks for (see its help).
    public struct Options {
        public var inputPath: String?
        public var seconds = 60
        public var period = 64
        public var filePeriod = FileRenderDriver.defaultBlockSize
        public var runs = 3
        public var compareWithSox = true
        public var perNode = false
        /// Voice processing in each strip; off measures every other stage.
        public var voiceProcessing = true
        public var howlGuard = true
        public init() {}
    }

    /// - Parameter say: where each line of the report goes (the command prints it).
    public static func run(_ options: Options, say: (String) -> Void) throws {
        let seconds = options.seconds, period = options.period, runs = options.runs, filePeriod = options.filePeriod
        let rate = 48000
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("busker-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let inputPath: String
        if let given = options.inputPath {
            inputPath = given
        } else {
            inputPath = work.appendingPathComponent("voice.wav").path
            try buildVoiceFile(path: inputPath, seconds: seconds, rate: rate)
        }
        let samples: [Float]
        let channels: Int
        do {
            let reader = try SoundFileReader(path: inputPath)
            guard reader.sampleRate == rate else {
                throw CommandLineError.usage("bench input must be at \(rate) Hz, '\(inputPath)' is at \(reader.sampleRate) Hz")
            }
            samples = try reader.readAll()
            channels = reader.channelCount
        } catch let error as AudioFileError {
            throw CommandLineError.runtime(error.description)
        }
        let settings = everyStageOn(inputChannelCount: channels, howlGuard: options.howlGuard, voiceProcessing: options.voiceProcessing)
        let frames = samples.count / channels
        say("input: \(inputPath), \(formatSeconds(Double(frames) / Double(rate))) s, \(channels) channel(s), \(rate) Hz")

        // 1. The chain alone.
        let inMemory = try renderInMemory(samples: samples, channels: channels, rate: rate, period: period, settings: settings)
        let budget = Double(period) / Double(rate)
        let strips = settings.strips.map(\.sourceLabel).joined(separator: ", ")
        let stages = options.voiceProcessing ? "every stage on" : "every stage on but voice processing"
        say("live chain, \(settings.strips.count) strip(s) (\(strips)), \(stages); in memory (\(period)-frame blocks, \(inMemory.blockCount) blocks, thread \(inMemory.threadName)):")
        say(String(format: "  %.0f× real time; worst block %.1f µs = %.1f%% of its %.0f µs budget; 99.9th percentile %.1f%%",
                     inMemory.realtimeFactor, inMemory.worst * 1e6, 100 * inMemory.worst / budget, budget * 1e6,
                     100 * inMemory.p999 / budget))

        var nodeCosts: NodeCosts?
        if options.perNode {
            nodeCosts = reportPerNodeCosts(channels: channels, rate: rate, period: period, settings: settings, say: say)
        }

        // 2. End to end, against sox. The runs alternate (busker, sox, busker, sox, …) so that a
        // change in the machine's other load over the seconds this takes falls on both alike;
        // each keeps its best run, the one least disturbed.
        let sox = options.compareWithSox ? findExecutable("sox") : nil
        var buskerBest = Double.infinity, soxBest = Double.infinity
        var bestReport: FileRenderDriver.Report?
        for r in 0..<runs {
            var fileOptions = FileRenderDriver.Options(inputPath: inputPath, outputPath: work.appendingPathComponent("busker-\(r).wav").path)
            fileOptions.blockSize = filePeriod
            fileOptions.sampleFormat = .s16
            let start = Date()
            let report = try LiveChain.renderFile(options: fileOptions, settings: settings)
            let elapsed = Date().timeIntervalSince(start)
            if elapsed < buskerBest { buskerBest = elapsed; bestReport = report }
            if let sox {
                let out = work.appendingPathComponent("sox-\(r).wav").path
                let start = Date()
                let status = try runProcess(sox, [inputPath, out, "bass", "+6", "treble", "+3", "reverb", "30"])
                let elapsed = Date().timeIntervalSince(start)
                guard status == 0 else { throw CommandLineError.runtime("sox failed with status \(status)") }
                soxBest = min(soxBest, elapsed)
            }
        }
        let audioSeconds = Double(frames) / Double(rate)
        say(String(format: "busker live file→file (%d-frame blocks): best of %d %.3f s = %.0f× real time",
                     filePeriod, runs, buskerBest, audioSeconds / buskerBest))
        if let report = bestReport {
            // Where the best run's time went: the chain's blocks, and everything else (building the
            // chain, opening, reading and writing the files, the threads); its output includes the
            // reverb's tail, rendered until it falls below −90 dBFS.
            say(String(format: "  of which the chain's blocks %.3f s, the rest %.3f s; %.2f s of output for %.2f s of input",
                         report.renderSeconds, buskerBest - report.renderSeconds, report.audioSeconds, audioSeconds))
        }

        guard options.compareWithSox else { return }
        guard sox != nil else {
            say("sox: not installed (apt-get install sox), no comparison")
            return
        }
        say(String(format: "sox bass +6 treble +3 reverb 30: best of %d %.3f s = %.0f× real time", runs, soxBest, audioSeconds / soxBest))
        say(String(format: "ratio: busker is %.1f× as fast as sox on the same file", soxBest / buskerBest))
        if let sox, let nodeCosts {
            try reportStageComparison(say: say, sox: sox, inputPath: inputPath, work: work, frames: frames, period: period,
                                     runs: runs, strips: settings.strips.count, costs: nodeCosts)
        }
    }

    /// Stage for stage: sox's two stages alone, each in sox's CPU time less a plain
    /// copy's (reading and writing the file), per frame, against the nodes that do
    /// that work in the chain; then the chain's nodes summed against 3× sox's whole run.
    /// - Realtime: unsafe (runs processes). Control thread only.
    static func reportStageComparison(say: (String) -> Void, sox: String, inputPath: String, work: URL, frames: Int, period: Int,
                                     runs: Int, strips: Int, costs: NodeCosts) throws {
        let out = work.appendingPathComponent("sox-stage.wav").path
        let effects: [[String]] = [[], ["bass", "+6", "treble", "+3"], ["reverb", "30"], ["bass", "+6", "treble", "+3", "reverb", "30"]]
        var best = [Double](repeating: .infinity, count: effects.count)
        let rounds = max(3, runs)
        for _ in 0..<rounds {
            for (e, effect) in effects.enumerated() {
                let (status, seconds) = try runProcessTimingCPU(sox, [inputPath, out] + effect)
                guard status == 0 else { throw CommandLineError.runtime("sox failed with status \(status)") }
                best[e] = min(best[e], seconds)
            }
        }
        let perFrame = 1e9 / Double(frames), block = Double(period)
        let copy = best[0] * perFrame
        func soxStage(_ e: Int) -> Double { max(0, best[e] * perFrame - copy) }
        say(String(format: "stage for stage, ns per stereo frame (sox: its CPU time less a plain copy's %.0f ns; best of %d runs each):",
                     copy, rounds))
        let tone = Double(strips) * costs.tone / block, soxTone = soxStage(1)
        say(String(format: "  bass +6 treble +3: busker %.1f (its bass+treble node in %d strip(s)), sox %.1f: busker %.1f× as fast",
                     tone, strips, soxTone, soxTone / max(tone, 1e-9)))
        let reverb = costs.reverb / block, soxReverb = soxStage(2)
        say(String(format: "  reverb 30: busker %.1f (its reverb node), sox %.1f: busker %.1f× as fast",
                     reverb, soxReverb, soxReverb / max(reverb, 1e-9)))
        let strip = costs.strip / block, bus = costs.bus / block
        let stripsCost = Double(strips) * strip, voiceCost = Double(strips) * costs.voiceProcessing / block
        say(String(format: "  the whole chain: its nodes sum to %.0f (%d strip(s) %.0f, of which voice processing %.0f; the bus %.0f); 3× sox's whole run leaves %.0f",
                     stripsCost + bus, strips, stripsCost, voiceCost, bus, best[3] * perFrame / 3))
    }

    /// The per-node timings `reportPerNodeCosts` sums, ns per block.
    public struct NodeCosts {
        /// Strip 1's nodes together (every strip costs the same)…
        public var strip = 0.0
        /// …of which voice processing and the bass+treble node.
        public var voiceProcessing = 0.0
        public var tone = 0.0
        /// The bus's nodes together, of which the reverb.
        public var bus = 0.0
        public var reverb = 0.0
    }

    /// The benchmark's settings: a strip for each of the first two input
    /// channels, every stage on, the bus at full volume.
    public static func everyStageOn(inputChannelCount: Int, howlGuard: Bool, voiceProcessing: Bool = true) -> LiveSettings {
        var settings = LiveSettings()
        settings.strips = (1...max(1, min(2, inputChannelCount))).map { channel in
            var strip = StripSettings(channels: [channel])
            strip.gainDB = 1
            strip.noiseGate = true
            strip.compressor = true
            strip.voiceProcessing = voiceProcessing
            strip.bassDB = 6
            strip.trebleDB = 3
            strip.boostDB = 1
            strip.reverbSendPercent = 30
            strip.pan = channel == 1 ? -0.3 : 0.3
            return strip
        }
        settings.volume = 1
        settings.howlGuard = howlGuard
        return settings
    }

    /// Times each node of the live chain alone on noise (strip 1's, then the bus's), so a slow node shows.
    /// - Returns: the best times per block, summed by strip and bus; nil if the chain could not be built.
    @discardableResult
    public static func reportPerNodeCosts(channels: Int, rate: Int, period: Int, settings: LiveSettings, say: (String) -> Void) -> NodeCosts? {
        guard let chain = try? LiveChain(inputChannelCount: channels, settings: settings),
              (try? chain.compile(spec: ProcessSpec(sampleRate: Double(rate), maximumBlockSize: period))) != nil else { return nil }
        var costs = NodeCosts()
        let stripNodes = chain.strips[0].nodes
        let nodes: [AudioNode] = stripNodes
            + [chain.sendMixer, chain.reverb, chain.busMixer, chain.howlGuard, chain.master, chain.limiter, chain.outputMeter]
        let blocks = 4000
        let input = AudioBuffer(channelCount: 2, capacity: period)
        let output = AudioBuffer(channelCount: 2, capacity: period)
        var seed: UInt32 = 1
        for c in 0..<2 { for i in 0..<period { seed = seed &* 1664525 &+ 1013904223; input[c][i] = Float(Int32(bitPattern: seed)) / 4e9 } }
        say("per node, best of 5 × \(blocks) blocks of \(period) frames, stereo noise, thread CPU time:")
        for node in nodes {
            let inCount = node.preparedFormat?.inputChannelCounts.first ?? 2
            let outCount = node.preparedFormat?.outputChannelCount ?? 2
            var blocksIn = [AudioBlock](repeating: input.block(frames: period), count: max(1, node.inputBusCount))
            for b in 0..<blocksIn.count {
                blocksIn[b] = AudioBlock(channels: input.block(frames: period).channels, channelCount: min(2, inCount), frameCount: period)
            }
            let out = AudioBlock(channels: output.block(frames: period).channels, channelCount: min(2, outCount), frameCount: period)
            // Best of five rounds, in the thread's CPU time: the least disturbed by
            // whatever else runs (time the thread spends preempted does not count).
            var ns = Double.infinity
            for _ in 0..<5 {
                let t0 = threadCPUNanoseconds()
                blocksIn.withUnsafeBufferPointer { inputs in
                    for _ in 0..<blocks { node.render(inputs: inputs, output: out) }
                }
                ns = min(ns, Double(threadCPUNanoseconds() - t0) / Double(blocks))
            }
            if stripNodes.contains(where: { $0 === node }) {
                costs.strip += ns
                if node === chain.strips[0].voiceProcessor { costs.voiceProcessing = ns }
                if node === chain.strips[0].tone.shelves { costs.tone = ns }
            } else {
                costs.bus += ns
                if node === chain.reverb { costs.reverb = ns }
            }
            let name = node.name.padding(toLength: 14, withPad: " ", startingAt: 0)
            say(String(format: "  %@ %7.0f ns/block  %6.0f× real time", name, ns, Double(period) / Double(rate) / (ns / 1e9)))
        }
        return costs
    }

    /// The calling thread's CPU time, in nanoseconds.
    static func threadCPUNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    public struct InMemoryResult {
        var realtimeFactor: Double
        var worst: Double
        var p999: Double
        var blockCount: Int
        var threadName: String
    }

    /// Renders `samples` through the live chain on an `audio-render` thread, timing every block.
    /// - Thread: control, audio (the block loop runs on an `audio-render` thread
    ///   it starts and joins)
    /// - Realtime: unsafe (allocates, starts a thread; on the audio thread, before the first
    ///   block, it reads the thread's name and allocates a pointer array, and it times
    ///   each block with `DispatchTime.now()`)
    public static func renderInMemory(samples: [Float], channels: Int, rate: Int, period: Int, settings: LiveSettings) throws -> InMemoryResult {
        let chain = try LiveChain(inputChannelCount: channels, settings: settings)
        let plan = try chain.compile(spec: ProcessSpec(sampleRate: Double(rate), maximumBlockSize: period))
        let engine = RenderEngine()
        engine.install(plan)
        let frames = samples.count / channels
        let blocks = frames / period
        // Planar input, laid out before the thread starts.
        let input = AudioBuffer(channelCount: channels, capacity: max(1, frames))
        for c in 0..<channels { for i in 0..<frames { input[c][i] = samples[i * channels + c] } }
        let output = AudioBuffer(channelCount: 2, capacity: period)
        let times = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, blocks))
        defer { times.deallocate() }
        nonisolated(unsafe) var threadName = ""
        let thread = RealtimeThread {
            threadName = RealtimeThread.currentName
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels)
            defer { pointers.deallocate() }
            for b in 0..<blocks {
                for c in 0..<channels { pointers[c] = input[c] + b * period }
                let block = AudioBlock(channels: UnsafePointer(pointers), channelCount: channels, frameCount: period)
                let t0 = DispatchTime.now().uptimeNanoseconds
                engine.render(input: block, output: output.block(frames: period))
                times[b] = DispatchTime.now().uptimeNanoseconds - t0
            }
        }
        thread.join()
        engine.releaseAll()
        let sorted = UnsafeMutableBufferPointer(start: times, count: blocks).sorted()
        let total = Double(sorted.reduce(0, +)) / 1e9
        let audio = Double(blocks * period) / Double(rate)
        return InMemoryResult(realtimeFactor: audio / max(total, 1e-12),
                              worst: Double(sorted.last ?? 0) / 1e9,
                              p999: Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.999))]) / 1e9,
                              blockCount: blocks, threadName: threadName)
    }

    /// Loops a real voice recording (or, without alsa-utils, a synthetic
    /// voice-like signal: `voice(rate:)`) to `seconds`, stereo, 16-bit, at `rate`.
    public static func buildVoiceFile(path: String, seconds: Int, rate: Int) throws {
        let voice = Self.voice(rate: rate)
        let frames = seconds * rate
        var interleaved = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let v = voice[i % voice.count]
            interleaved[2 * i] = v
            interleaved[2 * i + 1] = v * 0.9
        }
        do {
            let writer = try SoundFileWriter(path: path, sampleRate: rate, channelCount: 2, sampleFormat: .s16)
            try writer.write(interleaved: interleaved)
            try writer.close()
        } catch {
            throw CommandLineError.runtime(error.description)
        }
    }

    /// One voice, mono, at `rate`: alsa-utils' "Front Center" recording
    /// (1.4 s), or without it (or at another rate) one second of a 150 Hz buzz
    /// with formant-like harmonics, two syllables a second.
    /// - Realtime: unsafe (reads a file, allocates). Control thread.
    public static func voice(rate: Int) -> [Float] {
        let sample = "/usr/share/sounds/alsa/Front_Center.wav"
        if let reader = try? SoundFileReader(path: sample), reader.sampleRate == rate,
           let all = try? reader.readAll(), !all.isEmpty {
            let ch = reader.channelCount
            return stride(from: 0, to: all.count, by: ch).map { all[$0] }
        }
        return (0..<rate).map { i in
            let t = Double(i) / Double(rate)
            let env = 0.5 - 0.5 * cos(2 * Double.pi * 2 * t)
            var s = 0.0
            for h in 1...12 { s += sin(2 * Double.pi * 150 * Double(h) * t) / Double(h) }
            return Float(0.2 * env * s)
        }
    }

    public static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a process to its end; returns its status and the CPU time (user and
    /// system) it took, from the children's resource usage around it.
    /// - Realtime: unsafe (starts a process). Control thread only; no other child may end meanwhile.
    public static func runProcessTimingCPU(_ executable: String, _ arguments: [String]) throws -> (Int32, Double) {
        func childrenCPU() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        }
        let before = childrenCPU()
        let status = try runProcess(executable, arguments)
        return (status, childrenCPU() - before)
    }

    public static func runProcess(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
