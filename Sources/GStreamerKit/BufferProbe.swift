import CGStreamer

/// Calls a Swift function for every buffer passing a pad (see `Element.watchBuffers`).
final class BufferWatch: @unchecked Sendable {
    let body: @Sendable (UInt) -> Void
    init(_ body: @escaping @Sendable (UInt) -> Void) { self.body = body }
}

extension Element {
    /// Calls `body` for every buffer passing `pad`, on GStreamer's streaming thread, with an identity of
    /// the buffer's first memory (the GstMemory's address; 0 when it has none). Memory, not GstBuffer:
    /// basesrc may re-wrap a buffer to flag DISCONT, sharing its memory. Keeps `body` until the pad
    /// goes; returns false when the element has no such pad.
    ///
    /// The binding's only hook for instrumentation that lives outside it (`GStreamerTrace`): the
    /// identity is a number, no pointer leaves this module.
    @discardableResult public func watchBuffers(pad: String = "sink", _ body: @escaping @Sendable (UInt) -> Void) -> Bool {
        guard var p = gst_element_get_static_pad(raw, pad) else { return false }
        // A configured appsink's frames are taken by the host's probe on its sink pad (`FrameHandoff`),
        // and no probe added after it runs: watch them where they leave the element before (same buffers).
        if factoryName == "appsink", let peer = gst_pad_get_peer(p) {
            gst_object_unref(UnsafeMutableRawPointer(p))
            p = peer
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
        let ctx = Unmanaged.passRetained(BufferWatch(body)).toOpaque()
        gst_pad_add_probe(
            p, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, data in
                guard let info, let data else { return GST_PAD_PROBE_OK }
                let b = vf_probe_info_buffer(info)
                let m = b.flatMap { gst_buffer_n_memory($0) > 0 ? gst_buffer_peek_memory($0, 0) : nil }
                Unmanaged<BufferWatch>.fromOpaque(data).takeUnretainedValue().body(UInt(bitPattern: m))
                return GST_PAD_PROBE_OK
            }, ctx, { data in if let data { Unmanaged<BufferWatch>.fromOpaque(data).release() } })
        return true
    }
}
