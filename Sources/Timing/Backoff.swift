/// The one retry schedule of the project: the first delay, multiplied by `factor` after each failure, at most
/// `maximum` (source recovery, photo branches, the plugin's default branch, MQTT reconnect).
///
/// A value type: each retrying owner keeps its own. Example: `Backoff(first: 5, maximum: 60)` gives 5, 10, 20, 40,
/// 60, 60, ... and `reset()` after a success starts at 5 again.
public struct Backoff: Sendable, Equatable {
    /// The delay before the first retry (seconds, > 0).
    public let first: Double
    /// The longest delay (seconds, >= first).
    public let maximum: Double
    /// What each failure multiplies the delay by (>= 1).
    public let factor: Double
    /// Failures since the last reset.
    public private(set) var failures = 0

    public init(first: Double, maximum: Double, factor: Double = 2) {
        self.first = max(0.001, first)
        self.maximum = max(self.first, maximum)
        self.factor = max(1, factor)
    }

    /// The delay the next retry waits, without counting a failure.
    public var current: Double {
        var d = first
        var i = 0
        while i < failures && d < maximum {
            d *= factor
            i += 1
        }
        return min(d, maximum)
    }

    /// Counts a failure; returns the delay to wait before retrying.
    public mutating func next() -> Double {
        let d = current
        failures += 1
        return d
    }

    /// After a success: the next failure waits `first` again.
    public mutating func reset() { failures = 0 }
}
