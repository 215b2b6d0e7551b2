import CGStreamer
import Synchronization

extension MessageStructure {
    /// Parses GStreamer's structure text (what `gst_structure_to_string` writes, e.g. an element
    /// message's fields) with GStreamer's own parser. Strings, integers, doubles and booleans keep their
    /// type; any other value (a date-time, a fraction, a list) comes back as GStreamer's serialized text.
    public init?(parsing text: String) {
        GStreamer.initialize()
        guard let s = gst_structure_from_string(text, nil) else { return nil }
        defer { gst_structure_free(s) }
        self.init(copying: s)
    }

    init(copying s: UnsafePointer<GstStructure>) {
        var fields: [(String, Value)] = []
        for i in 0..<gst_structure_n_fields(s) {
            guard let n = gst_structure_nth_field_name(s, guint(i)), let v = gst_structure_get_value(s, n) else { continue }
            let key = String(cString: n)
            switch vf_value_kind(v) {
            case 1: fields.append((key, .string(g_value_get_string(v).map { String(cString: $0) } ?? "")))
            case 2: fields.append((key, .int(g_value_get_int(v))))
            case 3: fields.append((key, .uint64(UInt64(g_value_get_uint(v)))))
            case 4: fields.append((key, .uint64(UInt64(g_value_get_uint64(v)))))
            case 5: fields.append((key, .uint64(UInt64(bitPattern: Int64(g_value_get_int64(v))))))
            case 6: fields.append((key, .double(g_value_get_double(v))))
            case 7: fields.append((key, .bool(g_value_get_boolean(v) != 0)))
            default:
                guard let t = gst_value_serialize(v) else { continue }
                fields.append((key, .string(String(cString: t))))
                g_free(t)
            }
        }
        self.init(String(cString: gst_structure_get_name(s)), fields)
    }

    /// GStreamer's text for this structure (`name, key=(type)value, ...`).
    public var text: String {
        GStreamer.initialize()
        let s = makeRaw()
        defer { gst_structure_free(s) }
        guard let t = gst_structure_to_string(s) else { return name }
        defer { g_free(t) }
        return String(cString: t)
    }

    /// The value of a field.
    public subscript(_ key: String) -> Value? { fields.first { $0.0 == key }?.1 }
    /// A string field.
    public func string(_ key: String) -> String? { if case .string(let s)? = self[key] { return s }; return nil }
    /// An integer field of any width.
    public func integer(_ key: String) -> Int64? {
        switch self[key] {
        case .int(let i)?: return Int64(i)
        case .uint64(let u)?: return Int64(bitPattern: u)
        default: return nil
        }
    }
    /// A double field (integers convert).
    public func double(_ key: String) -> Double? {
        switch self[key] {
        case .double(let d)?: return d
        case .int(let i)?: return Double(i)
        case .uint64(let u)?: return Double(u)
        default: return nil
        }
    }
    /// A boolean field.
    public func bool(_ key: String) -> Bool? { if case .bool(let b)? = self[key] { return b }; return nil }
}

/// Custom events (GST_EVENT_CUSTOM_*) seen on a pad, collected for a worker thread to drain.
public final class CustomEventWatch: @unchecked Sendable {
    private let pending = Mutex<[MessageStructure]>([])
    private let names: Set<String>
    init(names: Set<String>) { self.names = names }
    func record(_ s: MessageStructure) {
        guard names.isEmpty || names.contains(s.name) else { return }
        pending.withLock { p in
            // Bounded: an application flooding events loses the oldest.
            if p.count >= 64 { p.removeFirst() }
            p.append(s)
        }
    }
    /// Takes the events collected since the last call, oldest first.
    public func drain() -> [MessageStructure] {
        pending.withLock { p in
            defer { p.removeAll() }; return p
        }
    }
}

extension Element {
    /// Watches a pad for custom events (downstream, downstream-OOB, upstream, both) whose structure is
    /// named in `names` (all when empty). The events go on untouched.
    public func watchCustomEvents(pad: String, names: Set<String>) -> CustomEventWatch {
        let watch = CustomEventWatch(names: names)
        guard let p = gst_element_get_static_pad(raw, pad) else { return watch }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        let ctx = Unmanaged.passRetained(watch).toOpaque()
        let mask = GstPadProbeType(
            GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue | GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue
                | GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue)
        gst_pad_add_probe(
            p, mask,
            { _, info, data in
                if let e = vf_probe_info_event(info!), vf_event_is_custom(e) != 0, let s = gst_event_get_structure(e) {
                    Unmanaged<CustomEventWatch>.fromOpaque(data!).takeUnretainedValue().record(MessageStructure(copying: s))
                }
                return GST_PAD_PROBE_OK
            }, ctx, { data in Unmanaged<CustomEventWatch>.fromOpaque(data!).release() })
        return watch
    }

    /// Sends a custom event travelling upstream from this element (e.g. from a sink towards a stage).
    @discardableResult public func sendCustomUpstreamEvent(_ structure: MessageStructure) -> Bool {
        gst_element_send_event(raw, gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM, structure.makeRaw())) != 0
    }
}
