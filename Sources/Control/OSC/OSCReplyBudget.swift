/// How many replies `busker live --osc` sends one host: a token bucket per
/// host address (whatever the port) of `burst` datagrams, refilled at
/// `perSecond`.
///
/// Replies go to a datagram's source address, which UDP does not check:
/// bound to a public address (`--osc-bind 0.0.0.0`), Busker could be made
/// to send a stream of `/busker/state` replies (16 datagrams for one short
/// query, with two strips) to a forged address. The budget caps what any one
/// address receives at `perSecond` small datagrams, whoever asks, while a
/// surface that asks for the whole state a few times a second never meets it.
/// Replies past the budget are dropped and counted.
///
/// - Thread: control (one owner; not shared)
struct OSCReplyBudget {
    /// Replies an address may get at once: a whole state of 32 strips (4 + 6 × 32) fits.
    static let burst = 256.0
    /// Replies an address may get each second, on average.
    static let perSecond = 128.0
    /// Hosts remembered at most; past it, those idle longest are forgotten (a full bucket each).
    static let senderLimit = 1024

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private var buckets: [[UInt8]: Bucket] = [:]
    /// Replies dropped so far.
    private(set) var dropped = 0

    /// Whether a reply to `sender` at `now` (seconds, monotonic) may go; takes one of its host's tokens if so.
    mutating func take(for sender: OSCServer.Sender, at now: Double) -> Bool {
        let host = sender.host
        var bucket = buckets[host] ?? Bucket(tokens: Self.burst, updated: now)
        bucket.tokens = min(Self.burst, bucket.tokens + max(0, now - bucket.updated) * Self.perSecond)
        bucket.updated = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 } else { dropped += 1 }
        if buckets[host] == nil && buckets.count >= Self.senderLimit { forgetIdleSenders(now: now) }
        buckets[host] = bucket
        return allowed
    }

    /// Forgets the hosts whose buckets are full again, or, when none is, the half idle longest.
    private mutating func forgetIdleSenders(now: Double) {
        let refillSeconds = Self.burst / Self.perSecond
        buckets = buckets.filter { now - $0.value.updated < refillSeconds }
        if buckets.count >= Self.senderLimit {
            let kept = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(Self.senderLimit / 2)
            buckets = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
    }
}
