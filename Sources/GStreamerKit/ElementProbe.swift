import CGStreamer

extension GStreamer {
    /// Whether a lone new element of `factory` reaches READY (nil when no plugin provides the factory).
    /// Display sinks open their display on that change (ximagesink, xvimagesink), so this tells
    /// whether the display can be used without running anything; the element is dropped afterwards.
    public static func elementReachesReady(_ factory: String) -> Bool? {
        initialize()
        guard let e = gst_element_factory_make(factory, nil) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(e))
        defer {
            gst_element_set_state(e, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(e))
        }
        return gst_element_set_state(e, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE
    }
}
