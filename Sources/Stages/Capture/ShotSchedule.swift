import FrameAnalysis

/// The trigger schedule `snapshot` and `capture` share: every `interval` seconds of stream time (the
/// first frame included), the frame numbers in `at`, the manual shutter (SIGUSR1 and the `s` key, through
/// `Triggers`) when `manual` is on, and the `max-shots` limit. Also the properties that set it, and the
/// JPEG `quality` of the default branches, declared once for both stages.
///
/// A value type with no lock of its own: the owning stage keeps it inside its state mutex and calls
/// `due` from `process` (the group's worker thread); `update` may come from any thread, under that lock.
public struct ShotSchedule: Sendable {
    /// The property keys of a stage that uses the schedule; the blurbs name what the stage makes.
    public struct Keys: Sendable {
        /// `interval`: seconds of stream time between triggered shots (0: off).
        public let interval: Property<Double>
        /// `at`: frame numbers (from 0) that trigger a shot.
        public let at: Property<[Int]>
        /// `manual`: react to SIGUSR1 and the `s` key.
        public let manual: Property<Bool>
        /// `max-shots`: stop after this many shots (0: no limit).
        public let maxShots: Property<Int>
        /// `quality`: JPEG quality of the default branch(es).
        public let quality: Property<Int>

        /// The keys with each stage's own blurbs (`manual` reads the same for every stage).
        public init(interval: String, at: String, maxShots: String, quality: String) {
            self.interval = Property("interval", interval, .double(0...86_400), default: 0, mutability: .playing)
            self.at = Property("at", at, .intList, default: [])
            self.manual = Property(
                "manual", "React to SIGUSR1 and to the 's' key when stdin is a terminal", .bool, default: true, mutability: .playing)
            self.maxShots = Property("max-shots", maxShots, .int(0...1_000_000), default: 0, mutability: .playing)
            self.quality = Property("quality", quality, .int(1...100), default: 90)
        }
    }

    /// Seconds of stream time between interval shots (0: off).
    public var interval: Double
    /// Frame numbers that trigger a shot, ascending.
    public let at: [Int]
    /// Whether the manual shutter counts.
    public var manual: Bool
    /// Shots after which the stage stops (0: no limit).
    public var maxShots: Int
    /// JPEG quality of the default branch(es).
    public let quality: Int

    /// The manual-shutter generation already seen.
    private var seenTriggers: Int
    /// Index in `at` of the next frame number to wait for.
    private var nextAt = 0
    /// Stream time (ns) of the last interval shot; nil before the first.
    public private(set) var lastInterval: UInt64?

    /// Reads the schedule's properties; `triggers` as it is now (earlier presses do not count).
    public init(_ values: PropertyValues, keys: Keys, triggers: Triggers) {
        interval = values[keys.interval]
        at = values[keys.at]
        manual = values[keys.manual]
        maxShots = values[keys.maxShots]
        quality = values[keys.quality]
        seenTriggers = triggers.count
    }

    /// Applies a change made while playing; false when `property` is not one of the schedule's
    /// properties that may change then.
    public mutating func update(_ property: String, value: PropertyValue, keys: Keys, stage: String) throws(StageError) -> Bool {
        switch property {
        case keys.interval.name: interval = try keys.interval.value(value, stage: stage)
        case keys.manual.name: manual = try keys.manual.value(value, stage: stage)
        case keys.maxShots.name: maxShots = try keys.maxShots.value(value, stage: stage)
        default: return false
        }
        return true
    }

    /// Whether `shots` taken reach `max-shots`.
    public func limitReached(shots: Int) -> Bool { maxShots > 0 && shots >= maxShots }

    /// The triggers that fire on the frame numbered `frame` at stream time `time` (nil: unknown, no
    /// interval shot), given the manual shutter's generation `fired`, in the order manual, at, interval.
    /// `shots`: shots taken so far when the schedule enforces `max-shots` (nothing fires once it is
    /// reached), nil when the caller does. With `firstOnly`, the first one found ends the look (later
    /// ones stay for a later frame). The manual generation is always taken as seen.
    public mutating func due(frame: Int, time: UInt64?, fired: Int, shots: Int? = nil, firstOnly: Bool = false) -> [CaptureTrigger] {
        var found: [CaptureTrigger] = []
        defer { seenTriggers = fired }
        if let shots, limitReached(shots: shots) { return [] }
        if manual && fired != seenTriggers {
            found.append(.manual)
            if firstOnly { return found }
        }
        while nextAt < at.count && at[nextAt] < frame { nextAt += 1 }
        if nextAt < at.count && at[nextAt] == frame {
            nextAt += 1
            found.append(.at)
            if firstOnly { return found }
        }
        if interval > 0, let time {
            // 1 ms slack so 30 fps timestamps (33.333 ms) land on whole seconds.
            if lastInterval.map({ time &+ 1_000_000 >= $0 &+ UInt64(interval * 1e9) }) ?? true {
                lastInterval = time
                found.append(.interval)
            }
        }
        return found
    }

    /// A shot of another kind taken at `time` starts the interval clock when no interval shot came yet.
    public mutating func startIntervalClock(at time: UInt64) {
        if lastInterval == nil { lastInterval = time }
    }
}
