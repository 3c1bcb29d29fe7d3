/// Tells an xrun storm from the odd xrun: `policy.xrunStormCount` xruns
/// within `policy.xrunStormSeconds` is a storm. Reported once per window, so
/// a machine that keeps missing periods gets one message every few seconds,
/// not one per xrun. Pure: the caller passes the time.
public struct XrunStormDetector: Sendable {
    public let count: Int
    public let seconds: Double
    /// Times of the last `count` xruns, oldest first.
    private var recent: [Double] = []
    private var lastReport = -Double.infinity

    public init(policy: SessionPolicy) {
        count = max(2, policy.xrunStormCount)
        seconds = Double(max(1, policy.xrunStormSeconds))
    }

    /// Records an xrun at `time` (seconds, any monotonic origin).
    /// - Returns: true when this xrun makes a storm that has not been reported in the last window.
    public mutating func record(at time: Double) -> Bool {
        recent.append(time)
        if recent.count > count { recent.removeFirst(recent.count - count) }
        guard recent.count == count, time - recent[0] <= seconds, time - lastReport > seconds else { return false }
        lastReport = time
        return true
    }
}
