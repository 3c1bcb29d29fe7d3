import ALSA
import Engine
import Foundation
import Session

/// A source node that plays a fixed sequence of samples: channel 0 the
/// samples, channel 1 (if any) their negation, so that a swapped or
/// duplicated channel shows. After the end it plays silence, or starts over
/// when `looping`. The samples live in memory allocated once, at init.
final class SampleSequenceNode: AudioNode {
    private let samples: UnsafeMutableBufferPointer<Float>
    private let channelCount: Int
    private let looping: Bool

    // MARK: Audio thread only
    private var position = 0

    init(samples: [Float], channelCount: Int = 2, looping: Bool = false) {
        precondition(!samples.isEmpty && (1...2).contains(channelCount))
        self.samples = .allocate(capacity: samples.count)
        _ = self.samples.initialize(from: samples)
        self.channelCount = channelCount
        self.looping = looping
        super.init(name: "sample sequence")
    }

    deinit { samples.deallocate() }

    override var inputBusCount: Int { 0 }

    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { channelCount }

    /// - Realtime: safe.
    override func reset() { position = 0 }

    /// - Realtime: safe.
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for i in 0..<output.frameCount {
            if position == samples.count && looping { position = 0 }
            let sample: Float = position < samples.count ? samples[position] : 0
            if position < samples.count { position += 1 }
            output[0][i] = sample
            if output.channelCount > 1 { output[1][i] = -sample }
        }
    }
}

/// The ALSA set-up of the playback-only tests: real libasound, no sound card.
enum PlaybackOnlyTestSupport {
    /// The playback PCM of these tests: an `asym` PCM with a playback side
    /// only, so that any attempt to open it for capture fails. Playback goes
    /// through `plug` (converting whatever format the driver negotiates to
    /// FLOAT_LE, `fileChannels` channels) into the `file` plugin over `null`,
    /// which keeps every played frame in `output` (raw) and runs as fast as
    /// it is fed.
    static let pcmName = "busker_test_playback_only"

    static func configuration(output: URL, fileChannels: Int) -> ALSAConfiguration {
        .only("""
        pcm.busker_test_po_outfile {
            type file
            slave.pcm { type null }
            file "\(output.path)"
            format "raw"
        }
        pcm.busker_test_po_plug {
            type plug
            slave { pcm "busker_test_po_outfile" format FLOAT_LE channels \(fileChannels) rate 48000 }
        }
        pcm.\(pcmName) {
            type asym
            playback.pcm "busker_test_po_plug"
        }
        """)
    }

    /// Playback-only options on `pcmName`, 64-frame periods, two per buffer,
    /// real-time requests off (a flat-out `null` loop at SCHED_FIFO would
    /// only starve the test).
    static func options(output: URL, channels: Int = 2) -> DuplexDriver.Options {
        var options = DuplexDriver.Options(playback: pcmName)
        options.configuration = configuration(output: output, fileChannels: channels)
        options.periodFrames = 64
        options.periodCount = 2
        options.playbackChannels = channels
        options.realtimePriority = nil
        options.lockMemory = false
        return options
    }

    /// A graph with no input: the sequence node straight to the output.
    static func sequencePlan(_ node: SampleSequenceNode, spec: ProcessSpec) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        return try graph.compile(spec: spec)
    }

    /// Opens a driver for `options`, plays `samples` (stereo: the samples and
    /// their negation, unless `options.playbackChannels` is 1) until the loop
    /// ends by itself, and returns the driver (closed), why it stopped and its events.
    static func play(_ samples: [Float], options: DuplexDriver.Options, stopAfterFrames frames: Int) throws
        -> (driver: DuplexDriver, reason: DriverStopReason?, events: [DriverEvent]) {
        let driver = try DuplexDriver(options: options, stopAfterFrames: frames)
        let engine = RenderEngine()
        let node = SampleSequenceNode(samples: samples, channelCount: options.playbackChannels ?? 2)
        engine.install(try sequencePlan(node, spec: driver.processSpec))
        try driver.start(engine: engine)
        let reason = ALSATestSupport.waitUntilStopped(driver)
        let events = ALSATestSupport.drainEvents(driver)
        driver.close()
        engine.releaseAll()
        return (driver, reason, events)
    }

    /// The first index where `played` differs from `expected` (exact
    /// comparison), or nil; a `played` shorter than `expected` differs where it ends.
    static func firstDifference(_ played: [Float], from offset: Int = 0, expected: some Collection<Float>) -> Int? {
        for (n, value) in expected.enumerated() {
            guard offset + n < played.count, played[offset + n] == value else { return n }
        }
        return nil
    }

    /// Rounds to the 16-bit grid (k / 32768): values every integer format,
    /// our encoders and ALSA's converters all represent exactly.
    static func onSixteenBitGrid(_ samples: [Float]) -> [Float] {
        samples.map { ($0 * 32768).rounded() / 32768 }
    }
}
