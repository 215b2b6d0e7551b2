import CGStreamer

/// A reference-counted GStreamer element (any GstElement: sources, sinks, bins, pipelines).
public class Element: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstElement>

    /// Takes over one reference (a "transfer full" return value).
    init(owning raw: UnsafeMutablePointer<GstElement>) { self.raw = raw }
    /// Adds a reference to a borrowed pointer.
    init(retaining raw: UnsafeMutablePointer<GstElement>) {
        gst_object_ref(UnsafeMutableRawPointer(raw))
        self.raw = raw
    }
    deinit { gst_object_unref(UnsafeMutableRawPointer(raw)) }

    var object: UnsafeMutablePointer<GObject> { vf_gobject(UnsafeMutableRawPointer(raw)) }

    /// The element's name (`name=` in a description, or the automatic `videotestsrc0`).
    public var name: String { String(cString: vf_object_name(UnsafeMutableRawPointer(raw))) }

    /// The factory name (`videotestsrc`), or "" for bins made by hand.
    public var factoryName: String {
        guard let f = gst_element_get_factory(raw) else { return "" }
        return String(cString: vf_object_name(UnsafeMutableRawPointer(f)))
    }

    /// True for elements flagged as sources (no sink pads).
    public var isSource: Bool { vf_element_is_source(raw) != 0 }
    /// For a plain source element (a GstBaseSrc: v4l2src, srtsrc, udpsrc, videotestsrc), whether it is live;
    /// nil for anything else (bins such as rtspsrc or uridecodebin, non-sources).
    public var isLiveBaseSource: Bool? {
        switch vf_element_base_src_live(raw) {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }
    /// True for elements flagged as sinks.
    public var isSink: Bool { vf_element_is_sink(raw) != 0 }

    /// Sets a property from its string form, the way gst-launch does (enums by nick, caps from text...).
    public func set(_ property: String, _ value: String) throws(GStreamerError) {
        guard valueType(of: property) != nil else {
            throw GStreamerError(.core, "element '\(name)' has no property '\(property)'")
        }
        gst_util_set_object_arg(object, property, value)
    }
    /// Sets a boolean property.
    public func set(_ property: String, _ value: Bool) { vf_object_set_boolean(UnsafeMutableRawPointer(raw), property, value ? 1 : 0) }
    /// Sets an unsigned 64-bit property (max-buffers, max-bytes).
    public func set(_ property: String, uint64 value: UInt64) {
        vf_object_set_uint64(UnsafeMutableRawPointer(raw), property, guint64(value))
    }
    /// Sets a signed 64-bit property (min-latency, max-latency).
    public func set(_ property: String, int64 value: Int64) { vf_object_set_int64(UnsafeMutableRawPointer(raw), property, gint64(value)) }
    /// Reads an unsigned 64-bit property.
    public func uint64(_ property: String) -> UInt64 { UInt64(vf_object_get_uint64(UnsafeMutableRawPointer(raw), property)) }
    /// Reads a string property (nil when unset or not a string).
    public func string(_ property: String) -> String? {
        guard valueType(of: property) == GType(16 << 2) /* G_TYPE_STRING */ else { return nil }
        guard let v = vf_object_get_string(UnsafeMutableRawPointer(raw), property) else { return nil }
        defer { g_free(v) }
        return String(cString: v)
    }
    /// The caps the peer of a pad can take or offer (a caps query through the chain).
    public func peerCaps(pad: String = "sink") -> Caps? {
        guard let p = gst_element_get_static_pad(raw, pad) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        guard let c = gst_pad_peer_query_caps(p, nil) else { return nil }
        return Caps(owning: c)
    }
    /// Reads an unsigned 32-bit property (fpsdisplaysink frames-rendered...).
    public func uint32(_ property: String) -> UInt32 { UInt32(vf_object_get_uint(UnsafeMutableRawPointer(raw), property)) }
    /// Reads a signed 64-bit property (appsrc min-latency...).
    public func int64(_ property: String) -> Int64 { Int64(vf_object_get_int64(UnsafeMutableRawPointer(raw), property)) }
    /// Reads a boolean property.
    public func bool(_ property: String) -> Bool { vf_object_get_boolean(UnsafeMutableRawPointer(raw), property) != 0 }
    /// True when the element has a property of that name.
    public func hasProperty(_ property: String) -> Bool { valueType(of: property) != nil }

    /// The GType of a property's values, nil when the element has no property of that name.
    func valueType(of property: String) -> GType? {
        g_object_class_find_property(
            UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class).assumingMemoryBound(to: GObjectClass.self), property)?
            .pointee.value_type
    }

    /// Sends end-of-stream into this element (for a source: it finishes its stream).
    @discardableResult public func sendEOS() -> Bool {
        gst_element_send_event(raw, gst_event_new_eos()) != 0
    }

    /// Posts an element message with the given structure name and fields on the element's bus.
    public func postElementMessage(_ structure: MessageStructure) {
        let s = structure.makeRaw()
        let m = gst_message_new_element(vf_gstobject(UnsafeMutableRawPointer(raw)), s)
        gst_element_post_message(raw, m)
    }

    /// Posts an error message from this element (GStreamer's library domain), as GST_ELEMENT_ERROR does.
    public func postError(_ text: String, debug: String? = nil) {
        vf_element_post_error(raw, text, debug)
    }

    /// True when the element may add output pads while running (decodebin, demuxers).
    public var hasSometimesOutputs: Bool { vf_element_has_sometimes_src(raw) != 0 }

    /// Pads of the element that are ALWAYS pads and not linked: "videotestsrc0:src", with their direction.
    public var unlinkedAlwaysPads: [(pad: String, isSource: Bool)] {
        let arr = vf_iterator_collect(gst_element_iterate_pads(raw))!
        defer { vf_object_array_free(arr) }
        var out: [(String, Bool)] = []
        var i = 0
        while let p = arr[i] {
            let pad = p.assumingMemoryBound(to: GstPad.self)
            if vf_pad_presence(pad) == GST_PAD_ALWAYS && gst_pad_is_linked(pad) == 0 {
                out.append((String(cString: vf_object_name(p)), vf_pad_direction(pad) == GST_PAD_SRC))
            }
            i += 1
        }
        return out
    }

    /// Asks the upstream peer of the named sink pad for its latency: (live, min, max) in ns.
    public func upstreamLatency(pad: String = "sink") -> (live: Bool, min: UInt64, max: ClockTime)? {
        guard let p = gst_element_get_static_pad(raw, pad) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        guard let q = gst_query_new_latency() else { return nil }
        defer { gst_query_unref(q) }
        guard gst_pad_peer_query(p, q) != 0 else { return nil }
        var live: gboolean = 0
        var mn: GstClockTime = 0
        var mx: GstClockTime = 0
        gst_query_parse_latency(q, &live, &mn, &mx)
        return (live != 0, UInt64(mn), clockTime(UInt64(mx)))
    }
}
