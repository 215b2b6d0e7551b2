import CGStreamer

extension Element {
    /// The element linked into this one's sink pad when it has exactly one (nil for none, several, or a peer that is
    /// not an element's own pad, such as a bin's ghost pad).
    public var upstreamElement: Element? {
        guard raw.pointee.numsinkpads == 1, let pad = raw.pointee.sinkpads?.pointee.data?.assumingMemoryBound(to: GstPad.self),
            let peer = gst_pad_get_peer(pad)
        else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
        guard let parent = gst_pad_get_parent_element(peer) else { return nil }
        return Element(owning: parent)
    }

    /// Makes a `queue` drop its oldest data when full (leaky=downstream) and wakes a push that waits for room: a
    /// changed capacity signals the queue's waiting chain function, which then sees the queue leaky. So the
    /// element pushing into it (a `tee`) goes on even when what follows the queue no longer takes anything.
    /// False for anything but a queue.
    @discardableResult public func leakAndWake() -> Bool {
        guard factoryName == "queue" else { return false }
        gst_util_set_object_arg(object, "leaky", "downstream")
        vf_object_set_uint(UnsafeMutableRawPointer(raw), "max-size-buffers", guint(uint32("max-size-buffers")))
        return true
    }
}

extension Element {
    /// A GstStructure property (srtsink's `stats`) as a structure; nil when the element has no such property, it is
    /// of another type, or unset.
    public func structure(_ property: String) -> MessageStructure? {
        guard valueType(of: property) == gst_structure_get_type(),
            let text = vf_object_get_structure_text(UnsafeMutableRawPointer(raw), property)
        else { return nil }
        defer { g_free(text) }
        return MessageStructure(parsing: String(cString: text))
    }
}
