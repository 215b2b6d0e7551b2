import Foundation
import GStreamerKit
import Timing

/// The figures of a run, from the stage groups' counters: frames in and out, drops, caps changes,
/// buffer copies since the session was built, time per stage, and the stages' own end-of-run notes.
///
/// Threads and locks: `report(start:)` may be called from any thread while the workers run (the
/// progress line does it on the bus loop's thread); it reads each group's `stats` under that group's
/// mutex and its atomics, and takes no other lock. `notes()` asks the stages, after the run.
struct SessionReporter: Sendable {
    let groups: [StageGroup]
    /// The binding's copy count when the session was built.
    let copiesAtStart: Int
    /// Times the run.
    let clock: any HostClock

    /// A reporter for `groups`, counting copies from `copiesAtStart` (by default: from now), timing with `clock`.
    init(groups: [StageGroup], copiesAtStart: Int = BufferCopies.count, clock: any HostClock = SystemClock.shared) {
        self.groups = groups
        self.copiesAtStart = copiesAtStart
        self.clock = clock
    }

    /// The figures so far, timed from `start` (a value of `clock.now` when the run started).
    /// `final`: the run is over, and frames that arrived and were never pulled (left in a hand-off at the stop)
    /// count as dropped too; while it runs only the hand-offs' own drops count, so the figure never goes down
    /// (`/metrics` serves it as a counter) while frames pass through a queue.
    func report(start: Double, final: Bool = false) -> SessionReport { report(seconds: clock.elapsed(since: start), final: final) }

    /// The figures so far, for a run of `seconds`.
    private func report(seconds: Double, final: Bool) -> SessionReport {
        var framesIn = 0, framesOut = 0, dropped = 0, reneg = 0
        var timings: [SessionReport.StageTiming] = []
        // Frames in: what reached the first workers; frames out: what the last workers passed on.
        let feeding = Set(groups.compactMap { $0.main?.segment })
        let sinks = Set(groups.map(\.sinkSegment))
        for g in groups {
            let v = g.stats.values.withLock { $0 }
            let arrived = g.arrivals.value
            if !feeding.contains(g.sinkSegment) { framesIn += arrived }
            if !(g.main.map { sinks.contains($0.segment) } ?? false) { framesOut += v.pushed }
            let counted = g.drops?.value ?? 0
            dropped += final ? max(counted, arrived - v.pulled) : counted
            reneg += v.renegotiations
            for n in g.stats.stageOrder {
                let h = v.perStage[n] ?? DurationHistogram()
                timings.append(
                    .init(name: n, frames: h.count, meanMs: h.mean, p95Ms: h.quantile(0.95), p50Ms: h.quantile(0.5), totalMs: h.total))
            }
        }
        return SessionReport(
            framesIn: framesIn, framesOut: framesOut, dropped: dropped, seconds: seconds,
            renegotiations: reneg, copies: BufferCopies.count - copiesAtStart, stages: timings)
    }

    /// One line per stage with something to say at the end ("capture0: 3 photos saved in out/photos").
    func notes() -> [String] {
        var out = groups.flatMap { g in g.stages.compactMap { $0.stage.summary() } }
        for g in groups {
            let v = g.stats.values.withLock { $0 }
            if v.placeholders > 0 || v.behind > 0 {
                out.append("\(g.name): \(v.placeholders) placeholder frames while the source was away, \(v.behind) late frames dropped behind them")
            }
        }
        return out
    }
}
