import CGStreamer

/// The states an element or pipeline moves through.
public enum ElementState: Sendable {
    case null, ready, paused, playing
    var raw: GstState {
        switch self {
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }
}

/// The outcome of a state change request.
public enum StateChange: Sendable, Equatable {
    case success, async, noPreroll, failure
}

/// A GstPipeline built from a gst-launch description.
public final class Pipeline: Element, @unchecked Sendable {
    /// `text` as a double-quoted gst-launch value (backslashes and quotes escaped), for locations
    /// spliced into descriptions.
    public static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Parses a gst-launch description into a new pipeline; any parse problem is fatal.
    public static func parse(_ description: String) throws(GStreamerError) -> Pipeline {
        GStreamer.initialize()
        var err: UnsafeMutablePointer<GError>? = nil
        let flags = GST_PARSE_FLAG_FATAL_ERRORS
        let el = gst_parse_launch_full(description, nil, flags, &err)
        if let err {
            if let el { gst_object_unref(UnsafeMutableRawPointer(el)) }
            throw GStreamerError(.parse, takeError(err))
        }
        guard let el else { throw GStreamerError(.parse, "could not build a pipeline from '\(description)'") }
        // gst_parse_launch returns a floating-sunk pipeline when there is more than one element,
        // or the bare element for a single element: wrap that in a pipeline of its own.
        if g_type_check_instance_is_a(UnsafeMutableRawPointer(el).assumingMemoryBound(to: GTypeInstance.self), gst_pipeline_get_type()) != 0
        {
            return Pipeline(owning: el)
        }
        let pipe = gst_pipeline_new(nil)!
        gst_bin_add(vf_bin(UnsafeMutableRawPointer(pipe)), el)
        return Pipeline(owning: pipe)
    }

    /// Requests a state; returns GStreamer's answer.
    @discardableResult public func setState(_ state: ElementState) -> StateChange {
        switch gst_element_set_state(raw, state.raw) {
        case GST_STATE_CHANGE_SUCCESS: .success
        case GST_STATE_CHANGE_ASYNC: .async
        case GST_STATE_CHANGE_NO_PREROLL: .noPreroll
        default: .failure
        }
    }

    /// The element with that name anywhere inside the pipeline.
    public func element(named name: String) -> Element? {
        guard let e = gst_bin_get_by_name(vf_bin(UnsafeMutableRawPointer(raw)), name) else { return nil }
        return Element(owning: e)
    }

    /// The appsink with that name, if there is one.
    public func appSink(named name: String) -> AppSink? {
        guard let e = gst_bin_get_by_name(vf_bin(UnsafeMutableRawPointer(raw)), name) else { return nil }
        return AppSink(owning: e)
    }

    /// The appsrc with that name, if there is one.
    public func appSource(named name: String) -> AppSource? {
        guard let e = gst_bin_get_by_name(vf_bin(UnsafeMutableRawPointer(raw)), name) else { return nil }
        return AppSource(owning: e)
    }

    /// Every element inside the pipeline, recursing into bins.
    public var allElements: [Element] { collect(gst_bin_iterate_recurse(vf_bin(UnsafeMutableRawPointer(raw)))) }

    /// The elements the description created: the pipeline's children, recursing only into plain
    /// bins written as `( ... )`, not into elements that build their own insides (decodebin...).
    public var describedElements: [Element] {
        var out: [Element] = []
        var bins: [UnsafeMutablePointer<GstBin>] = [vf_bin(UnsafeMutableRawPointer(raw))]
        while let b = bins.popLast() {
            for e in collect(gst_bin_iterate_elements(b)) {
                out.append(e)
                if e.factoryName == "bin" { bins.append(vf_bin(UnsafeMutableRawPointer(e.raw))) }
            }
        }
        return out
    }

    /// The source elements inside the pipeline, recursing into bins.
    public var sourceElements: [Element] { collect(gst_bin_iterate_sources(vf_bin(UnsafeMutableRawPointer(raw)))) }

    func collect(_ it: UnsafeMutablePointer<GstIterator>?) -> [Element] { Self.collectElements(it) }

    /// The elements an iterator yields (each retained).
    static func collectElements(_ it: UnsafeMutablePointer<GstIterator>?) -> [Element] {
        guard let it, let arr = vf_iterator_collect(it) else { return [] }
        defer { vf_object_array_free(arr) }
        var out: [Element] = []
        var i = 0
        while let p = arr[i] {
            out.append(Element(retaining: p.assumingMemoryBound(to: GstElement.self)))
            i += 1
        }
        return out
    }

    /// The pipeline's bus.
    public var bus: Bus { Bus(owning: gst_element_get_bus(raw)!) }

    /// Keeps the links gst_parse_launch made to the dynamic ("sometimes") pads of the described elements
    /// (demuxers, decodebin, rtspsrc) across a restart: its own are one-shot, so after NULL -> PLAYING the new
    /// pads would stay unlinked. Call before the pipeline first starts.
    public func keepDynamicLinks() {
        for e in describedElements where e.hasSometimesOutputs { vf_element_keep_dynamic_links(e.raw) }
    }

    /// Makes the pipeline use `clock` instead of electing one.
    public func use(_ clock: Clock) { gst_pipeline_use_clock(vf_pipeline(UnsafeMutableRawPointer(raw)), clock.raw) }

    /// Fixes the base time (running time 0 on the clock) and stops the pipeline from choosing its own.
    public func fixBaseTime(_ time: UInt64) {
        gst_element_set_start_time(raw, vf_clock_time_none())
        gst_element_set_base_time(raw, GstClockTime(time))
    }

    /// Recomputes and redistributes latency (after a source's latency changed).
    public func recalculateLatency() { _ = gst_bin_recalculate_latency(vf_bin(UnsafeMutableRawPointer(raw))) }

    /// The stream position in ns, when known.
    public var position: UInt64? {
        var pos: gint64 = 0
        guard gst_element_query_position(raw, GST_FORMAT_TIME, &pos) != 0, pos >= 0 else { return nil }
        return UInt64(pos)
    }
}

/// A GStreamer clock.
public final class Clock: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstClock>
    init(owning raw: UnsafeMutablePointer<GstClock>) { self.raw = raw }
    deinit { gst_object_unref(UnsafeMutableRawPointer(raw)) }
    /// The process-wide monotonic system clock.
    public static func system() -> Clock {
        GStreamer.initialize()
        return Clock(owning: gst_system_clock_obtain())
    }
    /// The clock's current time in ns.
    public var now: UInt64 { UInt64(gst_clock_get_time(raw)) }
}
