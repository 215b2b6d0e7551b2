import Foundation
import Synchronization

/// What `PreviewTap.offer` costs the group's worker (`PreviewTap.timing`; `reductionCPU` uses it too):
/// calls, total nanoseconds, and a log-scale histogram of single calls, all atomics, so recording takes
/// no lock and reading (a bench, any thread) never stops the worker. Memory is fixed (`bucketCount`
/// counters) whatever the run length.
///
/// Buckets are quarter octaves of nanoseconds: bucket `4k + s` holds durations in
/// [(4 + s) * 2^(k-2), (5 + s) * 2^(k-2)) for k >= 2 (below 4 ns: one bucket per nanosecond), so a
/// quantile is within 25 % (an edge 20-25 % above the next lower) from 1 ns up: a call that finds no
/// viewer takes tens of ns, one that reduces a frame a fraction of a ms.
public final class OfferTiming: Sendable {
    /// Number of histogram buckets (quarter octaves up to 2^64 ns).
    public static let bucketCount = 256
    private let calls = Atomic<Int>(0)
    private let nanoseconds = Atomic<UInt64>(0)
    private let buckets: InlineArray<256, Atomic<Int>>

    /// An empty record.
    public init() { buckets = InlineArray { _ in Atomic(0) } }

    /// Records one call of `ns` nanoseconds (the worker's thread; three relaxed atomic adds).
    public func record(ns: UInt64) {
        calls.add(1, ordering: .relaxed)
        nanoseconds.add(ns, ordering: .relaxed)
        buckets[Self.bucket(ns)].add(1, ordering: .relaxed)
    }

    /// The bucket of a duration.
    static func bucket(_ ns: UInt64) -> Int {
        guard ns >= 4 else { return Int(ns) }
        let msb = 63 - ns.leadingZeroBitCount
        return msb * 4 + Int((ns >> UInt64(msb - 2)) & 3)
    }

    /// The exclusive upper edge of bucket `i`, in nanoseconds.
    static func upperEdge(_ i: Int) -> Double {
        guard i >= 4 else { return Double(i + 1) }
        let k = i / 4, s = i % 4
        return Double(5 + s) * pow(2, Double(k - 2))
    }

    /// The counters now (not one atomic snapshot: a call recorded meanwhile may be half in it).
    public var figures: Figures {
        Figures(
            calls: calls.load(ordering: .relaxed), nanoseconds: nanoseconds.load(ordering: .relaxed),
            buckets: (0..<Self.bucketCount).map { buckets[$0].load(ordering: .relaxed) })
    }

    /// A reading of the counters; two readings subtract to the calls between them.
    public struct Figures: Sendable, Equatable {
        /// Calls recorded.
        public var calls: Int
        /// Total time in them.
        public var nanoseconds: UInt64
        /// Calls per bucket (see `OfferTiming`).
        public var buckets: [Int]

        /// No calls.
        public static let zero = Figures(calls: 0, nanoseconds: 0, buckets: [Int](repeating: 0, count: OfferTiming.bucketCount))

        /// The calls recorded after `earlier` (a reading of the same record).
        public func since(_ earlier: Figures) -> Figures {
            Figures(
                calls: calls - earlier.calls, nanoseconds: nanoseconds &- earlier.nanoseconds,
                buckets: zip(buckets, earlier.buckets).map { max(0, $0 - $1) })
        }

        /// Both readings' calls together (windows of one kind summed).
        public static func + (a: Figures, b: Figures) -> Figures {
            Figures(
                calls: a.calls + b.calls, nanoseconds: a.nanoseconds &+ b.nanoseconds,
                buckets: zip(a.buckets, b.buckets).map { $0 + $1 })
        }

        /// Mean time per call in milliseconds (0 without calls).
        public var meanMs: Double { calls > 0 ? Double(nanoseconds) / Double(calls) / 1e6 : 0 }

        /// The time below which a fraction `q` of the calls took (upper edge of its bucket), in ms.
        public func quantileMs(_ q: Double) -> Double {
            let n = buckets.reduce(0, +)
            guard n > 0 else { return 0 }
            let target = max(1, Int((Double(n) * q).rounded(.up)))
            var seen = 0
            for (i, c) in buckets.enumerated() {
                seen += c
                if seen >= target { return OfferTiming.upperEdge(i) / 1e6 }
            }
            return OfferTiming.upperEdge(buckets.count - 1) / 1e6
        }
    }
}
