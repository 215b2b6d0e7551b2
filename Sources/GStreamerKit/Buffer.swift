import CGStreamer
import Synchronization

/// Counts of buffer copies the binding had to make (copy-on-write of shared buffers).
public enum BufferCopies {
    static let counter = Atomic<Int>(0)
    /// Copies made so far in this process.
    public static var count: Int { counter.load(ordering: .relaxed) }
    static func add() { counter.add(1, ordering: .relaxed) }
}

/// A reference-counted GstBuffer with its timestamps.
public final class Buffer: @unchecked Sendable {
    private(set) var raw: UnsafeMutablePointer<GstBuffer>
    init(owning raw: UnsafeMutablePointer<GstBuffer>) { self.raw = raw }
    deinit { gst_buffer_unref(raw) }

    /// Allocates a buffer of `size` bytes filled with `bytes` (or zeros).
    public init(bytes: [UInt8]) {
        GStreamer.initialize()
        raw = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        _ = bytes.withUnsafeBytes { gst_buffer_fill(raw, 0, $0.baseAddress, gsize($0.count)) }
    }

    /// Presentation timestamp in ns.
    public var pts: ClockTime {
        get { clockTime(UInt64(vf_buffer_pts(raw))) }
        set { makeWritable(); vf_buffer_set_pts(raw, guint64(newValue.gstValue)) }
    }
    /// Decoding timestamp in ns.
    public var dts: ClockTime {
        get { clockTime(UInt64(vf_buffer_dts(raw))) }
        set { makeWritable(); vf_buffer_set_dts(raw, guint64(newValue.gstValue)) }
    }
    /// Duration in ns.
    public var duration: ClockTime {
        get { clockTime(UInt64(vf_buffer_duration(raw))) }
        set { makeWritable(); vf_buffer_set_duration(raw, guint64(newValue.gstValue)) }
    }
    /// GStreamer's GAP flag: the host's placeholders have it, and so have the frames videorate duplicates (real
    /// pictures): `isPlaceholder` tells them apart.
    public var isGap: Bool {
        get { vf_buffer_is_gap(raw) != 0 }
        set { makeWritable(); vf_buffer_set_gap(raw, newValue ? 1 : 0) }
    }
    /// GStreamer's DELTA_UNIT flag: an encoded frame that cannot be decoded alone (false: a keyframe, or raw video).
    public var isDeltaUnit: Bool { vf_buffer_is_delta_unit(raw) != 0 }
    /// Total size in bytes.
    public var size: Int { Int(gst_buffer_get_size(raw)) }
    /// True when this is the only reference, so it can be changed in place.
    public var isWritable: Bool { vf_buffer_is_writable(raw) != 0 }
    /// An identity for the underlying GstBuffer (for zero-copy checks).
    public var identity: UInt { UInt(bitPattern: raw) }

    /// Ensures this object holds a writable buffer; copies (and counts the copy) only when shared.
    public func makeWritable() {
        if vf_buffer_is_writable(raw) != 0 { return }
        raw = vf_buffer_make_writable(raw)
        BufferCopies.add()
    }

    /// A second reference to the same GstBuffer (no copy); writing to either will copy first.
    public func shared() -> Buffer { Buffer(owning: gst_buffer_ref(raw)) }

    /// Hands this object's reference to the caller (who must unref it) and leaves the object holding a
    /// new empty buffer. Used to give a frame away (`AppSource.push(consuming:)`) without a moment
    /// where both sides hold it: a downstream stage then finds it writable.
    func consume() -> UnsafeMutablePointer<GstBuffer> {
        let taken = raw
        raw = gst_buffer_new()
        return taken
    }

    /// Copies all bytes out (for tests and small buffers).
    public func bytes() -> [UInt8] {
        let n = size
        var out = [UInt8](repeating: 0, count: n)
        _ = out.withUnsafeMutableBytes { gst_buffer_extract(raw, 0, $0.baseAddress, gsize(n)) }
        return out
    }
}

/// A segment (GstSegment) copied by value.
public struct Segment: @unchecked Sendable, Equatable {
    var raw: GstSegment
    /// Same format, rate, times and flags.
    public static func == (a: Segment, b: Segment) -> Bool {
        var x = a.raw, y = b.raw
        return gst_segment_is_equal(&x, &y) != 0
    }
    /// A fresh TIME segment starting at 0.
    public init() { raw = GstSegment(); gst_segment_init(&raw, GST_FORMAT_TIME) }
    /// A TIME segment whose running time starts at `start` (ns): a file written from a stream's middle starts at 0.
    public init(start: UInt64) {
        self.init()
        raw.start = guint64(start)
        raw.time = guint64(start)
        raw.position = guint64(start)
    }
    init(_ raw: GstSegment) { self.raw = raw }
    /// The segment position (a timestamp in it) of a running time, nil when before the segment.
    public func position(runningTime t: UInt64) -> UInt64? {
        var s = raw
        let p = gst_segment_position_from_running_time(&s, GST_FORMAT_TIME, guint64(t))
        return clockTime(UInt64(p))
    }
    /// The running time of a timestamp in this segment.
    public func runningTime(_ t: UInt64) -> UInt64? {
        var s = raw
        let r = gst_segment_to_running_time(&s, GST_FORMAT_TIME, guint64(t))
        return clockTime(UInt64(r))
    }
}
