import CGStreamer
import Synchronization

/// Where each sink's stream stood when end-of-stream reached it: the position upstream reports then
/// and the duration it reports (a demuxer's duration comes from the file's header, its position from
/// what it really pushed, so a truncated file shows as position < duration).
public final class StreamEndWatch: @unchecked Sendable {
    /// One sink's end: its name and the upstream position and duration (ns) at EOS, when known.
    public struct End: Sendable, Equatable {
        public var sink: String
        public var position: UInt64?
        public var duration: UInt64?
    }
    private let ends = Mutex<[End]>([])
    /// The sinks watched (every sink with a `sink` pad, bins' children included), by name.
    public internal(set) var watched: [String] = []
    init() {}
    func record(_ e: End) { ends.withLock { $0.append(e) } }
    /// The ends seen so far, in arrival order.
    public var seen: [End] { ends.withLock { $0 } }
}

extension Pipeline {
    /// Watches every sink of the pipeline for end-of-stream and asks upstream, at that moment, for the
    /// position and duration in time (the events go on untouched).
    public func watchStreamEnd() -> StreamEndWatch {
        let watch = StreamEndWatch()
        for e in allElements where e.isSink {
            guard let p = gst_element_get_static_pad(e.raw, "sink") else { continue }
            defer { gst_object_unref(UnsafeMutableRawPointer(p)) }
            watch.watched.append(e.name)
            let ctx = Unmanaged.passRetained(watch).toOpaque()
            gst_pad_add_probe(
                p, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
                { pad, info, data in
                    guard let pad, let data, let info, let ev = vf_probe_info_event(info), vf_event_type(ev) == GST_EVENT_EOS else {
                        return GST_PAD_PROBE_OK
                    }
                    var pos: gint64 = -1, dur: gint64 = -1
                    let havePos = gst_pad_peer_query_position(pad, GST_FORMAT_TIME, &pos) != 0 && pos >= 0
                    let haveDur = gst_pad_peer_query_duration(pad, GST_FORMAT_TIME, &dur) != 0 && dur > 0
                    let parent = gst_pad_get_parent_element(pad)
                    let name = parent.map { String(cString: vf_object_name(UnsafeMutableRawPointer($0))) } ?? "?"
                    if let parent { gst_object_unref(UnsafeMutableRawPointer(parent)) }
                    Unmanaged<StreamEndWatch>.fromOpaque(data).takeUnretainedValue()
                        .record(.init(sink: name, position: havePos ? UInt64(pos) : nil, duration: haveDur ? UInt64(dur) : nil))
                    return GST_PAD_PROBE_OK
                }, ctx, { data in Unmanaged<StreamEndWatch>.fromOpaque(data!).release() })
        }
        return watch
    }
}
