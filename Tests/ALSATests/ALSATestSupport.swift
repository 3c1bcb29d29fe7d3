import ALSA
import AudioFiles
import Engine
import Foundation
import RenderTestSupport
import Session
import Synchronization
import XCTest

enum ALSATestSupport {
    /// Drains the driver's events and counts its recovered xruns.
    static func recoveredXruns(_ driver: DuplexDriver) -> Int {
        var recovered = 0
        while let event = driver.nextEvent() {
            if case .xrunRecovered = event { recovered += 1 }
        }
        return recovered
    }

    /// The real-time tests' xrun assertions on the virtual sound card, where
    /// the host's own CPU stalls cause xruns (see `XrunAttribution`): every
    /// xrun was recovered, and the loop kept up. A loop that cannot keep up
    /// (work over the period, a wait each period) misses a large share of
    /// its periods; the host's stalls cost at most 1.8 % of them in every
    /// run measured (27 of 1500, the worst minute of a noisy afternoon), so
    /// the bound is 5 %. And where the probe runs, at most 3 xruns fall off
    /// a host stall: a render thread that now and then blocks makes xruns
    /// between stalls (0 off a stall in every run since the window became
    /// 25 ms; with 10 ms, up to 4 of 24 in the noisiest run).
    static func assertXrunsAreTheHosts(_ driver: DuplexDriver, _ report: XrunAttribution.Report, periods: Int,
                                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.xruns, driver.xrunCount, "the watcher saw every xrun", file: file, line: line)
        XCTAssertEqual(recoveredXruns(driver), driver.xrunCount, "every xrun recovered", file: file, line: line)
        XCTAssertLessThanOrEqual(driver.xrunCount * 20, periods, "more than 5 % of periods lost: \(report)", file: file, line: line)
        if report.probeError == 0 {
            XCTAssertLessThanOrEqual(report.offStall, 3, "xruns off any host stall: \(report)", file: file, line: line)
        }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("busker-alsa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A test signal that exercises every bit of a sample: a swept sine plus
    /// a little deterministic noise, peak below 0.9 (no clipping anywhere).
    static func testSignal(frames: Int) -> [Float] {
        var seed: UInt32 = 0x1234_5678
        return (0..<frames).map { n in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.1
            let t = Double(n) / 48000
            let sweep = Float(sin(2 * Double.pi * (100 * t + 2000 * t * t)))
            return 0.75 * sweep + noise
        }
    }

    /// The files of a loopback run in `dir`: the test signal as a mono
    /// float WAV (the source of truth), its samples as the raw capture file,
    /// and where playback and the offline render go.
    struct LoopbackFiles {
        let wav: URL, raw: URL, played: URL, offline: URL
        let samples: [Float]
    }

    static func loopbackFiles(in dir: URL, frames: Int) throws -> LoopbackFiles {
        let wav = dir.appendingPathComponent("in.wav")
        let writer = try SoundFileWriter(path: wav.path, sampleRate: 48000, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: testSignal(frames: frames))
        try writer.close()
        let samples = try SoundFileReader(path: wav.path).readAll()
        let raw = dir.appendingPathComponent("in.raw")
        try writeRaw(samples, to: raw)
        return LoopbackFiles(wav: wav, raw: raw, played: dir.appendingPathComponent("played.raw"),
                             offline: dir.appendingPathComponent("offline.wav"), samples: samples)
    }

    static func writeRaw(_ samples: [Float], to url: URL) throws {
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try data.write(to: url)
    }

    /// Writes `samples` (mono) as raw `format` samples, encoded by libsndfile
    /// through a WAV file whose header is then dropped. S24_LE, which WAV
    /// cannot hold, is S24_3LE widened to four bytes.
    static func writeRaw(_ samples: [Float], format: PCMSampleFormat, to url: URL, scratch: URL) throws {
        let sndfileFormat: SampleFormat = switch format {
        case .float32: .f32
        case .s32: .s32
        case .s24, .s24Packed: .s24
        case .s16: .s16
        }
        let wav = scratch.appendingPathComponent("encode-\(format.rawValue).wav")
        let writer = try SoundFileWriter(path: wav.path, sampleRate: 48000, channelCount: 1, sampleFormat: sndfileFormat)
        try samples.withUnsafeBufferPointer { (p) throws(AudioFileError) in try writer.write(p.baseAddress!, frames: samples.count) }
        try writer.close()
        var payload = try wavDataChunk(Data(contentsOf: wav))
        if format == .s24 {
            var widened = Data(capacity: payload.count / 3 * 4)
            for i in stride(from: payload.startIndex, to: payload.endIndex, by: 3) {
                let top = payload[i + 2]
                widened.append(contentsOf: [payload[i], payload[i + 1], top, top & 0x80 != 0 ? 0xFF : 0])
            }
            payload = widened
        }
        try payload.write(to: url)
    }

    /// The payload of a RIFF/WAVE file's `data` chunk.
    static func wavDataChunk(_ file: Data) throws -> Data {
        var offset = 12
        while offset + 8 <= file.count {
            let id = String(decoding: file[offset..<offset + 4], as: UTF8.self)
            let size = file[offset + 4..<offset + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            if id == "data" { return Data(file[offset + 8..<min(file.count, offset + 8 + size)]) }
            offset += 8 + size + (size & 1)
        }
        throw NSError(domain: "ALSAIOTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "no data chunk"])
    }

    static func readRawFloats(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { raw in
            Array(raw.bindMemory(to: Float.self).prefix(data.count / MemoryLayout<Float>.size))
        }
    }

    /// PCM definitions on the `file` plugin over `null`, which runs as fast
    /// as it is fed. `busker_test_infile` plays `input` (raw, in whatever
    /// format the driver negotiates) as its capture; `busker_test_playback`
    /// converts what is played to FLOAT_LE through ALSA's `plug` and keeps it
    /// in `output` (raw, `playbackChannels` channels).
    ///
    /// Capture goes straight to the file plugin: with alsa-lib 1.2.8, a `plug`
    /// converting in front of the file plugin's `infile` skipped frames.
    static func fileLoopbackConfiguration(input: URL, output: URL, playbackChannels: Int) -> ALSAConfiguration {
        .only("""
        pcm.busker_test_infile {
            type file
            slave.pcm { type null }
            file "/dev/null"
            infile "\(input.path)"
            format "raw"
        }
        pcm.busker_test_outfile {
            type file
            slave.pcm { type null }
            file "\(output.path)"
            format "raw"
        }
        pcm.busker_test_playback {
            type plug
            slave { pcm "busker_test_outfile" format FLOAT_LE channels \(playbackChannels) rate 48000 }
        }
        pcm.busker_playback_only {
            type asym
            playback.pcm { type null }
        }
        pcm.busker_null { type null }
        """)
    }

    /// Driver options for the file loopback, with real-time requests off
    /// (a flat-out `null` loop at SCHED_FIFO would only starve the test).
    static func fileLoopbackOptions(input: URL, output: URL, playbackChannels: Int = 2,
                                    period: Int = 64) -> DuplexDriver.Options {
        var options = DuplexDriver.Options(capture: "busker_test_infile", playback: "busker_test_playback")
        options.configuration = fileLoopbackConfiguration(input: input, output: output, playbackChannels: playbackChannels)
        options.periodFrames = period
        options.periodCount = 2
        options.captureChannels = 1
        options.playbackChannels = playbackChannels
        options.realtimePriority = nil
        options.lockMemory = false
        // `file` and `null` run as fast as the loop goes, on no clock: there
        // is no drift to follow, and these tests ask for exact delays.
        options.correctClockDrift = false
        return options
    }

    /// Polls until the driver's loop has ended by itself; fails after `timeout`.
    static func waitUntilStopped(_ driver: DuplexDriver, timeout: TimeInterval = 10,
                                 file: StaticString = #filePath, line: UInt = #line) -> DriverStopReason? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let reason = driver.stopReason { return reason }
            usleep(1000)
        }
        XCTFail("the driver did not stop within \(timeout) s", file: file, line: line)
        return nil
    }

    static func drainEvents(_ driver: DuplexDriver) -> [DriverEvent] {
        var events: [DriverEvent] = []
        while let e = driver.nextEvent() { events.append(e) }
        return events
    }

    /// Whether no thread named `name` is left, waiting up to half a second:
    /// a joined thread leaves /proc/self/task a moment after pthread_join
    /// returns (the kernel wakes the joiner as the thread lets go of its
    /// memory, and reaps the task just after), so a test that looks at once
    /// can still see it. A thread that was not joined stays, and fails.
    static func threadGone(named name: String) -> Bool {
        for _ in 0..<50 {
            if !threadNames().contains(name) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Names of this process's threads, from /proc/self/task/*/comm.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// A counter a fault-injecting `PCMCalls` entry can use from the audio thread.
final class CallCounter: Sendable {
    let count = Atomic<Int>(0)
    /// Increments and returns the new value.
    func next() -> Int { count.add(1, ordering: .relaxed).newValue }
}

extension PCMCalls {
    /// This table with `body` run on the audio-render thread as it starts the
    /// devices: before each `snd_pcm_prepare` (capture, then playback), which
    /// only the render loop calls, and before anything is rendered. Tests
    /// switch the render thread's allocation counter on there.
    /// - Thread: audio.
    /// - Realtime: as `body` (tests allocate there on purpose: the devices have not started).
    func withRenderThreadStart(_ body: @escaping @Sendable () -> Void) -> PCMCalls {
        var calls = self
        let prepare = calls.prepare
        calls.prepare = { pcm in
            body()
            return prepare(pcm)
        }
        return calls
    }
}
