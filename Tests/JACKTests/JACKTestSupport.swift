import Engine
import Foundation
import JACK
import Session

/// A gain of 0.5 on every channel: a graph whose level the tests can state.
final class HalfGainNode: AudioNode {
    init() { super.init(name: "half-gain") }

    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let input = inputs[0]
        for c in 0..<output.channelCount {
            let source = input[min(c, input.channelCount - 1)]
            let destination = output[c]
            for i in 0..<output.frameCount { destination[i] = source[i] * 0.5 }
        }
    }
}

enum JACKTestSupport {
    /// input → half gain → output (stereo), compiled for `spec`.
    static func halfGainPlan(inputChannels: Int, spec: ProcessSpec) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: inputChannels)
        let gain = graph.add(HalfGainNode())
        try graph.connect(graph.input, to: gain)
        graph.output = gain
        return try graph.compile(spec: spec)
    }

    /// Polls the driver's events until `match` says yes or `seconds` pass; every event seen.
    static func waitForEvent(_ driver: JACKDriver, seconds: Double, _ match: (DriverEvent) -> Bool) -> (found: Bool, seen: [DriverEvent]) {
        var seen: [DriverEvent] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while let event = driver.nextEvent() {
                seen.append(event)
                if match(event) { return (true, seen) }
            }
            usleep(5000)
        }
        return (false, seen)
    }

    /// Names of this process's threads, from /proc/self/task/*/comm.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
