import CGStreamer

extension GStreamer {
    /// A new element of `factory` brought to READY and kept there (nil when it cannot be made or does not
    /// reach READY). Set to NULL when the returned element goes away.
    ///
    /// A display probe must stay open: an X server that loses its last client resets (Xvfb as
    /// `xvfb-run` starts it), and a sink that connects during the reset fails with "Could not open display".
    public static func elementInReady(_ factory: String) -> ReadyElement? {
        initialize()
        guard let e = gst_element_factory_make(factory, nil) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(e))
        let element = ReadyElement(owning: e)
        return gst_element_set_state(e, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE ? element : nil
    }
}

/// An element held in READY (a display sink keeping its display connection); NULL when released.
public final class ReadyElement: Element, @unchecked Sendable {
    deinit { gst_element_set_state(raw, GST_STATE_NULL) }
}
