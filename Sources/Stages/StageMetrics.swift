/// One figure a stage or a session service offers to `GET /metrics` (Control's `MetricsReport`): a metric name in
/// Prometheus's form (`viewfinder_analyses_total`: `[a-zA-Z_:][a-zA-Z0-9_:]*`, counters ending in `_total`, base
/// units such as seconds), its kind, a one-line help, its own labels and the value. The collector adds the labels
/// that say whose it is (`pipeline`, and `stage` for a stage's) in front of `labels`.
///
/// Samples of one name must agree on `kind` and `help` wherever they come from (a stage and a service, two stages):
/// the first one seen wins, one of another kind is left out. Names and helps shared by several stages or services
/// are made here (`photos`, `viewers`) so they cannot drift apart.
public struct MetricSample: Sendable {
    /// How Prometheus reads it.
    public enum Kind: String, Sendable {
        /// Only goes up (restarts from 0 with the process); the name ends in `_total`.
        case counter
        /// Goes up and down.
        case gauge
    }

    /// The metric's name (`viewfinder_analyses_total`).
    public var name: String
    /// Counter or gauge.
    public var kind: Kind
    /// One line saying what it counts and in which unit.
    public var help: String
    /// The sample's own labels, after the collector's (`output`, `source`, `state`), in order.
    public var labels: [(name: String, value: String)]
    /// The value.
    public var value: Double

    /// A sample.
    public init(_ name: String, _ kind: Kind, help: String, labels: [(name: String, value: String)] = [], value: Double) {
        self.name = name; self.kind = kind; self.help = help; self.labels = labels; self.value = value
    }

    /// Photos a stage took so far (`viewfinder_photos_total`).
    public static func photos(_ count: Int) -> MetricSample {
        MetricSample(
            "viewfinder_photos_total", .counter, help: "Photos taken: capture's files saved, snapshot's frames sent to its branch",
            value: Double(count))
    }

    /// Clients watching one output now (`viewfinder_viewers{output="..."}`): RTSP connections, WebRTC peers,
    /// preview viewers, event-stream clients.
    public static func viewers(output: String, _ count: Int) -> MetricSample {
        MetricSample(
            "viewfinder_viewers", .gauge,
            help: "Clients connected to an output now (RTSP connections, WebRTC peers, preview viewers, event clients)",
            labels: [("output", output)], value: Double(count))
    }
}

/// A stage with figures of its own for `GET /metrics` (compose's analyses, capture's photos). The host reads
/// them through the session's stages; it knows no stage by name.
///
/// Threads: `metricSamples` is read from the control server's tasks while the stage runs (and after): it must
/// take only the stage's own locks, briefly, and never block on the video or analysis threads.
public protocol StageMetrics: Stage {
    /// The stage's samples now (the collector adds `pipeline` and `stage` labels).
    var metricSamples: [MetricSample] { get }
}
