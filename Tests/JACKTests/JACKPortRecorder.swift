import CJACK
import Foundation
import Synchronization

/// A test JACK client with two audio inputs, `in_1` and `in_2`, that records
/// everything from its first cycle on, placed by JACK frame time: a cycle the
/// server skipped for this client (a stalled host) stays unrecorded (NaN).
final class JACKPortRecorder: @unchecked Sendable {
    let client: OpaquePointer
    let name: String
    let capacity: Int
    private let ports: [OpaquePointer]
    private let storage: [UnsafeMutablePointer<Float>]
    private let recordedMask: UnsafeMutablePointer<UInt8>

    // MARK: Shared (atomics)
    private let firstFrame = Atomic<UInt32>(0)
    private let recorded = Atomic<Int>(0)
    private let misaligned = Atomic<Int>(0)

    init(name: String, seconds: Int = 20, sampleRate: Int = 48000) throws {
        self.name = name
        capacity = seconds * sampleRate
        let client = try JACKTestClient.open(name)
        self.client = client
        ports = try (1...2).map { try JACKTestClient.register(client, "in_\($0)", type: JACKTestClient.audioType, output: false) }
        storage = (0..<2).map { _ in
            let channel = UnsafeMutablePointer<Float>.allocate(capacity: seconds * sampleRate)
            channel.initialize(repeating: 0, count: seconds * sampleRate)
            return channel
        }
        recordedMask = .allocate(capacity: seconds * sampleRate)
        recordedMask.initialize(repeating: 0, count: seconds * sampleRate)
        jack_set_process_callback(client, { frameCount, context in
            Unmanaged<JACKPortRecorder>.fromOpaque(context!).takeUnretainedValue().process(frameCount)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        jack_activate(client)
    }

    deinit {
        storage.forEach { $0.deallocate() }
        recordedMask.deallocate()
    }

    func close() {
        jack_deactivate(client)
        jack_client_close(client)
    }

    /// Cycles whose JACK frame time was not a whole number of cycles after the first.
    var misalignedCycles: Int { misaligned.load(ordering: .acquiring) }

    func portName(_ channel: Int) -> String { "\(name):in_\(channel + 1)" }

    /// The frame time of the last frame recorded so far, plus one.
    var endFrame: UInt32 { firstFrame.load(ordering: .acquiring) &+ UInt32(recorded.load(ordering: .acquiring)) }

    /// Waits until frames up to `frame` (exclusive) are recorded.
    func waitFor(frame: UInt32) -> Bool {
        JACKTestClient.wait { Int32(bitPattern: endFrame &- frame) >= 0 && recorded.load(ordering: .acquiring) > 0 }
    }

    /// Samples of `channel` for JACK frame times `start ..< start + count`;
    /// NaN where no cycle was recorded.
    func samples(_ channel: Int, from start: UInt32, count: Int) -> [Float] {
        let index = Int(start &- firstFrame.load(ordering: .acquiring))
        precondition(index >= 0 && index + count <= recorded.load(ordering: .acquiring), "not recorded")
        return (index..<(index + count)).map { recordedMask[$0] != 0 ? storage[channel][$0] : .nan }
    }

    // MARK: Audio thread

    private func process(_ frameCount: jack_nframes_t) {
        let now = jack_last_frame_time(client)
        if recorded.load(ordering: .relaxed) == 0 { firstFrame.store(now, ordering: .relaxed) }
        let at = Int(now &- firstFrame.load(ordering: .relaxed))
        if at % Int(frameCount) != 0 { misaligned.add(1, ordering: .relaxed) }
        let n = min(Int(frameCount), capacity - at)
        guard n > 0 else { return }
        for channel in 0..<2 {
            guard let buffer = jack_port_get_buffer(ports[channel], frameCount) else { continue }
            (storage[channel] + at).update(from: buffer.assumingMemoryBound(to: Float.self), count: n)
        }
        (recordedMask + at).update(repeating: 1, count: n)
        recorded.store(at + n, ordering: .releasing)
    }
}
