import Diagnostics
import GStreamerKit

/// Which source segments a `SourceKeeper` watches, decided when the session is built.
enum SourceSupervision {
    /// Sources reached over a network: supervised by default (`--reconnect` auto).
    static let networkFactories: Set<String> = [
        "rtspsrc", "srtsrc", "srtclientsrc", "srtserversrc", "udpsrc", "tcpclientsrc", "tcpserversrc", "souphttpsrc",
        "rtmpsrc", "rtmp2src", "ristsrc", "whepsrc", "webrtcsrc", "rtpsrc", "rtspclientsink",
    ]
    /// Elements taking a `uri`: network when its scheme is not `file`.
    static let uriFactories: Set<String> = ["uridecodebin", "uridecodebin3", "urisourcebin", "playbin", "playbin3"]

    /// Whether `e` reads from a network.
    static func isNetwork(_ e: Element) -> Bool {
        let f = e.factoryName
        if networkFactories.contains(f) { return true }
        if uriFactories.contains(f), let uri = e.string("uri"), let colon = uri.firstIndex(of: ":") {
            return uri[..<colon].lowercased() != "file"
        }
        return false
    }

    /// Whether `e` is a live source: a network source or a live GstBaseSrc (v4l2src, videotestsrc is-live=true).
    static func isLive(_ e: Element) -> Bool { isNetwork(e) || e.isLiveBaseSource == true }

    /// The source segments to watch: segment index -> (the group it feeds, the source element's name).
    /// `.on` with no live source before a stage is a usage error; a watched segment with other sinks gets a
    /// warning (they restart with the source).
    static func plan(
        mode: SessionOptions.ReconnectMode, plan: ExpansionPlan, pipelines: [Pipeline], groups: [StageGroup]
    ) throws(HostError) -> [(segment: Int, group: StageGroup, element: String)] {
        if mode == .off { return [] }
        var out: [(Int, StageGroup, String)] = []
        for seg in plan.segments where seg.appSources.isEmpty {
            let feeding = groups.filter { $0.sinkSegment == seg.index }
            guard feeding.count == 1, let group = feeding.first else { continue }
            let elements = pipelines[seg.index].describedElements
            let pick: Element? =
                mode == .on ? elements.first(where: { isLive($0) }) : elements.first(where: { isNetwork($0) })
            guard let source = pick else { continue }
            let others = elements.filter { $0.isSink && $0.name != group.sink.name }.map(\.name)
            if !others.isEmpty {
                Log.host.say(
                    .warning,
                    "viewfinder: warning: --reconnect restarts everything before the first stage with the source '\(source.name)', "
                        + "including \(others.joined(separator: ", ")): put branches after a stage to keep them running")
            }
            out.append((seg.index, group, source.name))
        }
        if mode == .on && out.isEmpty {
            if groups.isEmpty {
                throw HostError(
                    .usage,
                    "--reconnect: the description has no Viewfinder stage; expected a live source followed by a stage (e.g. 'rtspsrc location=... ! decodebin ! videoconvert ! compose ! ...'): the host restarts what comes before the first stage while the rest keeps running"
                )
            }
            throw HostError(
                .usage,
                "--reconnect: no live source before the first stage; expected a network or camera source (rtspsrc, srtsrc, udpsrc, souphttpsrc, v4l2src, videotestsrc is-live=true...): a file that ends ends the run"
            )
        }
        return out
    }
}
