import CGStreamer

/// Calls a Swift function with each buffer's delay at a pad (see `Element.watchArrivals`).
final class ArrivalWatch: @unchecked Sendable {
    let body: @Sendable (Int64) -> Void
    init(_ body: @escaping @Sendable (Int64) -> Void) { self.body = body }
}

extension Element {
    /// Calls `body` for every timestamped buffer reaching `pad`, on GStreamer's streaming thread, with how
    /// late it arrives there in ns: the element's running time now (its clock's time minus its base time)
    /// minus the buffer's running time (its pts through the segment sticky on the pad). Before a sink with
    /// `sync=false` this is the time from the moment the frame was due (a live source stamps the running
    /// time of capture) to the moment it is rendered. Buffers without pts, segment or clock are skipped.
    /// Keeps `body` until the pad goes; returns false when the element has no such pad.
    ///
    /// Like `watchBuffers`, an instrumentation hook for benches: only a number leaves this module.
    @discardableResult public func watchArrivals(pad: String = "sink", _ body: @escaping @Sendable (Int64) -> Void) -> Bool {
        guard let p = gst_element_get_static_pad(raw, pad) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        let ctx = Unmanaged.passRetained(ArrivalWatch(body)).toOpaque()
        gst_pad_add_probe(
            p, GST_PAD_PROBE_TYPE_BUFFER,
            { pad, info, data in
                guard let pad, let info, let data, let b = vf_probe_info_buffer(info) else { return GST_PAD_PROBE_OK }
                let pts = vf_buffer_pts(b)
                guard pts != vf_clock_time_none(), let e = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) else {
                    return GST_PAD_PROBE_OK
                }
                var s: UnsafePointer<GstSegment>?
                gst_event_parse_segment(e, &s)
                let running = s.map { gst_segment_to_running_time($0, GST_FORMAT_TIME, pts) } ?? vf_clock_time_none()
                gst_event_unref(e)
                guard running != vf_clock_time_none(), let parent = gst_pad_get_parent_element(pad) else { return GST_PAD_PROBE_OK }
                defer { gst_object_unref(UnsafeMutableRawPointer(parent)) }
                guard let clock = gst_element_get_clock(parent) else { return GST_PAD_PROBE_OK }
                let now = gst_clock_get_time(clock)
                gst_object_unref(UnsafeMutableRawPointer(clock))
                let base = gst_element_get_base_time(parent)
                let late = Int64(bitPattern: UInt64(now) &- UInt64(base) &- UInt64(running))
                Unmanaged<ArrivalWatch>.fromOpaque(data).takeUnretainedValue().body(late)
                return GST_PAD_PROBE_OK
            }, ctx, { data in if let data { Unmanaged<ArrivalWatch>.fromOpaque(data).release() } })
        return true
    }
}
