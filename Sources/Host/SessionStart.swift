import Foundation
import GStreamerKit
import Stages

/// How a session starts: stages opened, then the segments brought to PLAYING on one clock.
extension Session {
    /// A segment that would not start, and since when the run was timed (`options.clock`).
    struct StartFailure: Error { var text: String; var start: Double }

    /// Opens every stage (directories, indexes, metadata files), just before the pipelines start, so a
    /// description refused before this point (exit 2, `--dry-run`) has written nothing. A stage that cannot
    /// open ends the run with exit 1 naming it (stages opened before it are closed again).
    /// Returns nil when all opened, else the exit code.
    func openStages() -> Int32? {
        var opened: [any Stage] = []
        for g in groups {
            for (name, stage) in g.stages {
                do { try stage.open() } catch {
                    errors.append("stage '\(name)' cannot start: \(error.message)")
                    for s in opened { s.close() }
                    return 1
                }
                opened.append(stage)
            }
        }
        return nil
    }

    /// Live-ness, one clock and base time, then PLAYING downstream first, the workers, the roots; the services
    /// are told the clock and base time once everything plays. Returns when the run started (or which segment
    /// failed).
    func startPipelines() -> Result<Double, StartFailure> {
        let clock = GStreamerKit.Clock.system()
        for p in pipelines { p.use(clock) }
        let roots = plan.segments.filter { $0.appSources.isEmpty }.map(\.index)
        // Which segments are live: roots by their answer to PAUSED, the rest by what feeds them.
        var live = Set<Int>()
        for r in roots {
            let res = pipelines[r].setState(.paused)
            if res == .failure { return .failure(StartFailure(text: "segment \(r) failed to start", start: options.clock.now)) }
            if res == .noPreroll { live.insert(r) }
        }
        var changed = true
        while changed {
            changed = false
            for g in groups where live.contains(g.sinkSegment) {
                for seg in [g.main?.segment].compactMap({ $0 }) + g.extras.values.map(\.segment) where !live.contains(seg) {
                    live.insert(seg); changed = true
                }
            }
        }
        for g in groups { g.prepare(live: live.contains(g.sinkSegment)) }
        let base = clock.now
        for p in pipelines { p.fixBaseTime(base) }
        let start = options.clock.now
        // Downstream first, so every appsrc branch is ready before frames flow.
        for i in pipelines.indices.reversed() where !roots.contains(i) {
            if pipelines[i].setState(.playing) == .failure {
                return .failure(StartFailure(text: "segment \(i) failed to start", start: start))
            }
        }
        // Workers only once every appsink is started: a stopped appsink answers "EOS", and a worker
        // that believed it ended its group for good (the second stage of `passthrough ! identity !
        // passthrough` never saw a frame and the run hung).
        for g in groups { g.start() }
        for r in roots {
            if pipelines[r].setState(.playing) == .failure {
                return .failure(StartFailure(text: "segment \(r) failed to start", start: start))
            }
        }
        let timing = RunTiming(clock: clock, baseTime: base)
        for s in services { s.playing(timing) }
        return .success(start)
    }
}
