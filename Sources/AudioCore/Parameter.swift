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

    /// The current target value.
    /// - Realtime: reading and writing are safe; writes clamp to `range` (NaN is ignored).
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
/// samples, the way JUCE's `SmoothedValue` does it: cheap, exact at the end,
/// and free of the zipper noise of stepping a gain once per block.
public struct LinearSmoother {
    public var current: Float
    public var target: Float
    @usableFromInline var step: Float = 0
    @usableFromInline var remaining = 0
    public var rampLength: Int

    /// - Parameter rampLength: samples a change takes (at least 1).
    public init(value: Float, rampLength: Int) {
        current = value
        target = value
        self.rampLength = max(1, rampLength)
    }

    /// Starts a ramp to `newTarget` if it differs from the current target. Realtime: safe.
    @inlinable
    public mutating func setTarget(_ newTarget: Float) {
        if newTarget == target { return }
        target = newTarget
        remaining = rampLength
        step = (target - current) / Float(rampLength)
    }

    /// Jumps to `value` with no ramp. Realtime: safe.
    @inlinable
    public mutating func snap(to value: Float) {
        current = value
        target = value
        remaining = 0
    }

    public var isSmoothing: Bool { remaining > 0 }

    /// The next value of the ramp. Realtime: safe.
    @inlinable
    public mutating func next() -> Float {
        if remaining > 0 {
            remaining -= 1
            current = remaining == 0 ? target : current + step
        }
        return current
    }

    /// Advances `count` samples at once and returns the value reached. Realtime: safe.
    @inlinable
    public mutating func skip(_ count: Int) -> Float {
        if remaining == 0 { return current }
        if count >= remaining {
            remaining = 0
            current = target
        } else {
            remaining -= count
            current += step * Float(count)
        }
        return current
    }
}

/// Decibels to a linear gain factor.
@inlinable
public func decibelsToGain(_ db: Float) -> Float { db <= -144 ? 0 : powf(10, db / 20) }

/// A linear gain factor to decibels (−inf for 0).
@inlinable
public func gainToDecibels(_ gain: Float) -> Float { gain > 0 ? 20 * log10f(gain) : -.infinity }
