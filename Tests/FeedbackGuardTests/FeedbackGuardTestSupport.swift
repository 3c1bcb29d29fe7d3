import FeedbackGuard
import RenderTestSupport

/// Renders mono `signal` through a fresh howl guard at 48 kHz in 64-frame
/// blocks and reads its status every `seconds` of signal (and at the end).
func howlGuardStatuses(_ signal: [Float], every seconds: Double) -> [HowlGuardStatus] {
    let node = HowlGuardNode()
    let harness = BlockRenderHarness(node, inputChannelCounts: [1], maximumBlockSize: 64)
    var statuses: [HowlGuardStatus] = []
    let chunk = Int(seconds * 48_000)
    var start = 0
    while start < signal.count {
        _ = harness.run([[Array(signal[start..<min(signal.count, start + chunk)])]], blockSize: 64)
        statuses.append(node.status())
        start += chunk
    }
    return statuses
}
