import CGStreamer

/// What the registry says of an element factory without making an element: its class (`Codec/Encoder/Video`)
/// and the caps its always sink pad template takes.
///
/// Threads and locks: none; the registry is GStreamer's (thread-safe).
public struct ElementFactoryInfo: Sendable {
    /// The factory name (`x264enc`).
    public let name: String
    /// The klass metadata, e.g. `Codec/Encoder/Video`.
    public let klass: String
    /// The caps of its sink pad templates as text (nil when it has none).
    public let sinkTemplate: String?

    /// The factory's information, or nil when no plugin provides it.
    public init?(_ name: String) {
        GStreamer.initialize()
        guard let f = gst_element_factory_find(name) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(f)) }
        self.name = name
        klass = gst_element_factory_get_metadata(f, "klass").map { String(cString: $0) } ?? ""
        var caps: UnsafeMutablePointer<GstCaps>? = nil
        var list: UnsafePointer<GList>? = gst_element_factory_get_static_pad_templates(f)
        while let node = list {
            if let t = node.pointee.data?.assumingMemoryBound(to: GstStaticPadTemplate.self), t.pointee.direction == GST_PAD_SINK,
                let c = gst_static_pad_template_get_caps(t)
            {
                if let all = caps { caps = gst_caps_merge(all, c) } else { caps = c }
            }
            list = UnsafePointer(node.pointee.next)
        }
        if let caps {
            sinkTemplate = gst_caps_to_string(caps).map { s in defer { g_free(s) }; return String(cString: s) }
            gst_caps_unref(caps)
        } else {
            sinkTemplate = nil
        }
    }

    /// True for a video encoder (klass names both `Encoder` and `Video`).
    public var isVideoEncoder: Bool {
        let parts = klass.split(separator: "/")
        return parts.contains("Encoder") && parts.contains("Video")
    }
}
