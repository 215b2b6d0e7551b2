import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Timing

/// Keeps photo branches going: a branch fed only by a stage's extra output (a snapshot branch) that fails
/// (full disk, unwritable directory) is stopped on its own while the stream goes on, its stage is told
/// (`outputFailed`), and it is started again later — 5 s, doubling up to a minute — in case space comes
/// back (`outputRestarted`). Each event is also returned as a typed message for the session's list.
///
/// The schedule is a `Backoff` per branch, kept for the run: each failure (an error, or a restart that could
/// not even start the branch) waits twice as long as the one before, up to 60 s; times come from `clock`.
///
/// Threads and locks: used only by the bus loop, on the thread running `Session.run()`; no locks. It reads
/// each group's `ended` atomic, written by that group's worker.
final class BranchSupervisor {
    /// A stopped branch: when to try again (`clock`'s seconds; nil while it runs again), its schedule, its owner.
    struct DeadBranch {
        var retryAt: Double?
        var backoff: Backoff
        var group: StageGroup
        /// "stage.output".
        var output: String
    }

    private let pipelines: [Pipeline]
    private let groups: [StageGroup]
    private let clock: any HostClock
    /// Stopped branches by segment index (a restarted one stays, with no `retryAt`, to keep its schedule).
    private(set) var dead: [Int: DeadBranch] = [:]
    /// "element: text" of every branch error (the first 100).
    private(set) var errors: [String] = []

    init(pipelines: [Pipeline], groups: [StageGroup], clock: any HostClock = SystemClock.shared) {
        self.pipelines = pipelines
        self.groups = groups
        self.clock = clock
    }

    /// The stage group and "stage.output" whose extra output feeds segment `i`, when that segment is a
    /// branch fed only by that output (a photo branch), not a path to other stages or the main output.
    func owner(segment i: Int) -> (group: StageGroup, output: String)? {
        for g in groups {
            guard let (key, _) = g.extras.first(where: { $0.value.segment == i }) else { continue }
            if groups.contains(where: { $0.sinkSegment == i }) || groups.contains(where: { $0.main?.segment == i }) { return nil }
            return (g, key)
        }
        return nil
    }

    /// Handles an error from segment `i`: when it is a photo branch, stops it, reports it on stderr,
    /// tells its stage and returns the message to record; nil when the segment is not a photo branch.
    /// The caller marks the segment ended.
    func branchFailed(segment i: Int, source: String, text: String) -> BusMessage? {
        guard let (group, output) = owner(segment: i) else { return nil }
        var backoff = dead[i]?.backoff ?? .outputRestart
        let delay = backoff.next()
        Log.host.say(
            .error, "ERROR from element \(source) in the '\(output)' branch (stopped; the stream goes on; retrying in \(Int(delay)) s): \(text)")
        if errors.count < 100 { errors.append("\(source): \(text)") }
        pipelines[i].setState(.null)
        dead[i] = DeadBranch(retryAt: clock.now + delay, backoff: backoff, group: group, output: output)
        let (stageName, out) = Self.split(output)
        for st in group.stages where st.name == stageName { st.stage.outputFailed(out, reason: text) }
        return BusMessage(
            source: group.sink.name,
            structure: OutputErrorMessage(stage: stageName, output: out, element: source, text: text).structure)
    }

    /// Starts stopped branches again once their delay is over, unless the stream is ending (`stopping`,
    /// or the owner's worker ended). Restarted segments leave `eos`; returns the messages to record.
    func restartDue(stopping: Bool, eos: inout Set<Int>) -> [BusMessage] {
        var restarted: [BusMessage] = []
        let now = clock.now
        for (i, d) in dead {
            guard let at = d.retryAt, now >= at else { continue }
            if stopping || d.group.ended.load(ordering: .sequentiallyConsistent) { dead[i] = nil; continue }
            guard pipelines[i].setState(.playing) != .failure else {
                var backoff = d.backoff
                dead[i]?.retryAt = now + backoff.next()
                dead[i]?.backoff = backoff
                continue
            }
            dead[i]?.retryAt = nil
            eos.remove(i)
            // The worker may have ended the stream while the branch was down: end this branch too.
            if d.group.ended.load(ordering: .sequentiallyConsistent) { d.group.extras[d.output]?.src.endOfStream() }
            Log.host.say(.notice, "viewfinder: the '\(d.output)' branch was started again")
            let (stageName, out) = Self.split(d.output)
            for st in d.group.stages where st.name == stageName { st.stage.outputRestarted(out) }
            restarted.append(
                BusMessage(source: d.group.sink.name, structure: OutputRestartedMessage(stage: stageName, output: out).structure))
        }
        return restarted
    }

    /// "stage.output" split in two.
    static func split(_ key: String) -> (stage: String, output: String) {
        guard let dot = key.lastIndex(of: ".") else { return (key, "") }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }
}
