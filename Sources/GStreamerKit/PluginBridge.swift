import CGStreamer

// The binding side of the `viewfinder` GStreamer plugin (libgstviewfinder.so): its C half hands GstBuffer,
// GstCaps, GstSegment and GstElement pointers to Swift as raw pointers; these are the only functions that
// turn them into binding objects, so the plugin's Swift code stays free of GStreamer pointers.

extension Buffer {
    /// Takes over a reference handed in by the plugin's C side (transfer full).
    public static func adopting(_ raw: UnsafeMutableRawPointer) -> Buffer {
        Buffer(owning: raw.assumingMemoryBound(to: GstBuffer.self))
    }

    /// Gives this object's reference back to the plugin's C side (transfer full); the object is left
    /// holding an empty buffer. The pointer is the frame as it is now: a copy if a write had to copy.
    public func release() -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(consume()) }
}

extension Caps {
    /// Caps borrowed from the plugin's C side (a reference is added and dropped with the object).
    public static func borrowing(_ raw: UnsafeMutableRawPointer) -> Caps {
        Caps(retaining: raw.assumingMemoryBound(to: GstCaps.self))
    }
}

extension Segment {
    /// A copy of a GstSegment borrowed from the plugin's C side.
    public init(copying raw: UnsafeMutableRawPointer) {
        self.init(raw.assumingMemoryBound(to: GstSegment.self).pointee)
    }
}

/// What became of a push on one of a plugin element's extra source pads.
public enum PadPush: Sendable, Equatable {
    /// Downstream took the buffer.
    case ok
    /// No such pad (the output was not requested).
    case noPad
    /// Downstream refused it: the flow return's name (`not-linked`, `not-negotiated`, `eos`, `flushing`...).
    case refused(String)
}

/// A GstElement of the plugin, seen from its Swift side while it runs: its name, its bus (element
/// messages) and its extra source pads (request pads named like the stage's outputs). Holds one
/// reference to the element, taken at start and dropped at stop.
///
/// Threads: pushes come from the element's streaming thread (and a stage's own threads for tags and
/// events); GStreamer's pads are thread-safe, and the object keeps no state of its own.
public final class PluginElement: Element, @unchecked Sendable {
    /// Wraps the element the C side is starting (a reference is added).
    public init(borrowing raw: UnsafeMutableRawPointer) {
        super.init(retaining: raw.assumingMemoryBound(to: GstElement.self))
    }

    private func withPad<T>(_ name: String, _ body: (UnsafeMutablePointer<GstPad>) -> T) -> T? {
        guard let pad = gst_element_get_static_pad(raw, name) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return body(pad)
    }

    /// True when a pad of that name exists (an extra output was requested, `c.snapshot ! ...`).
    public func hasPad(_ name: String) -> Bool { withPad(name) { _ in true } ?? false }

    /// Sends what must precede data on a source pad, once or when it changed: stream-start, caps, segment.
    private func prepare(_ pad: UnsafeMutablePointer<GstPad>, name: String, caps: Caps?, segment: Segment?) {
        if let started = gst_pad_get_sticky_event(pad, GST_EVENT_STREAM_START, 0) {
            gst_event_unref(started)
        } else {
            let id = gst_pad_create_stream_id(pad, raw, name)
            _ = gst_pad_push_event(pad, gst_event_new_stream_start(id))
            g_free(id)
        }
        if let caps {
            let current = gst_pad_get_current_caps(pad)
            if current == nil || gst_caps_is_equal(current, caps.raw) == 0 { _ = gst_pad_push_event(pad, gst_event_new_caps(caps.raw)) }
            if let current { gst_caps_unref(current) }
        }
        if let segment {
            var wanted = segment.raw
            var same = false
            if let ev = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) {
                var seg: UnsafePointer<GstSegment>? = nil
                gst_event_parse_segment(ev, &seg)
                if let seg { same = gst_segment_is_equal(seg, &wanted) != 0 }
                gst_event_unref(ev)
            }
            if !same { _ = gst_pad_push_event(pad, gst_event_new_segment(&wanted)) }
        }
    }

    /// Pushes a buffer (a new reference: the caller's stays valid) on the source pad `name`, after
    /// stream-start, caps and segment when they are new there.
    public func push(_ buffer: Buffer, caps: Caps, segment: Segment, onPad name: String) -> PadPush {
        withPad(name) { pad -> PadPush in
            prepare(pad, name: name, caps: caps, segment: segment)
            let r = gst_pad_push(pad, gst_buffer_ref(buffer.raw))
            return r == GST_FLOW_OK ? .ok : .refused(String(cString: gst_flow_get_name(r)))
        } ?? .noPad
    }

    /// Sends tags on the source pad `name` (after stream-start and, when given, caps and segment, so the
    /// sticky events keep their order); they travel before the next buffer.
    public func push(_ tags: TagList, caps: Caps?, segment: Segment?, onPad name: String) -> Bool {
        withPad(name) { pad in
            prepare(pad, name: name, caps: caps, segment: segment)
            return gst_pad_push_event(pad, gst_event_new_tag(tags.makeRaw())) != 0
        } ?? false
    }

    /// Sends a custom downstream event on the source pad `name`.
    public func push(event: MessageStructure, caps: Caps?, segment: Segment?, onPad name: String) -> Bool {
        withPad(name) { pad in
            prepare(pad, name: name, caps: caps, segment: segment)
            return gst_pad_push_event(pad, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, event.makeRaw())) != 0
        } ?? false
    }

    /// Sends a GAP event (no data from `pts` for `duration`) on the source pad `name`: a photo branch's sink
    /// prerolls on it (a sparse stream, like subtitles), so the pipeline reaches PLAYING before the first
    /// photo, and downstream knows time went on. False when there is no such pad.
    @discardableResult
    public func pushGap(pts: ClockTime, duration: ClockTime, caps: Caps, segment: Segment, onPad name: String) -> Bool {
        withPad(name) { pad in
            prepare(pad, name: name, caps: caps, segment: segment)
            return gst_pad_push_event(pad, gst_event_new_gap(GstClockTime(pts.gstValue), GstClockTime(duration.gstValue))) != 0
        } ?? false
    }

    /// Ends the stream on the source pad `name` (no-op when there is no such pad or it never started).
    public func endStream(onPad name: String) {
        withPad(name) { pad in
            guard let started = gst_pad_get_sticky_event(pad, GST_EVENT_STREAM_START, 0) else { return }
            gst_event_unref(started)
            _ = gst_pad_push_event(pad, gst_event_new_eos())
        }
    }

    /// Posts a warning message from the element (as GST_ELEMENT_WARNING does).
    public func postWarning(_ text: String) {
        let err = g_error_new_literal(gst_library_error_quark(), gint(GST_LIBRARY_ERROR_FAILED.rawValue), text)
        let m = gst_message_new_warning(vf_gstobject(UnsafeMutableRawPointer(raw)), err, nil)
        g_error_free(err)
        gst_element_post_message(raw, m)
    }
}
