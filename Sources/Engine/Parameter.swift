#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A node parameter that the control thread sets and the audio thread reads,
/// through an atomic: no lock, no queue, the newest value always wins.
/// Values are clamped to `range`. Nodes smooth the value they read
/// (see `LinearSmoother`) so that changes never click.
public final class Parameter: @unchecked Sendable {
    public let name: String
    public let unit: String
    public let range: ClosedRange<Float>
    public let defaultValue: Float
    @usableFromInline let bits: Atomic<UInt32>

    public init(name: String, unit: String = "", range: ClosedRange<Float>, default defaultValue: Float) {
        precondition(range.contains(defaultValue), "default of \(name) out of range")
        self.name = name
        self.unit = unit
        self.range = range
        self.defaultValue = defaultValue
        bits = Atomic(defaultValue.bitPattern)
    }

    /// The current target value. Writes clamp to `range` (NaN is ignored).
    /// - Thread: any (the control thread writes, the audio thread reads)
    /// - Realtime: safe (a relaxed atomic load or store)
    @inlinable
    public var value: Float {
        get { Float(bitPattern: bits.load(ordering: .relaxed)) }
        set {
            guard !newValue.isNaN else { return }
            let clamped = min(max(newValue, range.lowerBound), range.upperBound)
            bits.store(clamped.bitPattern, ordering: .relaxed)
        }
    }

    /// Sets the value, or throws when it is outside `range` (for command-line input).
    public func set(checking newValue: Float) throws(ParameterError) {
        guard range.contains(newValue) else {
            throw ParameterError.outOfRange(name: name, value: newValue, range: range, unit: unit)
        }
        value = newValue
    }
}

public enum ParameterError: Error, CustomStringConvertible, Equatable {
    case outOfRange(name: String, value: Float, range: ClosedRange<Float>, unit: String)

    public var description: String {
        switch self {
        case let .outOfRange(name, value, range, unit):
            let u = unit.isEmpty ? "" : " \(unit)"
            return "\(name) \(formatNumber(value))\(u) is out of range \(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound))\(u)"
        }
    }
}

func formatNumber(_ x: Float) -> String {
    x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
}

/// A linear ramp from the current value to a target over a fixed number of
/// steps, the way JUCE's `SmoothedValue` does it: cheap, exact at the end,
/// and free of the zipper noise of stepping a gain once per block.
///
/// Every value is computed back from the target (`target − step × remaining`)
/// rather than accumulated, so rounding never builds up into a jump at the end
/// of the ramp, the last value is exactly `target`, and `skip(n)` lands on the
/// same value as `n` calls to `next()`: how a stream is cut into blocks never
/// changes the ramp.
///
/// The one ramp of every node: per sample in `Float` (`LinearSmoother`), or per
/// coefficient update in `Double` (`BiquadNode`). All its methods are
/// realtime-safe (arithmetic only) and visible to the `@_noLocks` checker in
/// release builds, which compile the module as a whole.
public struct LinearRamp<Value: BinaryFloatingPoint> {
    /// The value now.
    public var current: Value
    /// Where the ramp is heading (or sits).
    public var target: Value
    @usableFromInline var step: Value = 0
    @usableFromInline var remaining = 0
    /// Steps a change takes; values below 1 count as 1. Takes effect at the next `setTarget`.
    public var rampLength: Int

    /// - Parameter rampLength: steps a change takes (at least 1).
    @inlinable
    public init(value: Value, rampLength: Int) {
        current = value
        target = value
        self.rampLength = max(1, rampLength)
    }

    // MARK: Audio thread

    /// Whether a ramp is under way.
    /// - Thread: audio
    /// - Realtime: safe
    @inlinable
    public var isSmoothing: Bool { remaining > 0 }

    /// Starts a ramp from `current` to `newTarget` if it differs from the
    /// current target.
    /// - Thread: audio
    /// - Realtime: safe
    @inlinable
    public mutating func setTarget(_ newTarget: Value) {
        if newTarget == target { return }
        target = newTarget
        remaining = max(1, rampLength)
        step = (newTarget - current) / Value(remaining)
    }

    /// Jumps to `value` with no ramp (the nodes' `reset` uses it).
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public mutating func snap(to value: Value) {
        current = value
        target = value
        remaining = 0
    }

    /// The next value of the ramp; exactly `target` at its end.
    /// - Thread: audio
    /// - Realtime: safe
    @inlinable @inline(__always)
    public mutating func next() -> Value {
        if remaining > 0 {
            remaining -= 1
            current = target - step * Value(remaining)
        }
        return current
    }

    /// Advances `count` steps at once and returns the value reached (the same
    /// as `count` calls to `next()`).
    /// - Thread: audio
    /// - Realtime: safe
    @inlinable @discardableResult
    public mutating func skip(_ count: Int) -> Value {
        if remaining == 0 { return current }
        remaining = max(0, remaining - max(0, count))
        current = target - step * Value(remaining)
        return current
    }
}

/// The per-sample gain ramp of the nodes (see `LinearRamp`).
public typealias LinearSmoother = LinearRamp<Float>
