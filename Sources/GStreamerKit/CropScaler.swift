import CGStreamer

/// A rectangle of a frame scaled into a frame of a fixed other size, same format (reframe's output): one
/// GstVideoConverter pass (bilinear). The converter is built for a rectangle and kept while the rectangle stays
/// (a steady framing costs no set-up); a moved or resized rectangle builds a new one (the taps are computed for
/// the scale: ~0.1 ms at 1080x1920).
public final class CropScaler: @unchecked Sendable {
    /// The layout frames come in.
    public let input: VideoInfo
    /// The layout frames go out.
    public let output: VideoInfo
    /// Caps of `output`.
    public let outputCaps: Caps
    private var converter: OpaquePointer?
    private var rect: Layout?
    /// Converters built so far (a new one per moved rectangle).
    public private(set) var builds = 0

    /// A scaler from `input` frames to `width` x `height` frames of the same format, rate and colorimetry.
    public init(input: VideoInfo, width: Int, height: Int) throws(GStreamerError) {
        GStreamer.initialize()
        guard width > 0, height > 0 else { throw GStreamerError(.core, "cannot scale to \(width)x\(height)") }
        self.input = input
        output = input.resized(width: width, height: height)
        var out = output.raw
        guard let c = gst_video_info_to_caps(&out) else {
            throw GStreamerError(.library, "no caps for \(input.format) \(width)x\(height)")
        }
        outputCaps = Caps(owning: c)
    }

    deinit { if let converter { gst_video_converter_free(converter) } }

    /// The rectangle the converter really reads for (x, y, w, h): inside the frame, origin and size even on
    /// subsampled formats (chroma stays aligned), at least 2x2.
    public func aligned(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let (hs, vs) = input.chromaSubsampling
        let ax = (1 << hs) - 1, ay = (1 << vs) - 1
        let w = max(2, min(width, input.width)) & ~ax, h = max(2, min(height, input.height)) & ~ay
        let cx = max(0, min(x, input.width - w)) & ~ax, cy = max(0, min(y, input.height - h)) & ~ay
        return (cx, cy, w, h)
    }

    /// Where a rectangle is read and where it lands: `source` (input pixels, as `aligned`), and `destination`, the part
    /// of the output it fills (output pixels; the whole output unless the rectangle is larger than the frame).
    public struct Layout: Sendable, Equatable {
        /// The rectangle of the input read.
        public var source: (x: Int, y: Int, width: Int, height: Int)
        /// The rectangle of the output it is scaled into; the rest is black bars.
        public var destination: (x: Int, y: Int, width: Int, height: Int)

        public static func == (a: Layout, b: Layout) -> Bool { a.source == b.source && a.destination == b.destination }
    }

    /// The layout for (x, y, w, h): on an axis where the rectangle fits the frame, it is moved inside (`aligned`) and
    /// fills the output; on an axis where it is larger (reframe's window past the frame), the frame's part of it is read
    /// and lands where it lies in the rectangle, the rest of the output left for bars. Sizes and offsets stay even on
    /// subsampled formats.
    public func layout(x: Int, y: Int, width: Int, height: Int) -> Layout {
        let (hs, vs) = input.chromaSubsampling
        func axis(_ p: Int, _ len: Int, frame: Int, out: Int, sub: Int) -> (s: Int, sl: Int, d: Int, dl: Int)? {
            guard len > frame, len > 0 else { return nil }
            let a = (1 << sub) - 1, step = Double(1 << sub)
            let s0 = max(0, p), s1 = min(frame, p + len)
            guard s1 - s0 >= 2 else { return nil }
            let s = s0 & ~a, sl = max(2, (s1 - s) & ~a)
            // Where the frame's part lands: the same fraction of the output as of the rectangle, each to the nearest
            // multiple of the subsampling.
            func even(_ v: Double) -> Int { Int((v / step).rounded()) << sub }
            let scale = Double(out) / Double(len)
            let dl = min(out & ~a, max(2, even(Double(sl) * scale)))
            return (s, sl, min(max(0, even(Double(s - p) * scale)), out - dl), dl)
        }
        let inside = aligned(x: x, y: y, width: width, height: height)
        var l = Layout(source: inside, destination: (0, 0, output.width, output.height))
        if let h = axis(x, width, frame: input.width, out: output.width, sub: hs) {
            l.source.x = h.s; l.source.width = h.sl; l.destination.x = h.d; l.destination.width = h.dl
        }
        if let v = axis(y, height, frame: input.height, out: output.height, sub: vs) {
            l.source.y = v.s; l.source.height = v.sl; l.destination.y = v.d; l.destination.height = v.dl
        }
        return l
    }

    /// `frame`'s rectangle (x, y, width, height, in its pixels) scaled into a new buffer of `output`'s layout (with
    /// black bars where the rectangle reaches past the frame: `layout`), with the frame's timestamps and flags (not its
    /// metas: a video meta would describe the wrong size; the caller copies the ones it means to keep with
    /// `Buffer.copyCustomMeta`).
    public func render(_ frame: VideoFrame, x: Int, y: Int, width: Int, height: Int) throws(GStreamerError) -> VideoFrame {
        let l = layout(x: x, y: y, width: width, height: height)
        let r = l.source, d = l.destination
        var inInfo = frame.info.raw
        var outInfo = output.raw
        if rect.map({ $0 != l }) ?? true || converter == nil {
            if let converter { gst_video_converter_free(converter) }
            let full = d == (0, 0, output.width, output.height)
            let config =
                full
                ? vf_video_converter_reframe_config(gint(r.x), gint(r.y), gint(r.width), gint(r.height))
                : vf_video_converter_reframe_into_config(
                    gint(r.x), gint(r.y), gint(r.width), gint(r.height), gint(d.x), gint(d.y), gint(d.width), gint(d.height))
            converter = gst_video_converter_new(&inInfo, &outInfo, config)
            rect = l
            builds += 1
        }
        guard let converter else {
            throw GStreamerError(.library, "GStreamer cannot scale \(input.format) \(r.width)x\(r.height) to \(output.width)x\(output.height)")
        }
        guard let out = gst_buffer_new_allocate(nil, gsize(outInfo.size), nil) else {
            throw GStreamerError(.library, "could not allocate a \(output.width)x\(output.height) frame")
        }
        _ = gst_buffer_copy_into(
            out, frame.buffer.raw, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS.rawValue | GST_BUFFER_COPY_TIMESTAMPS.rawValue), 0, gsize.max)
        var src = GstVideoFrame(), dst = GstVideoFrame()
        guard gst_video_frame_map(&src, &inInfo, frame.buffer.raw, GST_MAP_READ) != 0 else {
            gst_buffer_unref(out); throw GStreamerError(.stream, "could not map a \(frame.info.format) frame for reading")
        }
        defer { gst_video_frame_unmap(&src) }
        guard gst_video_frame_map(&dst, &outInfo, out, GST_MAP_WRITE) != 0 else {
            gst_buffer_unref(out); throw GStreamerError(.stream, "could not map a reframed frame")
        }
        gst_video_converter_frame(converter, &src, &dst)
        gst_video_frame_unmap(&dst)
        return VideoFrame(buffer: Buffer(owning: out), info: output, caps: outputCaps, segment: frame.segment, index: frame.index)
    }
}

extension VideoInfo {
    /// The same layout (format, rate, colorimetry, aspect of pixels) at another size.
    public func resized(width: Int, height: Int) -> VideoInfo {
        var info = GstVideoInfo()
        gst_video_info_set_format(&info, raw.finfo.pointee.format, guint(width), guint(height))
        info.fps_n = raw.fps_n; info.fps_d = raw.fps_d
        info.par_n = raw.par_n; info.par_d = raw.par_d
        info.interlace_mode = raw.interlace_mode
        info.colorimetry = raw.colorimetry
        info.chroma_site = raw.chroma_site
        return VideoInfo(info)
    }

    /// Horizontal and vertical subsampling of the chroma planes (log2; 0, 0 without chroma): crops and windows keep
    /// their origin and size multiples of it so chroma stays aligned.
    public var chromaSubsampling: (horizontal: Int, vertical: Int) {
        let fi = raw.finfo.pointee
        guard fi.n_components > 1 else { return (0, 0) }
        return (Self.element(fi.w_sub, 1, guint.self), Self.element(fi.h_sub, 1, guint.self))
    }

    /// Where one colour component of a frame lies: its plane, the byte of a pixel it starts at, the bytes from one pixel to
    /// the next, its subsampling (log2) and the value that makes it black.
    public struct ComponentLayout: Sendable, Equatable {
        public var plane: Int, offset: Int, pixelStride: Int, horizontalSub: Int, verticalSub: Int
        /// Black: 16 for luma, 128 for chroma (limited range), 0 for R, G and B.
        public var black: UInt8
        /// Creates a layout.
        public init(plane: Int, offset: Int, pixelStride: Int, horizontalSub: Int, verticalSub: Int, black: UInt8) {
            self.plane = plane; self.offset = offset; self.pixelStride = pixelStride
            self.horizontalSub = horizontalSub; self.verticalSub = verticalSub; self.black = black
        }
    }

    /// The colour components (Y, U, V or R, G, B; alpha and padding left out) of an 8-bit format with whole bytes per
    /// sample (the planar, semi-planar and packed 4:2:0, 4:2:2, 4:4:4 and RGB formats); empty for any other (10-bit,
    /// tiled, palettised).
    public var colourComponents: [ComponentLayout] {
        let fi = raw.finfo.pointee
        let n = Int(fi.n_components)
        guard n >= 1, n <= 4, fi.flags.rawValue & (GST_VIDEO_FORMAT_FLAG_PALETTE.rawValue | GST_VIDEO_FORMAT_FLAG_TILED.rawValue) == 0
        else { return [] }
        let yuv = fi.flags.rawValue & GST_VIDEO_FORMAT_FLAG_YUV.rawValue != 0
        let rgb = fi.flags.rawValue & GST_VIDEO_FORMAT_FLAG_RGB.rawValue != 0
        guard yuv || rgb else { return [] }
        let layouts = (0..<min(n, 3)).compactMap { c -> ComponentLayout? in
            let depth = Self.element(fi.depth, c, guint.self), shift = Self.element(fi.shift, c, guint.self)
            let pstride = Self.element(fi.pixel_stride, c, gint.self)
            let plane = Self.element(fi.plane, c, guint.self), offset = Self.element(fi.poffset, c, guint.self)
            let ws = Self.element(fi.w_sub, c, guint.self), hs = Self.element(fi.h_sub, c, guint.self)
            guard depth == 8, shift == 0, pstride >= 1, offset < pstride else { return nil }
            return ComponentLayout(
                plane: plane, offset: offset, pixelStride: pstride, horizontalSub: ws, verticalSub: hs, black: rgb ? 0 : (c == 0 ? 16 : 128))
        }
        return layouts.count == min(n, 3) ? layouts : []
    }

    /// Element `i` of one of GstVideoFormatInfo's per-component C arrays (imported as tuples of `E`).
    private static func element<T, E: BinaryInteger>(_ tuple: T, _ i: Int, _ type: E.Type) -> Int {
        withUnsafeBytes(of: tuple) { Int($0.load(fromByteOffset: i * MemoryLayout<E>.stride, as: E.self)) }
    }

    /// These caps (gst_video_info_to_caps).
    public var caps: Caps? {
        var copy = raw
        return gst_video_info_to_caps(&copy).map { Caps(owning: $0) }
    }
}

extension Buffer {
    /// Copies the custom meta `name` of `other` onto this buffer (nothing when `other` has none).
    public func copyCustomMeta(_ name: String, from other: Buffer) {
        guard let text = other.customMetaText(name), let s = MessageStructure(parsing: text) else { return }
        setCustomMeta(s)
    }
}

extension VideoFrame {
    /// Bytes of plane 0 at a `columns` x `rows` grid of points (cell centres): a cheap signature of the picture
    /// (luma on YUV formats) for telling a scene change; empty when the frame cannot be mapped.
    public func planeSamples(columns: Int, rows: Int) -> [UInt8] {
        var frame = GstVideoFrame()
        var info = self.info.raw
        guard columns > 0, rows > 0, gst_video_frame_map(&frame, &info, buffer.raw, GST_MAP_READ) != 0 else { return [] }
        defer { gst_video_frame_unmap(&frame) }
        let stride = Int(vf_video_frame_stride(&frame, 0))
        let height = Int(vf_video_frame_comp_height(&frame, 0))
        let rowBytes = min(stride, Int(vf_video_frame_comp_width(&frame, 0)) * Int(vf_video_frame_comp_pstride(&frame, 0)))
        guard let base = vf_video_frame_plane(&frame, 0), rowBytes > 0, height > 0 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: base, count: stride * height)
        var out = [UInt8]()
        out.reserveCapacity(columns * rows)
        for r in 0..<rows {
            let y = (2 * r + 1) * height / (2 * rows)
            for c in 0..<columns { out.append(bytes[y * stride + (2 * c + 1) * rowBytes / (2 * columns)]) }
        }
        return out
    }

    /// Plane 0's luma (component 0: luma on YUV formats) area-averaged into a `width` x `height` grid, row by row:
    /// each value the rounded mean of a sub-grid of its cell, stepped so a cell gives at most 4 x 4 samples (1920x1080
    /// into 160x90: every third pixel of every third row of each 12x12 cell), centred in the cell. Small luma for
    /// motion estimation at a fixed cost per frame (~0.16 ms at 1920x1080 into 160x90). Empty when the frame cannot be
    /// mapped or its first component is not 8 bits.
    public func planeThumbnail(width: Int, height: Int) -> [UInt8] {
        let fi = self.info.raw.finfo.pointee
        var frame = GstVideoFrame()
        var info = self.info.raw
        guard width > 0, height > 0, fi.depth.0 == 8, fi.pixel_stride.0 > 0,
            gst_video_frame_map(&frame, &info, buffer.raw, GST_MAP_READ) != 0
        else { return [] }
        defer { gst_video_frame_unmap(&frame) }
        let plane = fi.plane.0, pstride = Int(fi.pixel_stride.0), stride = Int(vf_video_frame_stride(&frame, plane))
        let cw = Int(vf_video_frame_comp_width(&frame, 0)), ch = Int(vf_video_frame_comp_height(&frame, 0))
        guard let base = vf_video_frame_plane(&frame, plane), cw > 0, ch > 0 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: base + Int(fi.poffset.0), count: (ch - 1) * stride + (cw - 1) * pstride + 1)
        // The sample positions of each output column (cell) and row, as byte offsets.
        func taps(_ cells: Int, _ size: Int, _ unit: Int) -> [[Int]] {
            (0..<cells).map { i in
                let start = i * size / cells, length = max(1, (i + 1) * size / cells - start)
                let step = (length + 3) / 4, count = (length + step - 1) / step
                let first = min(size - 1, start + (length - 1 - (count - 1) * step) / 2)
                return (0..<count).map { min(size - 1, first + $0 * step) * unit }
            }
        }
        let columns = taps(width, cw, pstride), rows = taps(height, ch, stride)
        var out = [UInt8]()
        out.reserveCapacity(width * height)
        for r in rows {
            for c in columns {
                var sum = 0
                for y in r { for x in c { sum += Int(bytes[y + x]) } }
                let n = r.count * c.count
                out.append(UInt8((sum + n / 2) / n))
            }
        }
        return out
    }
}
