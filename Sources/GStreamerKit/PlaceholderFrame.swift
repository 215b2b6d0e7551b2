import CGStreamer

/// Frames the host makes itself: a plain frame of any raw format, for the slate shown while a source is away.
public enum PlaceholderFrame {
    /// The custom meta that marks the host's own placeholders. GAP alone does not: videorate flags every frame it
    /// duplicates GAP (a 10 fps camera raised to 30 fps: two frames in three), and those carry the picture.
    public static let meta = "ViewfinderPlaceholder"

    /// A new frame of `info`'s format and size, every pixel one grey level (0 black ... 255 white; limited
    /// range for YUV formats), painted line by line through the format's own pack function as videotestsrc
    /// does, so every raw format GStreamer knows works. Marked GAP (no real content) and with `meta`, with
    /// `pts`/`duration`.
    public static func make(_ info: VideoInfo, grey: UInt8, pts: UInt64?, duration: UInt64?) throws(GStreamerError) -> Buffer {
        GStreamer.initialize()
        var vinfo = info.raw
        guard let raw = gst_buffer_new_allocate(nil, vf_video_info_size(&vinfo), nil) else {
            throw GStreamerError(.resource, "could not allocate a \(info.format) \(info.width)x\(info.height) frame")
        }
        let buffer = Buffer(owning: raw)
        var frame = GstVideoFrame()
        guard gst_video_frame_map(&frame, &vinfo, raw, GST_MAP_WRITE) != 0 else {
            throw GStreamerError(.stream, "could not map a \(info.format) \(info.width)x\(info.height) frame for writing")
        }
        defer { gst_video_frame_unmap(&frame) }
        let unpack = vf_video_frame_unpack_format(&frame)
        let width = info.width
        // One line of pixels in the unpack format: AYUV/ARGB (8 bits) or AYUV64/ARGB64 (16 bits).
        let yuv = unpack == GST_VIDEO_FORMAT_AYUV || unpack == GST_VIDEO_FORMAT_AYUV64
        let wide = unpack == GST_VIDEO_FORMAT_AYUV64 || unpack == GST_VIDEO_FORMAT_ARGB64
        let y = yuv ? UInt8(16 + Int(grey) * 219 / 255) : grey
        let c: UInt8 = yuv ? 128 : grey
        let pixel: [UInt8] = [255, y, c, c]
        if wide {
            var line = [UInt16](repeating: 0, count: width * 4)
            for i in 0..<width { for k in 0..<4 { line[i * 4 + k] = UInt16(pixel[k]) << 8 | UInt16(pixel[k]) } }
            line.withUnsafeBytes { vf_video_frame_fill_lines(&frame, $0.baseAddress) }
        } else {
            var line = [UInt8](repeating: 0, count: width * 4)
            for i in 0..<width { for k in 0..<4 { line[i * 4 + k] = pixel[k] } }
            line.withUnsafeBytes { vf_video_frame_fill_lines(&frame, $0.baseAddress) }
        }
        vf_buffer_set_gap(raw, 1)
        if let pts { vf_buffer_set_pts(raw, guint64(pts)) }
        if let duration { vf_buffer_set_duration(raw, guint64(duration)) }
        buffer.setCustomMeta(MessageStructure(meta))
        return buffer
    }
}

extension Buffer {
    /// One of the host's placeholders (`PlaceholderFrame`: GAP and its meta), which stages pass untouched; a GAP
    /// frame from elsewhere (videorate's duplicates) is a picture like any other.
    public var isPlaceholder: Bool { isGap && customMetaText(PlaceholderFrame.meta) != nil }
}
