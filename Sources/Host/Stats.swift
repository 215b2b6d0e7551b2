import Foundation
import Synchronization

/// A fixed-size log-scale histogram of durations: bounded memory whatever the run length.
public struct DurationHistogram: Sendable {
    // Bucket i holds values in [base * r^i, base * r^(i+1)); 1 µs .. ~ 100 s at 5 % resolution.
    private static let base = 1e-3, ratio = 1.05, buckets = 380
    private var counts = [Int](repeating: 0, count: DurationHistogram.buckets)
    /// Number of samples.
    public private(set) var count = 0
    /// Sum of samples (ms).
    public private(set) var total = 0.0
    /// Creates an empty histogram.
    public init() {}
    /// Records one duration in milliseconds.
    public mutating func record(ms: Double) {
        count += 1; total += ms
        let i = ms <= Self.base ? 0 : min(Self.buckets - 1, Int(log(ms / Self.base) / log(Self.ratio)))
        counts[i] += 1
    }
    /// Mean in ms.
    public var mean: Double { count == 0 ? 0 : total / Double(count) }
    /// The value below which `q` of the samples lie (upper edge of the bucket), in ms.
    public func quantile(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let target = Int((Double(count) * q).rounded(.up))
        var seen = 0
        for (i, c) in counts.enumerated() {
            seen += c
            if seen >= max(1, target) { return Self.base * pow(Self.ratio, Double(i + 1)) }
        }
        return Self.base * pow(Self.ratio, Double(Self.buckets))
    }
}

/// Counters of one stage group, shared by its worker (writer) and the reporter (reader).
final class GroupStats: Sendable {
    struct Values {
        var pulled = 0, pushed = 0, renegotiations = 0, snapshots = 0
        /// Live frames dropped for arriving behind the placeholders that stood in for them (supervised source).
        var behind = 0
        /// Placeholder frames (the slate) the worker passed on while the source was away.
        var placeholders = 0
        var perStage: [String: DurationHistogram] = [:]
    }
    let values = Mutex(Values())
    let stageOrder: [String]
    init(stages: [String]) { stageOrder = stages }
}

/// End-of-run figures for the whole session.
public struct SessionReport: Sendable {
    /// Per stage timing.
    public struct StageTiming: Sendable {
        public var name: String; public var frames: Int; public var meanMs: Double; public var p95Ms: Double
        /// The median (ms; the upper edge of its 5 % bucket, as `p95Ms`).
        public var p50Ms: Double = 0
        /// Every frame's time added up (ms).
        public var totalMs: Double = 0
    }
    /// Frames that reached the first stage worker(s).
    public var framesIn: Int
    /// Frames the last stage worker(s) passed on.
    public var framesOut: Int
    /// Frames discarded by leaky hand-offs.
    public var dropped: Int
    /// Wall-clock seconds from PLAYING to the end.
    public var seconds: Double
    /// Caps changes seen by stage workers.
    public var renegotiations: Int
    /// Buffer copies made by the binding (copy-on-write) during the run.
    public var copies: Int
    /// Timing per stage.
    public var stages: [StageTiming]
    /// One line per stage that has something to say at the end ("capture0: 3 photos saved in out/photos").
    public var notes: [String] = []
    /// Output frames per second.
    public var fps: Double { seconds > 0 ? Double(framesOut) / seconds : 0 }

    /// Multi-line human summary.
    public var text: String {
        var s = String(
            format: "frames: %d in, %d out, %d dropped; %.1f fps over %.2f s; %d buffer copies", framesIn, framesOut, dropped, fps, seconds,
            copies)
        if renegotiations > 1 { s += "; \(renegotiations) caps changes" }
        for t in stages {
            s += String(format: "\n  stage %@: %d frames, mean %.3f ms, p95 %.3f ms", t.name, t.frames, t.meanMs, t.p95Ms)
        }
        for n in notes { s += "\n  \(n)" }
        return s
    }
}
