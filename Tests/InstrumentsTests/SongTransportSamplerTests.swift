import Engine
import InstrumentTestSupport
import Instruments
import MIDI
import Sequencing
import XCTest

/// The song transport heard through the sampler: a pause releases the song's
/// voices as key releases do, so pausing and resuming never clicks.
final class SongTransportSamplerTests: XCTestCase {
    private let rate = 48_000

    /// 120 BPM, 480 ticks per quarter (50 frames a tick). A C major chord held
    /// 4 s under the sustain pedal (down from 0.5 s to 3.5 s), and eighth
    /// notes above it: the pause at 1.3 s cuts into nine sounding voices' worth of piano.
    private func song() -> StandardMIDIFile {
        var events: [MIDIFileEvent] = [
            MIDIFileEvent(tick: 0, kind: .message(.programChange(channel: 0, program: 0))),
            MIDIFileEvent(tick: 480, kind: .message(.controlChange(channel: 0, controller: 64, value: 127))),
        ]
        for note: UInt8 in [48, 52, 55, 60] {
            events.append(MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 0, note: note, velocity: 100))))
        }
        for step in 0..<16 {
            let note = UInt8([72, 76, 79, 84][step % 4])
            events.append(MIDIFileEvent(tick: step * 240, kind: .message(.noteOn(channel: 0, note: note, velocity: 90))))
            events.append(MIDIFileEvent(tick: step * 240 + 200, kind: .message(.noteOff(channel: 0, note: note, velocity: 0))))
        }
        events.append(MIDIFileEvent(tick: 3360, kind: .message(.controlChange(channel: 0, controller: 64, value: 0))))
        for note: UInt8 in [48, 52, 55, 60] {
            events.append(MIDIFileEvent(tick: 3840, kind: .message(.noteOff(channel: 0, note: note, velocity: 0))))
        }
        events.append(MIDIFileEvent(tick: 4320, kind: .meta(.endOfTrack)))
        let sorted = events.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        return StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(480), tracks: [MIDIFileTrack(events: sorted)])
    }

    /// Renders the song through a TimGM6mb piano in 256-frame cycles,
    /// calling `beforeCycle` with each cycle's first frame; `port` reaches the
    /// sampler beside the song. Returns the mono mix.
    private func render(frames: Int, beforeCycle: (Int, MIDIFilePlayer, MIDIInputPort) -> Void) throws -> [Float] {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        let port = MIDIInputPort(name: "test")
        let scheduler = MIDIScheduler(ports: [port], filePlayer: player, watchdogSeconds: 0)
        let node = SamplerNode(events: scheduler.events, sampleRate: Double(rate))
        let synth = try node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.smallFont, polyphony: 64))
        synth.preload(presetsSelectedBy: player.messages())
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: Double(rate), maximumBlockSize: 256)))
        engine.attach(scheduler)
        defer { engine.releaseAll() }
        player.play()
        let buffer = AudioBuffer(channelCount: 2, capacity: 256)
        var out: [Float] = []
        out.reserveCapacity(frames)
        while out.count < frames {
            beforeCycle(out.count, player, port)
            let n = min(256, frames - out.count)
            let block = buffer.block(frames: n)
            engine.render(input: nil, output: block)
            for i in 0..<n { out.append((block[0][i] + block[1][i]) / 2) }
        }
        node.collectRetired()
        return out
    }

    private func largestStep(_ x: [Float], _ range: Range<Int>) -> Float {
        var largest: Float = 0
        for i in range.dropFirst() { largest = max(largest, abs(x[i] - x[i - 1])) }
        return largest
    }

    private func rms(_ x: [Float], _ range: Range<Int>) -> Double {
        (range.reduce(0.0) { $0 + Double(x[$1]) * Double(x[$1]) } / Double(range.count)).squareRoot()
    }

    /// Paused at 1.3 s for 0.7 s, then resumed: no sample step from just
    /// before the pause to 10 ms after the resume is larger than the largest
    /// step of the song played through (its own attacks included). The pause
    /// did end the notes: 0.7 s later the level is far below the song's playing on. The negative
    /// control: All Sound Off at the same frame cuts the voices dead, and
    /// that step is larger than the song's own.
    func testPauseAndResumeAreClickFree() throws {
        let pause = 62_400, resume = 96_000, total = 4 * rate
        let through = try render(frames: total) { _, _, _ in }
        let ownLargest = largestStep(through, 0..<total)
        var pausedAt = 0, resumedAt = 0
        let paused = try render(frames: total + resume - pause) { frame, player, _ in
            if pausedAt == 0 && frame >= pause { player.pause(); pausedAt = frame }
            if resumedAt == 0 && frame >= resume { player.resume(); resumedAt = frame }
        }
        let acrossPause = largestStep(paused, pausedAt - 480..<resumedAt + 480)
        let before = rms(paused, pausedAt - 4_800..<pausedAt), late = rms(paused, resumedAt - 4_800..<resumedAt)
        let playingOn = rms(through, resumedAt - 4_800..<resumedAt)
        print("pause: largest step across the pause \(acrossPause), the song's own \(ownLargest); RMS 0.1 s before the pause \(before), "
              + "0.1 s before the resume \(late) (the song playing on: \(playingOn))")
        XCTAssertGreaterThan(before, 0.01, "the song sounds when it is paused")
        // Released, not held: clearly (10 dB) quieter than the song playing on under its pedal.
        XCTAssertLessThan(late, playingOn / 3, "the pause ended the notes")
        XCTAssertLessThanOrEqual(acrossPause, ownLargest, "no click at the pause or the resume")

        var cutAt = 0
        let cut = try render(frames: pause + 4_800) { frame, _, port in
            if cutAt == 0 && frame >= pause {
                cutAt = frame
                XCTAssertTrue(port.send(.controlChange(channel: 0, controller: 120, value: 0), at: .sample(Int64(frame))))
            }
        }
        XCTAssertGreaterThan(largestStep(cut, cutAt - 480..<cutAt + 480), ownLargest, "a hard cut is seen as a click")
    }
}
