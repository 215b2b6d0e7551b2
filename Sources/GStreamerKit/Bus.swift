import CGStreamer

/// A pipeline's message bus.
public final class Bus: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstBus>
    init(owning raw: UnsafeMutablePointer<GstBus>) { self.raw = raw }
    deinit { gst_object_unref(UnsafeMutableRawPointer(raw)) }

    /// Pops the next message, waiting up to `timeout` ns (0: do not wait).
    public func pop(timeout: UInt64 = 0) -> Message? {
        guard let m = gst_bus_timed_pop(raw, GstClockTime(timeout)) else { return nil }
        defer { gst_message_unref(m) }
        return Message(m)
    }
}

/// A bus message, copied into Swift values.
public struct Message: Sendable, CustomStringConvertible {
    /// What kind of message and its payload.
    public enum Kind: Sendable, Equatable {
        case eos
        case error(message: String, debug: String?)
        case warning(message: String, debug: String?)
        case element(MessageStructure)
        case stateChanged(old: String, new: String)
        case latency
        case asyncDone
        case other(String)
    }
    /// The kind.
    public var kind: Kind
    /// The name of the element (or pipeline) that posted it.
    public var source: String
    /// The factory name of the posting element, when it is an element made by a factory.
    public var sourceFactory: String

    init(_ m: UnsafeMutablePointer<GstMessage>) {
        let src = vf_message_src(m)
        source = src.map { String(cString: vf_object_name(UnsafeMutableRawPointer($0))) } ?? "?"
        sourceFactory = ""
        if let src,
            g_type_check_instance_is_a(UnsafeMutableRawPointer(src).assumingMemoryBound(to: GTypeInstance.self), gst_element_get_type())
                != 0,
            let f = gst_element_get_factory(UnsafeMutableRawPointer(src).assumingMemoryBound(to: GstElement.self))
        {
            sourceFactory = String(cString: vf_object_name(UnsafeMutableRawPointer(f)))
        }
        let t = vf_message_type(m)
        switch t {
        case GST_MESSAGE_EOS: kind = .eos
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var err: UnsafeMutablePointer<GError>? = nil
            var dbg: UnsafeMutablePointer<gchar>? = nil
            if t == GST_MESSAGE_ERROR { gst_message_parse_error(m, &err, &dbg) } else { gst_message_parse_warning(m, &err, &dbg) }
            let text = takeError(err)
            let d = dbg.map { String(cString: $0) }
            g_free(dbg)
            kind = t == GST_MESSAGE_ERROR ? .error(message: text, debug: d) : .warning(message: text, debug: d)
        case GST_MESSAGE_ELEMENT:
            if let s = gst_message_get_structure(m) {
                kind = .element(MessageStructure(copying: s))
            } else {
                kind = .other("element")
            }
        case GST_MESSAGE_STATE_CHANGED:
            var o = GST_STATE_NULL, n = GST_STATE_NULL, p = GST_STATE_NULL
            gst_message_parse_state_changed(m, &o, &n, &p)
            kind = .stateChanged(old: String(cString: gst_element_state_get_name(o)), new: String(cString: gst_element_state_get_name(n)))
        case GST_MESSAGE_LATENCY: kind = .latency
        case GST_MESSAGE_ASYNC_DONE: kind = .asyncDone
        default: kind = .other(String(cString: gst_message_type_get_name(t)))
        }
    }

    /// One line for logs.
    public var description: String { "\(source): \(kind)" }
}

/// Field values for an element message, built in Swift and turned into a GstStructure on posting.
public struct MessageStructure: Sendable, Equatable {
    /// A typed field value.
    public enum Value: Sendable, Equatable {
        case int(Int32)
        case uint64(UInt64)
        case double(Double)
        case bool(Bool)
        case string(String)
    }
    /// The structure name, e.g. "viewfinder/snapshot".
    public var name: String
    /// The fields in order.
    public var fields: [(String, Value)]
    /// Creates a structure.
    public init(_ name: String, _ fields: [(String, Value)] = []) { self.name = name; self.fields = fields }

    /// Same name and the same fields in the same order.
    public static func == (a: MessageStructure, b: MessageStructure) -> Bool {
        a.name == b.name && a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    func makeRaw() -> UnsafeMutablePointer<GstStructure> {
        let s = gst_structure_new_empty(name)!
        fill(s)
        return s
    }

    /// Sets every field on an existing structure.
    func fill(_ s: UnsafeMutablePointer<GstStructure>) {
        for (k, v) in fields {
            switch v {
            case .int(let i): vf_structure_set_int(s, k, i)
            case .uint64(let u): vf_structure_set_uint64(s, k, guint64(u))
            case .double(let d): vf_structure_set_double(s, k, d)
            case .bool(let b): vf_structure_set_boolean(s, k, b ? 1 : 0)
            case .string(let t): vf_structure_set_string(s, k, t)
            }
        }
    }
}
