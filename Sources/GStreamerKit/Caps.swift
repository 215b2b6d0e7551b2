import CGStreamer

/// Reference-counted GstCaps.
public final class Caps: @unchecked Sendable, CustomStringConvertible, Equatable {
    let raw: UnsafeMutablePointer<GstCaps>
    init(owning raw: UnsafeMutablePointer<GstCaps>) { self.raw = raw }
    init(retaining raw: UnsafeMutablePointer<GstCaps>) { self.raw = gst_caps_ref(raw) }
    deinit { gst_caps_unref(raw) }

    /// Parses caps text such as `video/x-raw,format=I420,width=320`.
    public init(_ text: String) throws(GStreamerError) {
        GStreamer.initialize()
        guard let c = gst_caps_from_string(text) else { throw GStreamerError(.core, "bad caps '\(text)'") }
        raw = c
    }

    /// The caps both accept, in this one's order of preference (GST_CAPS_INTERSECT_FIRST).
    public func intersect(_ other: Caps) -> Caps {
        Caps(owning: gst_caps_intersect_full(raw, other.raw, GST_CAPS_INTERSECT_FIRST))
    }
    /// True when nothing can pass.
    public var isEmpty: Bool { gst_caps_is_empty(raw) != 0 }
    /// True for ANY caps.
    public var isAny: Bool { gst_caps_is_any(raw) != 0 }
    /// A field of the first structure after fixation (the first value of a list or range), as text: strings as
    /// they are, integers in decimal; nil when the caps are empty, ANY, or have no such field.
    public func fixatedField(_ name: String) -> String? {
        guard !isAny, !isEmpty, let fixed = gst_caps_fixate(gst_caps_copy(raw)) else { return nil }
        defer { gst_caps_unref(fixed) }
        guard let st = gst_caps_get_structure(fixed, 0) else { return nil }
        if let v = gst_structure_get_string(st, name) { return String(cString: v) }
        var i: gint = 0
        if gst_structure_get_int(st, name, &i) != 0 { return String(i) }
        return nil
    }
    /// The media type of each structure, in order (`application/x-rtp`, `video/x-h264`); empty for ANY or EMPTY.
    public var structureNames: [String] {
        guard !isAny else { return [] }
        return (0..<gst_caps_get_size(raw)).compactMap { i in
            gst_caps_get_structure(raw, i).flatMap { gst_structure_get_name($0) }.map { String(cString: $0) }
        }
    }

    /// Caps in gst-launch text form.
    public var description: String {
        guard let s = gst_caps_to_string(raw) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// Structural equality, as gst_caps_is_equal.
    public static func == (a: Caps, b: Caps) -> Bool { a.raw == b.raw || gst_caps_is_equal(a.raw, b.raw) != 0 }

    /// The raw-video layout these caps describe, or nil for non-raw or unfixed caps.
    public var videoInfo: VideoInfo? {
        // gst_video_info_from_caps asserts (a g_critical) on unfixed caps: check first.
        guard gst_caps_is_fixed(raw) != 0 else { return nil }
        var info = GstVideoInfo()
        guard gst_video_info_from_caps(&info, raw) != 0 else { return nil }
        return VideoInfo(info)
    }
}

/// The layout of a raw video frame (GstVideoInfo): format, size, rate, planes.
public struct VideoInfo: @unchecked Sendable, Equatable {
    var raw: GstVideoInfo
    init(_ raw: GstVideoInfo) { self.raw = raw }

    /// Builds the layout for a format name (`I420`, `RGBA`...) and size.
    public init(format: String, width: Int, height: Int, fpsN: Int = 30, fpsD: Int = 1) throws(GStreamerError) {
        GStreamer.initialize()
        let f = gst_video_format_from_string(format)
        guard f != GST_VIDEO_FORMAT_UNKNOWN else { throw GStreamerError(.core, "unknown video format '\(format)'") }
        var info = GstVideoInfo()
        gst_video_info_set_format(&info, f, guint(width), guint(height))
        info.fps_n = gint(fpsN); info.fps_d = gint(fpsD)
        raw = info
    }

    /// The format's name as in caps, e.g. "I420".
    public var format: String { String(cString: gst_video_format_to_string(raw.finfo.pointee.format)) }
    /// Width in pixels.
    public var width: Int { Int(raw.width) }
    /// Height in pixels.
    public var height: Int { Int(raw.height) }
    /// Frame rate numerator.
    public var fpsN: Int { Int(raw.fps_n) }
    /// Frame rate denominator.
    public var fpsD: Int { Int(raw.fps_d) }
    /// Bytes in one frame.
    public var size: Int { Int(raw.size) }
    /// Number of planes.
    public var planes: Int { Int(raw.finfo.pointee.n_planes) }
    /// Stride of a plane in bytes.
    public func stride(plane: Int) -> Int {
        withUnsafeBytes(of: raw.stride) { $0.load(fromByteOffset: plane * MemoryLayout<gint>.stride, as: gint.self) }.toInt
    }
    /// Offset in bytes of a plane from the start of the frame's buffer.
    public func offset(plane: Int) -> Int { var copy = raw; return Int(vf_video_info_offset(&copy, guint(plane))) }
    /// Caps text for this layout.
    public var capsString: String {
        var copy = raw
        guard let c = gst_video_info_to_caps(&copy) else { return "" }
        defer { gst_caps_unref(c) }
        guard let s = gst_caps_to_string(c) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// Equal when format, size and rate agree.
    public static func == (a: VideoInfo, b: VideoInfo) -> Bool {
        var x = a.raw, y = b.raw
        return gst_video_info_is_equal(&x, &y) != 0
    }
}

extension gint { var toInt: Int { Int(self) } }

extension Caps {
    /// A copy without `fields` in any of its structures (e.g. the size, to carry only the format across a stage
    /// that changes the size).
    public func removing(fields: [String]) -> Caps {
        let copy = gst_caps_copy(raw)!
        for i in 0..<gst_caps_get_size(copy) {
            guard let st = gst_caps_get_structure(copy, i) else { continue }
            for f in fields { gst_structure_remove_field(st, f) }
        }
        return Caps(owning: copy)
    }

    /// True when everything these caps allow the other allows too (gst_caps_is_subset).
    public func isSubset(of other: Caps) -> Bool { gst_caps_is_subset(raw, other.raw) != 0 }
}
