import Foundation
import Host
import Stages

/// `GET /metrics` of one or more named sessions (`viewfinder launch`: one, named `main`; `run FILE`: the file's base
/// name; a process serving many passes them all): every figure the host has, as Prometheus text 0.0.4
/// (`PrometheusText`), each sample labelled `pipeline="NAME"`, then the process's own (`ProcessMetrics`).
///
/// Per pipeline, from the session itself: `viewfinder_pipeline_state{state}` (1 for its phase of built, running,
/// stopping, ended; 0 for the others), `viewfinder_frames_in_total`,
/// `viewfinder_frames_out_total`, `viewfinder_frames_dropped_total`, `viewfinder_fps` (frames out per second over
/// the run so far), `viewfinder_run_seconds`, and the summary `viewfinder_stage_process_seconds{stage,quantile}`
/// (p50 and p95, `_sum`, `_count`: `SessionReport`'s timings, 5 % buckets). Then what the stages offer
/// (`StageMetrics`: label `stage`) and the services (`SessionService.metricSamples`), so the collector names no
/// stage and no service: compose's analyses and guidance age, capture's and snapshot's photos, viewers of each
/// output, the watched source's state and reconnects, HLS playlist requests.
///
/// Threads: any (the control server's tasks); it reads the sessions only through their thread-safe accessors
/// (`phase`, `liveReport`, `stageInstances`, `stage(named:)`, `services`) and each stage's and service's own locks.
public enum MetricsReport {
    /// The exposition text for `pipelines` (names unique: a repeated name's later sessions are left out) and this
    /// process (`process`: nil leaves the `process_*` families out).
    public static func text(_ pipelines: [(name: String, session: Session)], process: ProcessMetrics? = ProcessMetrics.current()) -> String
    {
        PrometheusText.render(families(pipelines, process: process))
    }

    /// `GET /metrics`'s answer: 200 with the text (`PrometheusText.contentType`).
    public static func response(_ pipelines: [(name: String, session: Session)]) -> ControlResponse {
        ControlResponse(
            statusCode: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-cache"],
            body: Data(text(pipelines).utf8))
    }

    /// The families, in the order they first appear (the pipelines' own, the stages', the services', the process's).
    public static func families(_ pipelines: [(name: String, session: Session)], process: ProcessMetrics?) -> [PrometheusText.Family] {
        var set = FamilySet()
        var names = Set<String>()
        for (name, session) in pipelines where names.insert(name).inserted { collect(name, session, into: &set) }
        return set.families + (process?.families ?? [])
    }

    /// The phases in the order `viewfinder_pipeline_state` lists them.
    static let phases: [Session.Phase] = [.built, .running, .stopping, .ended]

    private static func collect(_ name: String, _ session: Session, into set: inout FamilySet) {
        let pipeline = ("pipeline", name)
        let phase = session.phase
        for p in phases {
            set.add(
                "viewfinder_pipeline_state", .gauge, "1 for the pipeline's phase (built, running, stopping, ended), 0 for the others",
                .init(labels: [pipeline, ("state", p.rawValue)], value: p == phase ? 1 : 0))
        }
        let report = session.liveReport
        let counters: [(String, String, Int)] = [
            ("viewfinder_frames_in_total", "Frames that reached the first stage workers", report?.framesIn ?? 0),
            ("viewfinder_frames_out_total", "Frames the last stage workers passed on", report?.framesOut ?? 0),
            (
                "viewfinder_frames_dropped_total", "Frames dropped by the leaky hand-offs in front of the stage workers",
                report?.dropped ?? 0
            ),
        ]
        for (metric, help, value) in counters { set.add(metric, .counter, help, .init(labels: [pipeline], value: Double(value))) }
        guard let report else { return collectOffered(pipeline, session, into: &set) }
        set.add("viewfinder_fps", .gauge, "Frames out per second, over the run so far", .init(labels: [pipeline], value: report.fps))
        set.add(
            "viewfinder_run_seconds", .gauge, "Seconds since the pipelines started playing (the run's length once it ended)",
            .init(labels: [pipeline], value: report.seconds))
        let timing = "viewfinder_stage_process_seconds"
        let timingHelp = "Time a stage took per frame on its worker, in seconds (quantiles over the run, 5 % buckets)"
        for t in report.stages {
            let labels = [pipeline, ("stage", t.name)]
            // An empty summary's quantiles are NaN, as Prometheus's client libraries write them.
            for (q, ms) in [("0.5", t.p50Ms), ("0.95", t.p95Ms)] {
                set.add(timing, .summary, timingHelp, .init(labels: labels + [("quantile", q)], value: t.frames == 0 ? .nan : ms / 1000))
            }
            set.add(timing, .summary, timingHelp, .init(suffix: "_sum", labels: labels, value: t.totalMs / 1000))
            set.add(timing, .summary, timingHelp, .init(suffix: "_count", labels: labels, value: Double(t.frames)))
        }
        collectOffered(pipeline, session, into: &set)
    }

    /// What the stages (`StageMetrics`) and the services offer, labelled with the pipeline (and the stage).
    private static func collectOffered(_ pipeline: (String, String), _ session: Session, into set: inout FamilySet) {
        for (stage, _) in session.stageInstances {
            guard let s = session.stage(named: stage) as? any StageMetrics else { continue }
            for m in s.metricSamples { set.add(m, labels: [pipeline, ("stage", stage)]) }
        }
        for service in session.services {
            for m in service.metricSamples { set.add(m, labels: [pipeline]) }
        }
    }
}

/// Families gathered in the order their names first come; each name keeps the kind and help it came with first
/// (a sample of another kind under that name is left out: the text must not contradict its `# TYPE`).
struct FamilySet {
    private var order: [String] = []
    private var byName: [String: PrometheusText.Family] = [:]

    /// The families so far.
    var families: [PrometheusText.Family] { order.compactMap { byName[$0] } }

    mutating func add(_ name: String, _ kind: PrometheusText.Kind, _ help: String, _ sample: PrometheusText.Sample) {
        guard let f = byName[name] else {
            order.append(name)
            byName[name] = PrometheusText.Family(name: name, help: help, kind: kind, samples: [sample])
            return
        }
        guard f.kind == kind else { return }
        byName[name]?.samples.append(sample)
    }

    /// A stage's or service's sample, after the collector's `labels`.
    mutating func add(_ m: MetricSample, labels: [(name: String, value: String)]) {
        let kind: PrometheusText.Kind = m.kind == .counter ? .counter : .gauge
        add(m.name, kind, m.help, .init(labels: labels + m.labels, value: m.value))
    }
}
