import CJACK
import Foundation
import JACK
import Synchronization
import XCTest

/// A second JACK client for the tests, written with libjack directly: its
/// process callback writes a known signal to its `send` port (impulses of
/// `amplitude` every `spacing` frames, the first at `spacing`) and records
/// what arrives on `return_L` and `return_R`, both indexed by the frame
/// counter the signal uses, so a delay reads off as an index difference.
final class ProbeClient: @unchecked Sendable {
    let client: OpaquePointer
    let name: String
    let capacity: Int
    let spacing: Int
    let amplitude: Float = 0.5
    private let send: OpaquePointer
    private let returns: [OpaquePointer]
    private let returnL: UnsafeMutablePointer<Float>
    private let returnR: UnsafeMutablePointer<Float>
    /// Frames since activation (written by the process callback).
    let frames = Atomic<Int>(0)
    /// The frame counter when the server reported each xrun (at most 64 kept).
    private let xrunFrames = Mutex<[Int]>([])

    init(name: String = "probe", seconds: Double = 4, spacing: Int = 4800) throws {
        var status = jack_status_t(rawValue: 0)
        guard let client = busker_jack_client_open(name, JackNoStartServer, &status, nil) else {
            throw XCTSkip("the probe client could not open (status \(status.rawValue))")
        }
        self.client = client
        self.name = String(cString: jack_get_client_name(client))
        capacity = Int(seconds * 48000)
        self.spacing = spacing
        send = jack_port_register(client, "send", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0)!
        returns = [jack_port_register(client, "return_L", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0)!,
                   jack_port_register(client, "return_R", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0)!]
        returnL = .allocate(capacity: capacity)
        returnL.initialize(repeating: 0, count: capacity)
        returnR = .allocate(capacity: capacity)
        returnR.initialize(repeating: 0, count: capacity)
        jack_set_process_callback(client, { nframes, arg in
            Unmanaged<ProbeClient>.fromOpaque(arg!).takeUnretainedValue().process(Int(nframes))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        jack_set_xrun_callback(client, { arg in
            let probe = Unmanaged<ProbeClient>.fromOpaque(arg!).takeUnretainedValue()
            let now = probe.frames.load(ordering: .acquiring)
            probe.xrunFrames.withLock { if $0.count < 64 { $0.append(now) } }
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The frame counter when the server reported each xrun, read on JACK's
    /// notification thread (so a cycle or two after the cycle it concerns).
    var xruns: [Int] { xrunFrames.withLock { $0 } }

    deinit {
        returnL.deallocate()
        returnR.deallocate()
    }

    private func process(_ n: Int) {
        let start = frames.load(ordering: .relaxed)
        let out = jack_port_get_buffer(send, jack_nframes_t(n))!.assumingMemoryBound(to: Float.self)
        let l = jack_port_get_buffer(returns[0], jack_nframes_t(n))!.assumingMemoryBound(to: Float.self)
        let r = jack_port_get_buffer(returns[1], jack_nframes_t(n))!.assumingMemoryBound(to: Float.self)
        for i in 0..<n {
            let k = start + i
            out[i] = k > 0 && k % spacing == 0 ? amplitude : 0
            if k < capacity {
                returnL[k] = l[i]
                returnR[k] = r[i]
            }
        }
        frames.store(start + n, ordering: .releasing)
    }

    func activate() { XCTAssertEqual(jack_activate(client), 0) }

    /// Patches `send` → `busker:in_1`, `busker:out_L` → `return_L`, `busker:out_R` → `return_R`.
    func patch(to busker: String) {
        XCTAssertEqual(jack_connect(client, "\(name):send", "\(busker):in_1"), 0)
        XCTAssertEqual(jack_connect(client, "\(busker):out_L", "\(name):return_L"), 0)
        XCTAssertEqual(jack_connect(client, "\(busker):out_R", "\(name):return_R"), 0)
    }

    /// Waits until `count` frames have gone by (or 20 s).
    func waitForFrames(_ count: Int) {
        let deadline = Date().addingTimeInterval(20)
        while frames.load(ordering: .acquiring) < count && Date() < deadline { usleep(2000) }
    }

    /// For each impulse sent below `upTo`: the delay of the first non-zero
    /// sample after it (nil if none arrived within `spacing`) and that sample on L and R.
    func arrivals(upTo limit: Int) -> [(sent: Int, delay: Int?, left: Float, right: Float)] {
        var result: [(Int, Int?, Float, Float)] = []
        var sent = spacing
        while sent + spacing <= min(limit, capacity) {
            var found: (Int?, Float, Float) = (nil, 0, 0)
            for k in sent..<(sent + spacing) where returnL[k] != 0 || returnR[k] != 0 {
                found = (k - sent, returnL[k], returnR[k])
                break
            }
            result.append((sent, found.0, found.1, found.2))
            sent += spacing
        }
        return result
    }

    /// Asserts that every impulse in `arrivals` came back `delay` frames late at
    /// `level` on both sides, or went missing beside an xrun: the dummy server
    /// without real-time priority drops a stalled cycle whole, and reports it
    /// (stamped on its notification thread, so up to two spacings after the
    /// cycle, which began at most `cycle` frames before the impulse).
    /// - Returns: how many arrived.
    @discardableResult
    func assertArrivals(_ arrivals: [(sent: Int, delay: Int?, left: Float, right: Float)], delay: Int, level: Float,
                        cycle: Int, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let stamps = xruns
        var arrived = 0
        for arrival in arrivals {
            guard let measured = arrival.delay else {
                let stalled = stamps.contains { $0 >= arrival.sent - cycle && $0 < arrival.sent + 2 * spacing }
                XCTAssertTrue(stalled, "impulse sent at \(arrival.sent) lost with no xrun near it (xruns at \(stamps))",
                              file: file, line: line)
                if stalled { print("impulse sent at \(arrival.sent) lost in a stalled cycle (xruns at \(stamps))") }
                continue
            }
            arrived += 1
            XCTAssertEqual(measured, delay, "impulse sent at \(arrival.sent)", file: file, line: line)
            XCTAssertEqual(arrival.left, level, accuracy: 1e-6, file: file, line: line)
            XCTAssertEqual(arrival.right, level, accuracy: 1e-6, file: file, line: line)
        }
        return arrived
    }

    /// The latency range another client publishes on one of its ports.
    func latencyRange(of port: String, _ mode: jack_latency_callback_mode_t) -> (min: Int, max: Int)? {
        guard let p = jack_port_by_name(client, port) else { return nil }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(p, mode, &range)
        return (Int(range.min), Int(range.max))
    }

    /// The ports one port is connected to (any client's).
    func connections(of port: String) -> [String] {
        guard let p = jack_port_by_name(client, port) else { return [] }
        guard let list = jack_port_get_all_connections(client, p) else { return [] }
        defer { jack_free(list) }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            i += 1
        }
        return result
    }

    func close() {
        jack_deactivate(client)
        jack_client_close(client)
    }
}
