import CGStreamer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a pull from an appsink produced.
public enum PullResult: Sendable {
    /// A frame with its caps and segment.
    case sample(Buffer, Caps?, Segment)
    /// Nothing arrived within the timeout.
    case timeout
    /// The stream ended.
    case eos
    /// The appsink is not running (its pipeline is in NULL: not started yet, or shut down).
    /// appsink answers "EOS" in that state; it is not an end of stream.
    case stopped
}

/// Counts buffers reaching a pad (used to count frames that arrive at a bridge, dropped or not).
public final class PadCounter: @unchecked Sendable {
    let count = Atomic<Int>(0)
    /// Buffers seen so far.
    public var value: Int { count.load(ordering: .relaxed) }
}

/// An appsink: where frames leave a segment for a stage worker.
public final class AppSink: Element, @unchecked Sendable {
    private var sink: UnsafeMutablePointer<GstAppSink> { vf_appsink(UnsafeMutableRawPointer(raw)) }

    /// The host's queue the frames go to instead of appsink's own (see `FrameHandoff`); nil until configured.
    private var handoff: FrameHandoff?

    /// Sets the hand-off policy: at most `maxBuffers` queued; `drop` discards the oldest when full.
    ///
    /// Frames are taken off the sink pad by a probe into the host's own queue, so appsink never caches
    /// them and a pulled buffer is writable in place. appsink then never prerolls, so it is made
    /// `async=false` (the other sinks of its segment still preroll).
    public func configure(maxBuffers: UInt32, drop: Bool, caps: Caps? = nil) {
        gst_app_sink_set_max_buffers(sink, guint(maxBuffers))
        gst_app_sink_set_drop(sink, drop ? 1 : 0)
        gst_app_sink_set_emit_signals(sink, 0)
        // No clock sync here: downstream sinks sync; this only hands frames over.
        set("sync", false)
        set("async", false)
        // The last-sample reference would keep every buffer shared and force a copy on write.
        set("enable-last-sample", false)
        if let caps { gst_app_sink_set_caps(sink, caps.raw) }
        if handoff == nil, let pad = gst_element_get_static_pad(raw, "sink") {
            defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
            let h = FrameHandoff()
            h.install(on: pad)
            handoff = h
        }
        handoff?.configure(maxItems: Int(maxBuffers), drop: drop)
    }

    /// Switches between leaky (drop the oldest when full) and blocking hand-off; allowed while running.
    public func setDrop(_ drop: Bool) {
        gst_app_sink_set_drop(sink, drop ? 1 : 0)
        handoff?.setDrop(drop)
    }

    /// True while the element is in NULL (appsink is started on NULL -> READY).
    var isStopped: Bool {
        var current = GST_STATE_VOID_PENDING
        _ = gst_element_get_state(raw, &current, nil, 0)
        return current == GST_STATE_NULL
    }

    /// Pulls the next frame, waiting up to `timeout` ns.
    ///
    /// A stopped appsink returns at once and claims EOS (`gst_app_sink_is_eos` is TRUE while it is
    /// not started): that is reported as `.stopped`, after waiting the timeout so callers do not spin.
    /// The state is read before the pull, so a sink shut down during the pull still ends as `.eos`.
    /// Once configured, frames come from the host's own queue (writable: appsink holds no reference).
    public func pull(timeout: UInt64) -> PullResult {
        // Placeholders the host queued while the segment is down are delivered all the same.
        if let handoff, handoff.hasItems { return handoff.pull(timeout: 0) }
        if isStopped {
            usleep(useconds_t(min(timeout, 20_000_000) / 1000))
            return .stopped
        }
        if let handoff { return handoff.pull(timeout: timeout) }
        guard let s = gst_app_sink_try_pull_sample(sink, GstClockTime(timeout)) else {
            return gst_app_sink_is_eos(sink) != 0 ? .eos : .timeout
        }
        defer { gst_sample_unref(s) }
        guard let b = gst_sample_get_buffer(s) else { return .timeout }
        let caps = gst_sample_get_caps(s).map { Caps(retaining: $0) }
        let seg = gst_sample_get_segment(s).map { Segment($0.pointee) } ?? Segment()
        // Take our own reference; the sample's goes away with the defer above. appsink still holds the
        // sample as its cached one, so this buffer is shared until the next pull (a write copies it).
        return .sample(Buffer(owning: gst_buffer_ref(b)), caps, seg)
    }

    /// Holds end-of-stream from upstream (true) while the host supervises this sink's source, or lets it
    /// through (false: an end-of-stream held meanwhile ends the stream now). Returns whether one was held.
    @discardableResult public func holdEndOfStream(_ hold: Bool) -> Bool { handoff?.holdEndOfStream(hold) ?? false }

    /// Queues a frame made by the host (a placeholder while the source is away) for the worker, as if it had
    /// arrived; never counted as an arrival. When the queue is full it waits up to `wait` s for the worker
    /// (call it from a thread of your own), then the oldest queued frame goes.
    public func inject(_ buffer: Buffer, caps: Caps, segment: Segment, wait: Double = 0) {
        guard let handoff else { return }
        handoff.inject(gst_buffer_ref(buffer.raw), caps: caps, segment: segment, wait: wait)
    }

    /// Ends the stream for the worker now (after what is queued), as an end-of-stream from upstream would:
    /// for a source segment the host stopped for good while it was down.
    public func endStream() {
        handoff?.holdEndOfStream(false)
        handoff?.endOfStream()
    }

    /// Caps, segment, pts and duration of the last frame that arrived from upstream (nil before the first).
    public var lastArrival: (caps: Caps?, segment: Segment, pts: UInt64?, duration: UInt64?)? { handoff?.lastArrival }

    /// Installs a probe that counts every buffer arriving at the sink pad.
    /// Frames the hand-off dropped so far (a counter that only goes up; nil before `configure`).
    public var drops: PadCounter? { handoff?.drops }

    public func countArrivals() -> PadCounter {
        if let handoff { return handoff.arrivals }
        let counter = PadCounter()
        guard let pad = gst_element_get_static_pad(raw, "sink") else { return counter }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let ctx = Unmanaged.passRetained(counter).toOpaque()
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, _, data in
                Unmanaged<PadCounter>.fromOpaque(data!).takeUnretainedValue().count.add(1, ordering: .relaxed)
                return GST_PAD_PROBE_OK
            }, ctx, { data in Unmanaged<PadCounter>.fromOpaque(data!).release() })
        return counter
    }
}

/// An appsrc: where a stage worker's frames enter a downstream segment.
public final class AppSource: Element, @unchecked Sendable {
    private var src: UnsafeMutablePointer<GstAppSrc> { vf_appsrc(UnsafeMutableRawPointer(raw)) }

    /// Time format, segment forwarding, a bounded blocking queue; live-ness as upstream.
    public func configure(live: Bool, maxBuffers: UInt64, minLatency: UInt64) {
        try? set("format", "time")
        set("handle-segment-change", true)
        set("is-live", live)
        set("block", true)
        set("max-buffers", uint64: maxBuffers)
        set("max-bytes", uint64: 0)
        set("min-latency", int64: Int64(minLatency))
        set("emit-signals", false)
    }

    /// What the elements after this source can take (a caps query through the downstream chain).
    public func downstreamCaps() -> Caps? { peerCaps(pad: "src") }

    /// Updates the latency this source reports (ns).
    public func setLatency(min: UInt64, max: UInt64?) {
        gst_app_src_set_latency(src, GstClockTime(min), max.map { GstClockTime($0) } ?? vf_clock_time_none())
    }

    /// Pushes a frame with its caps and segment. Returns false when downstream is flushing or finished.
    @discardableResult public func push(_ buffer: Buffer, caps: Caps?, segment: Segment) -> Bool {
        var seg = segment.raw
        let sample = gst_sample_new(buffer.raw, caps?.raw, &seg, nil)!
        defer { gst_sample_unref(sample) }
        let r = gst_app_src_push_sample(src, sample)
        pushed.withLock { $0 = (caps, segment) }
        return r == GST_FLOW_OK
    }

    /// Caps and segment of the last push (pushes come from one worker thread; the lock only makes the
    /// class safe to share).
    private let pushed = Mutex<(caps: Caps?, segment: Segment)?>(nil)

    /// Pushes a frame, giving it away: `buffer` is left empty. When caps and segment are those of the
    /// previous push, the reference goes straight into appsrc's queue (`gst_app_src_push_buffer` takes
    /// it), so there is no moment where we and downstream both hold the frame and the next stage can
    /// write into it in place. A change of caps or segment goes through a sample, as `push` does.
    @discardableResult public func push(consuming buffer: Buffer, caps: Caps?, segment: Segment) -> Bool {
        let same = pushed.withLock { last in last.map { $0.caps == caps && $0.segment == segment } ?? false }
        guard same else {
            let ok = push(buffer, caps: caps, segment: segment)
            gst_buffer_unref(buffer.consume())
            return ok
        }
        return gst_app_src_push_buffer(src, buffer.consume()) == GST_FLOW_OK
    }

    /// Sets the caps the next buffers carry (negotiated before anything else is pushed).
    public func setCaps(_ caps: Caps) { gst_app_src_set_caps(src, caps.raw) }

    /// Buffers queued in this source and not yet taken by its streaming thread.
    public var queuedBuffers: Int { Int(vf_appsrc_current_level_buffers(src)) }

    /// Ends the stream on this source.
    public func endOfStream() { _ = gst_app_src_end_of_stream(src) }
}
