import CGStreamer
import Synchronization

/// Buffer metadata that survives queues, tees, videoconvert and the host's segment hops: a
/// GstCustomMeta (GStreamer >= 1.20) registered by name and carrying a GstStructure. Any GStreamer
/// application reads it with `gst_buffer_get_custom_meta(buf, name)` + `gst_custom_meta_get_structure`.
public enum CustomMeta {
    private static let registered = Mutex<Set<String>>([])

    /// Registers a meta name once per process (no tags, so video filters copy it along).
    public static func register(_ name: String) {
        GStreamer.initialize()
        registered.withLock { names in
            guard !names.contains(name) else { return }
            // Copy on buffer copies (GStreamer's default for custom metas without a transform function).
            // No tags (an empty, NULL-terminated list): filters such as videoconvert then copy it.
            var tags: [UnsafePointer<gchar>?] = [nil]
            _ = tags.withUnsafeMutableBufferPointer { gst_meta_register_custom(name, $0.baseAddress, nil, nil, nil) }
            names.insert(name)
        }
    }
}

extension Buffer {
    /// Attaches (or replaces) the custom meta `structure.name` with the structure's fields.
    /// Metadata needs a writable buffer: a shared one is copied first (the struct, not the pixels).
    public func setCustomMeta(_ structure: MessageStructure) {
        CustomMeta.register(structure.name)
        makeWritable()
        if let old = gst_buffer_get_custom_meta(raw, structure.name) {
            _ = gst_buffer_remove_meta(raw, UnsafeMutableRawPointer(old).assumingMemoryBound(to: GstMeta.self))
        }
        guard let meta = gst_buffer_add_custom_meta(raw, structure.name), let s = gst_custom_meta_get_structure(meta) else { return }
        structure.fill(s)
    }

    /// The fields of the custom meta `name` as GStreamer's structure text, if the buffer has it.
    public func customMetaText(_ name: String) -> String? {
        guard let meta = gst_buffer_get_custom_meta(raw, name), let s = gst_custom_meta_get_structure(meta) else { return nil }
        guard let t = gst_structure_to_string(s) else { return nil }
        defer { g_free(t) }
        return String(cString: t)
    }

    /// A double field of the custom meta `name`.
    public func customMetaDouble(_ name: String, field: String) -> Double? {
        guard let meta = gst_buffer_get_custom_meta(raw, name), let s = gst_custom_meta_get_structure(meta) else { return nil }
        var v: gdouble = 0
        return gst_structure_get_double(s, field, &v) != 0 ? v : nil
    }

    /// A string field of the custom meta `name`.
    public func customMetaString(_ name: String, field: String) -> String? {
        guard let meta = gst_buffer_get_custom_meta(raw, name), let s = gst_custom_meta_get_structure(meta),
            let v = gst_structure_get_string(s, field)
        else { return nil }
        return String(cString: v)
    }
}

/// Collects one double field of a custom meta from the buffers passing a pad (the newest 1000),
/// to check that metadata survives the elements in between.
public final class MetaTrace: @unchecked Sendable {
    private let values = Mutex<[Double?]>([])
    let meta: String
    let field: String
    init(meta: String, field: String) { self.meta = meta; self.field = field }
    /// The field's value per buffer seen (nil where the buffer had no such meta), oldest first.
    public var seen: [Double?] { values.withLock { $0 } }
    func record(_ v: Double?) {
        values.withLock {
            if $0.count >= 1000 { $0.removeFirst() }; $0.append(v)
        }
    }
}

extension Element {
    /// Traces `meta.field` on the buffers crossing `pad`.
    public func traceMeta(_ meta: String, field: String, pad: String = "sink") -> MetaTrace {
        CustomMeta.register(meta)
        let trace = MetaTrace(meta: meta, field: field)
        guard let p = gst_element_get_static_pad(raw, pad) else { return trace }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        let ctx = Unmanaged.passRetained(trace).toOpaque()
        gst_pad_add_probe(
            p, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, data in
                let t = Unmanaged<MetaTrace>.fromOpaque(data!).takeUnretainedValue()
                var value: Double?
                if let b = vf_probe_info_buffer(info!), let m = gst_buffer_get_custom_meta(b, t.meta),
                    let s = gst_custom_meta_get_structure(m)
                {
                    var v: gdouble = 0
                    if gst_structure_get_double(s, t.field, &v) != 0 { value = v }
                }
                t.record(value)
                return GST_PAD_PROBE_OK
            }, ctx, { data in Unmanaged<MetaTrace>.fromOpaque(data!).release() })
        return trace
    }
}
