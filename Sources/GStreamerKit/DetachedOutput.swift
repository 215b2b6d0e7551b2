import CGStreamer

/// A network output taken out of its pipeline into a pipeline of its own, so that it can fail and be started again
/// while everything else runs on: the sink, and what feeds it up to and including the nearest muxer (`flvmux !
/// rtmp2sink`). Each linked input of the muxer is cut: what fed it now ends in an appsink in the original pipeline,
/// whose samples an appsrc in the output's pipeline pushes on (caps and segments included) while the relay is open.
/// The appsinks never block (they drop when full) and the appsrcs never block (leaky, 16 MiB), so a stalled or
/// failed output holds nothing upstream.
///
/// Threads and locks: made before the pipelines play, on the session's thread; `open`/`close` from any thread (one
/// atomic per relay); the relays run on the original pipeline's streaming threads.
public final class DetachedOutput: @unchecked Sendable {
    /// The output's own pipeline (appsrcs, the muxer, the sink).
    public let pipeline: Pipeline
    /// The network sink, now in `pipeline`.
    public let sink: Element
    /// The appsinks left in the original pipeline, one per muxer input.
    public let taps: [AppSink]
    /// The appsrcs feeding the muxer, one per tap.
    public let sources: [AppSource]
    private let relays: [UnsafeMutablePointer<VfRelay>]

    private init(pipeline: Pipeline, sink: Element, taps: [AppSink], sources: [AppSource], relays: [UnsafeMutablePointer<VfRelay>]) {
        self.pipeline = pipeline
        self.sink = sink
        self.taps = taps
        self.sources = sources
        self.relays = relays
    }

    /// Moves `sink` (a direct child of `from`, which must not be playing yet) and what feeds it up to its muxer into a
    /// new pipeline named `name`; nil when no muxer is found within 16 single-input elements upstream (a tee, a
    /// source or a bin boundary comes first): then nothing changed. The relays start closed.
    public static func detach(_ sink: Element, from: Pipeline, name: String) -> DetachedOutput? {
        guard let raw = gst_pipeline_new(name) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(raw))
        let out = Pipeline(owning: raw)
        var count: guint = 0
        let prefix = "vf_out_\(sink.name)"
        guard let array = vf_detach_output(vf_bin(UnsafeMutableRawPointer(from.raw)), sink.raw, vf_bin(UnsafeMutableRawPointer(raw)), prefix, &count)
        else { return nil }
        defer { g_free(array) }
        var relays: [UnsafeMutablePointer<VfRelay>] = []
        var taps: [AppSink] = [], sources: [AppSource] = []
        for i in 0..<Int(count) {
            guard let r = array[i] else { continue }
            relays.append(r)
            if let tap = from.appSink(named: "\(prefix)_\(i)"), let src = out.appSource(named: "\(prefix)_src_\(i)") {
                taps.append(tap)
                sources.append(src)
            }
        }
        return DetachedOutput(pipeline: out, sink: sink, taps: taps, sources: sources, relays: relays)
    }

    /// Starts passing samples: each video input from its next keyframe (one is asked for upstream now), the others at
    /// once.
    public func open() { for r in relays { vf_relay_open(r) } }

    /// Stops passing samples (they are dropped at the taps).
    public func close() { for r in relays { vf_relay_close(r) } }

    /// True once every relay passes samples (video has had its keyframe).
    public var isOpen: Bool { relays.allSatisfy { vf_relay_is_open($0) != 0 } }

    /// Gives each appsrc the latency upstream of its tap (a live source's, an encoder's), so that the output's muxer and
    /// sink wait for data that left the original pipeline that much after its running time. Call once it plays.
    public func matchUpstreamLatency() {
        for (tap, src) in zip(taps, sources) {
            guard let l = tap.upstreamLatency(), l.live else { continue }
            src.setLatency(min: l.min, max: nil)
        }
    }
}
