import CGStreamer

extension Buffer {
    /// A deep copy: new pixel memory, same timestamps and metadata (custom metas included). For keeping
    /// frames past their upstream pool's lifetime (a capture ring).
    public func deepCopy() -> Buffer { Buffer(owning: gst_buffer_copy_deep(raw)) }

    /// Like `deepCopy`, but writes the bytes into `old` when it is the same size and nobody else holds
    /// it (a ring's evicted entry): no fresh allocation, no page faults on a new 3 MB block each frame.
    /// Timestamps come along; metadata does not (the copy is for pixels).
    public func copyPixels(reusing old: Buffer?) -> Buffer {
        guard let old, old.size == size, old.isWritable else { return deepCopy() }
        var src = GstMapInfo(), dst = GstMapInfo()
        guard gst_buffer_map(raw, &src, GST_MAP_READ) != 0 else { return deepCopy() }
        defer { gst_buffer_unmap(raw, &src) }
        guard gst_buffer_map(old.raw, &dst, GST_MAP_WRITE) != 0 else { return deepCopy() }
        memcpy(dst.data, src.data, Int(src.size))
        gst_buffer_unmap(old.raw, &dst)
        vf_buffer_set_pts(old.raw, vf_buffer_pts(raw))
        vf_buffer_set_dts(old.raw, vf_buffer_dts(raw))
        vf_buffer_set_duration(old.raw, vf_buffer_duration(raw))
        return old
    }
}

extension VideoFrame {
    /// This frame's pixels copied into fresh memory (or into `reusing`'s, see `Buffer.copyPixels`),
    /// same layout and timestamps.
    public func copied(reusing old: Buffer? = nil) -> VideoFrame {
        VideoFrame(
            buffer: old == nil ? buffer.deepCopy() : buffer.copyPixels(reusing: old), info: info, caps: caps, segment: segment, index: index
        )
    }

    /// The rectangle `cropped` really copies: clamped to the frame, origin and size rounded down to the
    /// format's chroma subsampling.
    public func alignedCrop(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let (hs, vs) = info.chromaSubsampling
        let ax = (1 << hs) - 1, ay = (1 << vs) - 1
        let cx = max(0, min(x, info.width - 1)) & ~ax, cy = max(0, min(y, info.height - 1)) & ~ay
        return (cx, cy, max(1 << hs, min(width, info.width - cx) & ~ax), max(1 << vs, min(height, info.height - cy) & ~ay))
    }

    /// The rectangle (x, y, width, height) copied into a frame of its own size and the same format,
    /// by GStreamer's video converter. The rectangle is clamped to the frame and its origin and size are
    /// rounded down to the format's chroma subsampling. Timestamps and metadata go along.
    public func cropped(x: Int, y: Int, width: Int, height: Int) throws(GStreamerError) -> VideoFrame {
        let (cx, cy, cw, ch) = alignedCrop(x: x, y: y, width: width, height: height)
        let fi = info.raw.finfo.pointee
        // Horizontal / vertical subsampling of the chroma planes (log2), so crops keep chroma aligned.
        var inInfo = info.raw
        var outInfo = GstVideoInfo()
        gst_video_info_set_format(&outInfo, fi.format, guint(cw), guint(ch))
        outInfo.fps_n = inInfo.fps_n; outInfo.fps_d = inInfo.fps_d
        outInfo.par_n = inInfo.par_n; outInfo.par_d = inInfo.par_d
        outInfo.interlace_mode = inInfo.interlace_mode
        outInfo.colorimetry = inInfo.colorimetry
        outInfo.chroma_site = inInfo.chroma_site
        guard let conv = gst_video_converter_new(&inInfo, &outInfo, vf_video_converter_reframe_config(gint(cx), gint(cy), gint(cw), gint(ch)))
        else {
            throw GStreamerError(.library, "GStreamer cannot crop \(info.format) \(info.width)x\(info.height) to \(cw)x\(ch)")
        }
        defer { gst_video_converter_free(conv) }
        let out = gst_buffer_new_allocate(nil, gsize(outInfo.size), nil)!
        // Timestamps, flags and metadata from the source.
        _ = gst_buffer_copy_into(
            out, buffer.raw,
            GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS.rawValue | GST_BUFFER_COPY_TIMESTAMPS.rawValue | GST_BUFFER_COPY_META.rawValue), 0,
            gsize.max)
        var src = GstVideoFrame(), dst = GstVideoFrame()
        guard gst_video_frame_map(&src, &inInfo, buffer.raw, GST_MAP_READ) != 0 else {
            gst_buffer_unref(out); throw GStreamerError(.stream, "could not map a \(info.format) frame for reading")
        }
        defer { gst_video_frame_unmap(&src) }
        guard gst_video_frame_map(&dst, &outInfo, out, GST_MAP_WRITE) != 0 else {
            gst_buffer_unref(out); throw GStreamerError(.stream, "could not map the crop's output")
        }
        gst_video_converter_frame(conv, &src, &dst)
        gst_video_frame_unmap(&dst)
        let caps = Caps(owning: gst_video_info_to_caps(&outInfo))
        return VideoFrame(buffer: Buffer(owning: out), info: VideoInfo(outInfo), caps: caps, segment: segment, index: index)
    }
}
