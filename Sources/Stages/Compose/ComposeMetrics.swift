/// compose's figures for `GET /metrics`: how many frames its analysis thread judged, how many per second lately,
/// and how old the guidance drawn now is.
extension ComposeStage: StageMetrics {
    /// `viewfinder_analyses_total` (counter), `viewfinder_analyses_per_second` (gauge, over the last
    /// `AnalysisRate.window` of stream time, once a frame came) and `viewfinder_guidance_age_seconds` (gauge: the
    /// newest frame's time minus the time of the frame the latest analysis judged, once there is one; 0 when the
    /// stream's time went back). Stream time is the frames' pts: real time for a live source.
    public var metricSamples: [MetricSample] {
        // Each lock alone (the metrics come from a server task, never under another of the stage's locks).
        let (first, newest) = state.withLock { ($0.firstPTS, $0.newestPTS) }
        let (analysed, judged, rate) = results.withLock { ($0.analysed, $0.latest?.pts, $0.rate) }
        var out = [
            MetricSample(
                "viewfinder_analyses_total", .counter, help: "Frames compose's analysis thread judged (subject and composition)",
                value: Double(analysed))
        ]
        if let first, let newest {
            out.append(
                MetricSample(
                    "viewfinder_analyses_per_second", .gauge,
                    help: "Analyses per second of stream time over the last 5 s (real time for a live source)",
                    value: rate.perSecond(now: newest, since: first)))
        }
        if let newest, let judged {
            out.append(
                MetricSample(
                    "viewfinder_guidance_age_seconds", .gauge,
                    help: "How far the frame the latest analysis judged lies behind the newest frame, in seconds of stream time",
                    value: newest >= judged ? Double(newest - judged) / 1e9 : 0))
        }
        return out
    }
}

/// Analyses per second of stream time over a sliding window: each published analysis is recorded at the stream
/// time it came out (the newest frame's pts then), so a stalled analysis thread reads as a falling rate, not as the
/// rate it had. Bounded: at most `limit` times kept.
struct AnalysisRate: Sendable {
    /// The window (ns of stream time).
    static let window: UInt64 = 5_000_000_000
    /// The most times kept (a 5 s window at 120 analyses/s needs 600).
    static let limit = 1024
    /// Stream times (ns) of the recent analyses, oldest first.
    private(set) var times: [UInt64] = []

    /// One analysis published at stream time `t` (ns); times older than a window before it are dropped.
    mutating func record(at t: UInt64) {
        times.append(t)
        let oldest = t > Self.window ? t - Self.window : 0
        if let keep = times.firstIndex(where: { $0 >= oldest }), keep > 0 { times.removeFirst(keep) }
        if times.count > Self.limit { times.removeFirst(times.count - Self.limit) }
    }

    /// Analyses per second in the window ending at stream time `now` (the window is shorter while less than that
    /// has played since `first`, the first frame's time); 0 before any time has passed.
    func perSecond(now: UInt64, since first: UInt64) -> Double {
        guard now > first else { return 0 }
        let span = min(Self.window, now - first)
        let from = now - span
        let n = times.reduce(0) { $0 + ($1 > from && $1 <= now ? 1 : 0) }
        return Double(n) / (Double(span) / 1e9)
    }
}
