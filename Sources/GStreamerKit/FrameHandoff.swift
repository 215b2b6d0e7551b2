import CGStreamer
import Foundation
import Timing

/// The host's own bounded queue between a segment's streaming thread and a stage worker, filled by a
/// probe on an appsink's sink pad so the appsink never sees (and never caches) the frames.
///
/// Why: `gst_app_sink_pull_sample` keeps the sample it returns as its cached sample, and the buffer has
/// that sample as its parent, so the buffer is not writable (writability follows the parent since 1.16)
/// until the next pull: every drawing stage paid one full-frame copy. Taken here, the buffer is ours
/// alone (refcount 1 when upstream kept nothing), as in GStreamer's own in-place elements.
///
/// Threads: `enqueue` runs on the streaming thread (it may wait for room when blocking), `pull` on the
/// worker. One lock (`condition`) guards everything; nothing else is taken while it is held.
final class FrameHandoff: @unchecked Sendable {
    struct Item {
        var buffer: UnsafeMutablePointer<GstBuffer>
        var caps: Caps?
        var segment: Segment
    }
    private let condition = NSCondition()
    private var items: [Item] = []
    private var eos = false
    private var maxItems = 1
    private var drop = false
    /// While set (a supervised source), end-of-stream reaching the pad is held instead of ending the
    /// queue: the host decides whether the source is lost (and restarted) or the stream really ends.
    private var holdEOS = false
    /// An end-of-stream arrived while held.
    private var heldEOS = false
    /// Caps, segment, pts and duration of the last buffer that arrived from the pad.
    private var last: (caps: Caps?, segment: Segment, pts: UInt64?, duration: UInt64?)?
    /// Buffers that arrived (kept or dropped), for the dropped-frames figure.
    let arrivals = PadCounter()
    /// Frames dropped so far: the oldest when full and leaky, a buffer given up while flushing (only goes up).
    let drops = PadCounter()

    deinit {
        for i in items { gst_buffer_unref(i.buffer) }
    }

    func configure(maxItems: Int, drop: Bool) {
        condition.lock()
        self.maxItems = max(1, maxItems)
        self.drop = drop
        condition.broadcast()
        condition.unlock()
    }

    func setDrop(_ drop: Bool) {
        condition.lock()
        self.drop = drop
        condition.broadcast()
        condition.unlock()
    }

    /// Takes ownership of `buffer`. When full: drops the oldest (leaky) or waits for room, giving up
    /// (dropping this buffer) when the pad starts flushing or shuts down, so a state change never
    /// waits on us.
    func enqueue(_ buffer: UnsafeMutablePointer<GstBuffer>, pad: UnsafeMutablePointer<GstPad>) {
        arrivals.count.add(1, ordering: .relaxed)
        let caps = gst_pad_get_current_caps(pad).map { c -> Caps in
            defer { gst_caps_unref(c) }
            return Caps(retaining: c)
        }
        var segment = Segment()
        if let e = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) {
            var s: UnsafePointer<GstSegment>?
            gst_event_parse_segment(e, &s)
            if let s { segment = Segment(s.pointee) }
            gst_event_unref(e)
        }
        let pts = vf_buffer_pts(buffer), duration = vf_buffer_duration(buffer)
        let none = vf_clock_time_none()
        condition.lock()
        last = (caps, segment, pts == none ? nil : UInt64(pts), duration == none ? nil : UInt64(duration))
        while items.count >= maxItems {
            if drop {
                gst_buffer_unref(items.removeFirst().buffer)
                drops.count.add(1, ordering: .relaxed)
                break
            }
            if vf_pad_is_flushing(pad) != 0 {
                condition.unlock()
                gst_buffer_unref(buffer)
                drops.count.add(1, ordering: .relaxed)
                return
            }
            SystemClock.shared.wait(on: condition, seconds: 0.02)
        }
        items.append(Item(buffer: buffer, caps: caps, segment: segment))
        condition.broadcast()
        condition.unlock()
    }

    /// End of stream reached the pad: after the frames already queued, `pull` reports it (held instead while
    /// `holdEndOfStream` is on).
    func endOfStream() {
        condition.lock()
        if holdEOS { heldEOS = true } else { eos = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Holds (true) or lets through (false) end-of-stream from the pad. Letting it through after one was held
    /// ends the queue now; returns whether one was held.
    @discardableResult func holdEndOfStream(_ hold: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        holdEOS = hold
        let held = heldEOS
        if !hold && heldEOS { eos = true; heldEOS = false; condition.broadcast() }
        return held
    }

    /// Queues a frame made by the host (a placeholder while the source is away), not counted as an arrival.
    /// When full it waits for room up to `wait` seconds (the caller's own thread, never a streaming one),
    /// then drops the oldest queued frame.
    func inject(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: Caps, segment: Segment, wait: Double) {
        let real = SystemClock.shared
        let deadline = real.now + wait
        condition.lock()
        while items.count >= maxItems && real.now < deadline { real.wait(on: condition, seconds: min(deadline - real.now, 0.02)) }
        if items.count >= maxItems {
            gst_buffer_unref(items.removeFirst().buffer)
            drops.count.add(1, ordering: .relaxed)
        }
        items.append(Item(buffer: buffer, caps: caps, segment: segment))
        condition.broadcast()
        condition.unlock()
    }

    /// Caps, segment, pts and duration of the last frame that arrived from upstream (nil before the first).
    var lastArrival: (caps: Caps?, segment: Segment, pts: UInt64?, duration: UInt64?)? {
        condition.lock()
        defer { condition.unlock() }
        return last
    }

    /// True when frames are queued.
    var hasItems: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !items.isEmpty
    }

    /// A flush or a restart: frames queued belong to the old stream; no end of stream any more.
    func reset() {
        condition.lock()
        for i in items { gst_buffer_unref(i.buffer) }
        items.removeAll()
        eos = false
        condition.broadcast()
        condition.unlock()
    }

    /// The next frame (ownership passes to the caller), `.eos` after the last one, or `.timeout`.
    func pull(timeout: UInt64) -> PullResult {
        let real = SystemClock.shared
        let deadline = real.now + Double(timeout) / 1e9
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !items.isEmpty {
                let i = items.removeFirst()
                condition.broadcast()
                return .sample(Buffer(owning: i.buffer), i.caps, i.segment)
            }
            if eos { return .eos }
            let left = deadline - real.now
            if left <= 0 { return .timeout }
            real.wait(on: condition, seconds: left)
        }
    }

    /// Installs the probe on `pad` that takes every buffer (and each buffer of a list) into this queue
    /// and follows end-of-stream, flushes and new streams.
    func install(on pad: UnsafeMutablePointer<GstPad>) {
        let ctx = Unmanaged.passRetained(self).toOpaque()
        let types =
            GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue
            | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue | GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue
        gst_pad_add_probe(
            pad, GstPadProbeType(rawValue: types),
            { pad, info, data in
                guard let pad, let info, let data else { return GST_PAD_PROBE_OK }
                let handoff = Unmanaged<FrameHandoff>.fromOpaque(data).takeUnretainedValue()
                let type = vf_probe_info_type(info).rawValue
                if type & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let b = vf_probe_info_buffer(info) {
                    // HANDLED: the buffer's reference is ours now; appsink never sees it.
                    handoff.enqueue(b, pad: pad)
                    return GST_PAD_PROBE_HANDLED
                }
                if type & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0, let list = vf_probe_info_buffer_list(info) {
                    for i in 0..<gst_buffer_list_length(list) {
                        if let b = gst_buffer_list_get(list, i) { handoff.enqueue(gst_buffer_ref(b), pad: pad) }
                    }
                    gst_mini_object_unref(UnsafeMutableRawPointer(list).assumingMemoryBound(to: GstMiniObject.self))
                    return GST_PAD_PROBE_HANDLED
                }
                if let e = vf_probe_info_event(info) {
                    switch vf_event_type(e) {
                    case GST_EVENT_EOS: handoff.endOfStream()
                    case GST_EVENT_FLUSH_STOP: handoff.reset()
                    case GST_EVENT_STREAM_START: handoff.newStream()
                    default: break
                    }
                }
                return GST_PAD_PROBE_OK
            }, ctx, { data in Unmanaged<FrameHandoff>.fromOpaque(data!).release() })
    }

    /// A new stream starts on the pad (a restarted segment): the previous end-of-stream is over.
    func newStream() {
        condition.lock()
        eos = false
        heldEOS = false
        condition.unlock()
    }
}
