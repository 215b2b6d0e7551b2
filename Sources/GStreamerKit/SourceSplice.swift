import CGStreamer
import Foundation
import Synchronization

/// A replacement for the elements that feed an appsink in a running pipeline (the host's source switch): a bin built
/// from a gst-launch fragment, its one open output ghosted as `src`.
///
/// Life: `make` (NULL: parse errors, links inside the fragment), `outputCaps` (READY: what it can give), `start`
/// (PAUSED on its own: a source that cannot start fails here), `attach` to the running pipeline (it plays on the pipeline's clock and base time, its frames dropped at its output while
/// `parked`: nothing reaches the appsink yet), `splice(into:offset:)` (the appsink's current feed is cut off where it
/// enters the appsink, this bin linked in its place; the first frame after the link decides the pad offset and is
/// dropped, so the stream-start, caps and segment events go out again with that offset before any frame), or `detach`
/// (a failed trial: NULL, removed).
///
/// Threads and locks: the probe on `src` runs on the bin's streaming thread; `state` (a mutex) is shared with the
/// caller's thread, which calls everything else. The offset closure runs on the streaming thread, outside the lock.
public final class SourceSplice: @unchecked Sendable {
    let bin: Element
    let pad: UnsafeMutablePointer<GstPad>
    private let probe = SpliceProbe()

    private init(bin: Element, pad: UnsafeMutablePointer<GstPad>) { self.bin = bin; self.pad = pad }
    deinit { gst_object_unref(UnsafeMutableRawPointer(pad)) }

    /// Parses `description` into a bin named `name` and ghosts its one open output as `src`. Unlinked pads are not
    /// ghosted by the parser: a delayed link (`decodebin ! videoconvert`) would find its target pad taken by a ghost.
    public static func make(_ description: String, name: String) throws(SourceSpliceError) -> SourceSplice {
        GStreamer.initialize()
        var err: UnsafeMutablePointer<GError>? = nil
        let made = gst_parse_bin_from_description_full(description, 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &err)
        if let err {
            if let made { gst_object_unref(UnsafeMutableRawPointer(made)) }
            throw .build(takeError(err))
        }
        guard let made else { throw .build("could not build a bin from '\(description)'") }
        gst_object_ref_sink(UnsafeMutableRawPointer(made))
        let bin = Element(owning: made)
        _ = gst_object_set_name(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GstObject.self), name)
        // The children's unlinked source pads (their own, not those inside their insides).
        var open: [String] = []
        var target: UnsafeMutablePointer<GstPad>?
        var dynamic: String?
        let children = Pipeline.collectElements(gst_bin_iterate_elements(vf_bin(UnsafeMutableRawPointer(made))))
        if !children.contains(where: \.isSource) { throw .noSource }
        for e in children {
            if e.hasSometimesOutputs { dynamic = dynamic ?? e.name }
            guard let it = gst_element_iterate_src_pads(e.raw), let arr = vf_iterator_collect(it) else { continue }
            defer { vf_object_array_free(arr) }
            var i = 0
            while let p = arr[i] {
                let pad = p.assumingMemoryBound(to: GstPad.self)
                if gst_pad_is_linked(pad) == 0 {
                    open.append("\(e.name).\(String(cString: vf_object_name(p)))")
                    if target == nil { target = pad }
                }
                i += 1
            }
        }
        if open.count > 1 { throw .severalOutputs(open) }
        guard let target, let ghost = gst_ghost_pad_new("src", target) else { throw .noOutput(dynamic: dynamic) }
        gst_object_ref(UnsafeMutableRawPointer(ghost))
        guard gst_element_add_pad(made, ghost) != 0 else {
            gst_object_unref(UnsafeMutableRawPointer(ghost))
            throw .build("could not expose the output \(open.first ?? "?")")
        }
        return SourceSplice(bin: bin, pad: ghost)
    }

    /// The element named `name` inside the bin.
    public func element(named name: String) -> Element? {
        guard let e = gst_bin_get_by_name(vf_bin(UnsafeMutableRawPointer(bin.raw)), name) else { return nil }
        return Element(owning: e)
    }

    /// Names of the bin and of every element inside it (messages on the bus name these).
    public var elementNames: Set<String> { Set([bin.name] + elements.map(\.name)) }

    /// Every element inside the bin, recursing into bins.
    public var elements: [Element] { Pipeline.collectElements(gst_bin_iterate_recurse(vf_bin(UnsafeMutableRawPointer(bin.raw)))) }

    /// What its output can give (a caps query on `src`, with no peer: what the bin itself allows).
    public func outputCaps() -> Caps? { gst_pad_query_caps(pad, nil).map { Caps(owning: $0) } }

    /// Sets the bin's state (validation: READY for the caps query, then NULL).
    @discardableResult public func setState(_ state: ElementState) -> StateChange {
        switch gst_element_set_state(bin.raw, state.raw) {
        case GST_STATE_CHANGE_SUCCESS: .success
        case GST_STATE_CHANGE_ASYNC: .async
        case GST_STATE_CHANGE_NO_PREROLL: .noPreroll
        default: .failure
        }
    }

    /// Keeps the links to dynamic pads inside the bin across restarts of the pipeline (see `Pipeline.keepDynamicLinks`).
    public func keepDynamicLinks() {
        for e in elements where e.hasSometimesOutputs { vf_element_keep_dynamic_links(e.raw) }
    }

    /// Frames that reached the output while parked, and frames passed on since the splice.
    public var frames: (parked: Int, passed: Int) { probe.state.withLock { ($0.parked, $0.passed) } }

    /// Brings the bin to PAUSED on its own, on a bus of its own, parked (its frames dropped at its output from now
    /// on): a source that cannot start (no such file, a busy device) fails here, outside the running pipeline. Inside
    /// it, a child that fails a state change takes the pipeline's state down with it (it drops to PAUSED and never
    /// posts end-of-stream again). Nil, or the first error it posted ("element: text (detail)").
    public func start() -> String? {
        probe.install(on: pad)
        guard let raw = gst_bus_new() else { return "no bus" }
        let bus = Bus(owning: raw)
        gst_element_set_bus(bin.raw, raw)
        guard gst_element_set_state(bin.raw, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE else { return nil }
        gst_element_set_state(bin.raw, GST_STATE_NULL)
        var errors: [String] = []
        while let m = bus.pop() {
            guard case .error(let text, let debug) = m.kind else { continue }
            // GStreamer's debug text ends with the detail (the file, the device): keep its last line.
            let detail = debug?.split(separator: "\n").last.map { " (\($0.trimmingCharacters(in: .whitespaces)))" } ?? ""
            errors.append("\(m.source): \(text)\(detail)")
        }
        gst_element_set_bus(bin.raw, nil)
        // The first error says why; the others repeat it or say that the state change failed.
        return errors.first ?? "it refused to start"
    }

    /// Adds the started bin to `pipeline` (which gives it its clock and base time and its bus) and brings it to the
    /// pipeline's state, still parked. False when it could not be added or started (then it is detached again).
    public func attach(to pipeline: Pipeline) -> Bool {
        guard gst_bin_add(vf_bin(UnsafeMutableRawPointer(pipeline.raw)), bin.raw) != 0 else { return false }
        if gst_element_sync_state_with_parent(bin.raw) == 0 {
            detach(from: pipeline)
            return false
        }
        return true
    }

    /// Stops the bin and takes it out of `pipeline` (a trial that failed).
    public func detach(from pipeline: Pipeline) {
        _ = gst_element_set_locked_state(bin.raw, 1)
        gst_element_set_state(bin.raw, GST_STATE_NULL)
        _ = gst_bin_remove(vf_bin(UnsafeMutableRawPointer(pipeline.raw)), bin.raw)
    }

    /// Feeds `sink` from this bin instead of what fed it: what fed it is cut off (its data dropped where it leaves,
    /// so it sees no error), once no buffer of it is on its way in (an idle probe, up to 1 s); then this bin is linked
    /// and its next frame is given to `offset` (its running time and duration), whose answer becomes the pad offset,
    /// and dropped. False (and the old feed restored) when the link fails.
    public func splice(into sink: AppSink, offset: @escaping @Sendable (UInt64?, UInt64?) -> Int64) -> Bool {
        guard let sinkPad = gst_element_get_static_pad(sink.raw, "sink") else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(sinkPad)) }
        let old = gst_pad_get_peer(sinkPad)
        defer { if let old { gst_object_unref(UnsafeMutableRawPointer(old)) } }
        var dropID: gulong = 0
        if let old {
            dropID = gst_pad_add_probe(old, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, { _, _, _ in GST_PAD_PROBE_DROP }, nil, nil)
            let idle = DispatchSemaphore(value: 0)
            let ctx = Unmanaged.passRetained(idle).toOpaque()
            gst_pad_add_probe(
                old, GST_PAD_PROBE_TYPE_IDLE,
                { _, _, data in
                    if let data { Unmanaged<DispatchSemaphore>.fromOpaque(data).takeUnretainedValue().signal() }
                    return GST_PAD_PROBE_REMOVE
                }, ctx, { data in if let data { Unmanaged<DispatchSemaphore>.fromOpaque(data).release() } })
            _ = idle.wait(timeout: .now() + 1)
            _ = gst_pad_unlink(old, sinkPad)
        }
        probe.arm(offset)
        guard gst_pad_link(pad, sinkPad) == GST_PAD_LINK_OK else {
            probe.park()
            if let old {
                _ = gst_pad_link(old, sinkPad)
                gst_pad_remove_probe(old, dropID)
            }
            return false
        }
        return true
    }
}

/// Why a fragment cannot become a splice.
public enum SourceSpliceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// GStreamer's parser refused it (syntax, an unknown property or value, elements that do not link).
    case build(String)
    /// No element in it is a source.
    case noSource
    /// Nothing open at its end: it ends in a sink, or in an output that appears only once it plays (`dynamic`: that
    /// element, e.g. a `decodebin` nothing follows).
    case noOutput(dynamic: String?)
    /// More than one open output ("element.pad").
    case severalOutputs([String])

    public var description: String {
        switch self {
        case .build(let text): text
        case .noSource: "it has no source element: expected a source first (e.g. 'videotestsrc is-live=true')"
        case .noOutput(nil): "it has no open output: it must end in video, not in a sink"
        case .noOutput(.some(let e)): "its output appears only once '\(e)' plays"
        case .severalOutputs(let pads):
            "it has more than one open output (\(pads.joined(separator: ", "))): expected one chain ending in video"
        }
    }
}

/// The probe on a splice's output: parked (drop, count), armed (the next frame sets the pad offset and is dropped),
/// passing (count).
final class SpliceProbe: @unchecked Sendable {
    enum Phase { case parked, armed, passing }
    struct State {
        var phase = Phase.parked
        var parked = 0
        var passed = 0
        var offset: (@Sendable (UInt64?, UInt64?) -> Int64)?
    }
    let state = Mutex(State())

    func arm(_ offset: @escaping @Sendable (UInt64?, UInt64?) -> Int64) {
        state.withLock {
            $0.offset = offset
            $0.phase = .armed
        }
    }

    func park() { state.withLock { $0.phase = .parked } }

    func install(on pad: UnsafeMutablePointer<GstPad>) {
        let ctx = Unmanaged.passRetained(self).toOpaque()
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { pad, info, data in
                guard let pad, let info, let data else { return GST_PAD_PROBE_OK }
                let probe = Unmanaged<SpliceProbe>.fromOpaque(data).takeUnretainedValue()
                let (phase, offset): (Phase, (@Sendable (UInt64?, UInt64?) -> Int64)?) = probe.state.withLock { s in
                    let p = s.phase
                    switch p {
                    case .parked: s.parked += 1
                    case .armed: s.phase = .passing
                    case .passing: s.passed += 1
                    }
                    return (p, s.offset)
                }
                switch phase {
                case .parked: return GST_PAD_PROBE_DROP
                case .passing: return GST_PAD_PROBE_OK
                case .armed:
                    let b = vf_probe_info_buffer(info)
                    let pts = b.flatMap { clockTime(UInt64(vf_buffer_pts($0))) }
                    let duration = b.flatMap { clockTime(UInt64(vf_buffer_duration($0))) }
                    var rt: UInt64?
                    if let pts, let e = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) {
                        var seg: UnsafePointer<GstSegment>? = nil
                        gst_event_parse_segment(e, &seg)
                        if let seg { rt = Segment(seg.pointee).runningTime(pts) }
                        gst_event_unref(e)
                    }
                    // Setting the offset sends the sticky events again (with it) before the next frame.
                    gst_pad_set_offset(pad, gint64(offset?(rt, duration) ?? 0))
                    return GST_PAD_PROBE_DROP
                }
            }, ctx, { data in if let data { Unmanaged<SpliceProbe>.fromOpaque(data).release() } })
    }
}

extension Pipeline {
    /// Stops and removes every child of the pipeline but `keep` (the elements a splice replaced): each is locked in
    /// its state first, so the pipeline's own state changes no longer reach it, then set to NULL, then removed.
    public func retireChildren(keeping keep: [Element], splice: SourceSplice) -> [String] {
        let kept = Set(keep.map { UnsafeMutableRawPointer($0.raw) } + [UnsafeMutableRawPointer(splice.bin.raw)])
        let old = children.filter { !kept.contains(UnsafeMutableRawPointer($0.raw)) }
        for e in old { _ = gst_element_set_locked_state(e.raw, 1) }
        for e in old { gst_element_set_state(e.raw, GST_STATE_NULL) }
        for e in old { _ = gst_bin_remove(vf_bin(UnsafeMutableRawPointer(raw)), e.raw) }
        return old.map(\.name)
    }

    /// The pipeline's direct children.
    public var children: [Element] { collect(gst_bin_iterate_elements(vf_bin(UnsafeMutableRawPointer(raw)))) }
}

extension AppSink {
    /// The caps the appsink was configured to accept (nil: any).
    public var acceptedCaps: Caps? { gst_app_sink_get_caps(vf_appsink(UnsafeMutableRawPointer(raw))).map { Caps(owning: $0) } }
}
