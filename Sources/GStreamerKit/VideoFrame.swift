import CGStreamer

/// One raw video frame handed to a stage: the buffer, its layout and its timestamps.
///
/// Pixels are reached only through scoped accessors so no pointer outlives a mapping.
public final class VideoFrame: @unchecked Sendable {
    /// The buffer (shared with nobody while a stage runs, so writes do not copy).
    public let buffer: Buffer
    /// The frame layout.
    public let info: VideoInfo
    /// The caps the frame travels with.
    public let caps: Caps
    /// The segment the frame's timestamps belong to.
    public let segment: Segment
    /// Counting from 0, the frame's index in its stream.
    public let index: Int

    /// Wraps a buffer with its layout.
    public init(buffer: Buffer, info: VideoInfo, caps: Caps, segment: Segment, index: Int) {
        self.buffer = buffer; self.info = info; self.caps = caps; self.segment = segment; self.index = index
    }

    /// Overlays stages asked for; the host blends them after the last stage of a group, so every
    /// stage (and every snapshot) sees clean pixels.
    public private(set) var overlays: [OverlayComposition] = []

    /// Queues an overlay to be blended once all stages of the group have seen the clean frame.
    public func addOverlay(_ composition: OverlayComposition) { overlays.append(composition) }

    /// Which edge a text row is stacked against.
    public enum TextEdge: Sendable { case top, bottom }

    /// Pixels already taken by text rows at the top and at the bottom edge. The stages of a fused group
    /// process the same frame one after another, so the frame is the one layout owner of their text:
    /// each row is stacked after the rows reserved before it, and no two stages' texts overlap.
    public private(set) var textRows: (top: Int, bottom: Int) = (0, 0)

    /// The custom meta that carries the rows taken so far to stages in later groups (`compose ! queue !
    /// capture`): fields `top`, `bottom` (pixels) and `height` (the frame height they were measured at,
    /// so a `videoscale` in between scales them).
    public static let textRowsMeta = "ViewfinderTextRows"
    private var inheritedRows = false

    /// Starts from the rows an earlier group left in the buffer's meta (once, before the first row).
    private func inheritTextRows() {
        guard !inheritedRows else { return }
        inheritedRows = true
        guard let text = buffer.customMetaText(Self.textRowsMeta), let m = MessageStructure(parsing: text),
            let top = m.integer("top").map(Int.init), let bottom = m.integer("bottom").map(Int.init),
            let h = m.integer("height").map(Int.init), h > 0
        else { return }
        let scale = Double(info.height) / Double(h)
        textRows = (Int((Double(top) * scale).rounded(.up)), Int((Double(bottom) * scale).rounded(.up)))
    }

    /// Leaves the rows taken on this frame in its buffer's meta for the stages of later groups.
    public func publishTextRows() {
        inheritTextRows()
        guard textRows.top > 0 || textRows.bottom > 0 else { return }
        buffer.setCustomMeta(
            MessageStructure(
                Self.textRowsMeta,
                [
                    ("top", .int(Int32(clamping: textRows.top))),
                    ("bottom", .int(Int32(clamping: textRows.bottom))), ("height", .int(Int32(clamping: info.height))),
                ]))
    }

    /// The text drawn on this frame so far (x, y, width, height), as the stages placed it.
    public private(set) var textBoxes: [(x: Int, y: Int, width: Int, height: Int)] = []

    /// Reserves a row `height` pixels high at `edge`, `gap` pixels from the previous row (or the edge),
    /// and returns the row's top y; the text's box (`x`, `width`: the whole row by default) is noted in
    /// `textBoxes`. Rows that no longer fit are clamped inside the frame.
    public func reserveTextRow(height: Int, edge: TextEdge = .bottom, gap: Int = 0, x: Int = 0, width: Int? = nil) -> Int {
        inheritTextRows()
        let h = max(0, min(height, info.height)), g = max(0, gap)
        let y: Int
        switch edge {
        case .top:
            y = max(0, min(textRows.top + g, info.height - h))
            textRows.top += g + h
        case .bottom:
            y = max(0, min(info.height - textRows.bottom - g - h, info.height - h))
            textRows.bottom += g + h
        }
        noteText(x: x, y: y, width: width ?? info.width - x, height: h)
        return y
    }

    /// Notes text placed outside the rows (a centred countdown) in `textBoxes`.
    public func noteText(x: Int, y: Int, width: Int, height: Int) { textBoxes.append((x, y, width, height)) }

    /// Blends and clears the queued overlays.
    public func blendOverlays() throws(GStreamerError) {
        for o in overlays { try blend(o) }
        overlays.removeAll()
    }

    /// Presentation timestamp in ns.
    public var pts: ClockTime { buffer.pts }
    /// Duration in ns.
    public var duration: ClockTime { buffer.duration }
    /// Running time of the frame (the clock-aligned time used for sync), when known.
    public var runningTime: UInt64? { buffer.pts.flatMap { segment.runningTime($0) } }

    /// Blends an overlay into the pixels in place with GStreamer's own blender (any raw format).
    public func blend(_ composition: OverlayComposition) throws(GStreamerError) {
        buffer.makeWritable()
        var frame = GstVideoFrame()
        var info = self.info.raw
        guard gst_video_frame_map(&frame, &info, buffer.raw, GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)) != 0 else {
            throw GStreamerError(.stream, "could not map a \(self.info.format) \(self.info.width)x\(self.info.height) frame for writing")
        }
        defer { gst_video_frame_unmap(&frame) }
        // gst_video_blend converts the whole destination row for every row of a rectangle. Handing it a
        // view of the frame cut to each rectangle (same memory, offset plane pointers, aligned to the
        // chroma subsampling) makes it convert only the rectangle's width: the same blender, much less work.
        if let pieces = composition.pieces, OverlayComposition.canBlendInViews(frame.info) {
            for p in pieces {
                var view = frame
                guard OverlayComposition.cropView(&view, x: p.ox, y: p.oy, width: p.ow, height: p.oh) else { continue }
                guard gst_video_overlay_composition_blend(p.composition, &view) != 0 else {
                    throw GStreamerError(.stream, "GStreamer could not blend an overlay into \(self.info.format)")
                }
            }
            return
        }
        guard gst_video_overlay_composition_blend(composition.raw, &frame) != 0 else {
            throw GStreamerError(.stream, "GStreamer could not blend an overlay into \(self.info.format)")
        }
    }

    /// Lets `body` change one plane in place through a bounds-checked span (no pointer escapes):
    /// the buffer is made writable first (copy-on-write when shared). `stride` is bytes per row.
    public func withMutablePlane<E: Error>(_ plane: Int = 0, _ body: (inout MutableSpan<UInt8>, _ stride: Int) throws(E) -> Void) throws(E)
        -> Bool
    {
        buffer.makeWritable()
        var frame = GstVideoFrame()
        var info = self.info.raw
        guard gst_video_frame_map(&frame, &info, buffer.raw, GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)) != 0 else {
            return false
        }
        defer { gst_video_frame_unmap(&frame) }
        let stride = Int(vf_video_frame_stride(&frame, guint(plane)))
        let rows = Int(vf_video_frame_comp_height(&frame, guint(plane)))
        guard let base = vf_video_frame_plane(&frame, guint(plane)) else { return false }
        var span = MutableSpan<UInt8>(_unsafeStart: base, count: stride * rows)
        try body(&span, stride)
        return true
    }

    /// Copies one plane's rows (full strides, padding included) into an array, with the row length and count.
    public func planeBytes(plane: Int) throws(GStreamerError) -> (bytes: [UInt8], rowBytes: Int, rows: Int) {
        var frame = GstVideoFrame()
        var info = self.info.raw
        guard gst_video_frame_map(&frame, &info, buffer.raw, GST_MAP_READ) != 0 else {
            throw GStreamerError(.stream, "could not map frame for reading")
        }
        defer { gst_video_frame_unmap(&frame) }
        let stride = Int(vf_video_frame_stride(&frame, guint(plane)))
        let rows = Int(vf_video_frame_comp_height(&frame, guint(plane)))
        let base = vf_video_frame_plane(&frame, guint(plane))!
        var out = [UInt8](repeating: 0, count: stride * rows)
        out.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: stride * rows)) }
        return (out, stride, rows)
    }
}

/// An overlay (GstVideoOverlayComposition) made from premultiplied BGRA pixels.
///
/// Fully transparent areas are cut away into several small rectangles, so blending a thin grid
/// touches only the pixels under its lines, whatever the frame size.
public final class OverlayComposition: @unchecked Sendable {
    let raw: OpaquePointer
    /// How many rectangles the overlay was split into.
    public let rectangleCount: Int
    /// The number of pixels those rectangles cover.
    public let coveredPixels: Int

    /// One premultiplied BGRA image and where it goes in the frame.
    public struct Layer: Sendable {
        /// Pixels, `stride` bytes per row.
        public var pixels: [UInt8]
        /// Width.
        public var width: Int
        /// Height.
        public var height: Int
        /// Bytes per row.
        public var stride: Int
        /// Left edge in the frame.
        public var x: Int
        /// Top edge in the frame.
        public var y: Int
        /// Creates a layer.
        public init(pixels: [UInt8], width: Int, height: Int, stride: Int, x: Int, y: Int) {
            self.pixels = pixels; self.width = width; self.height = height; self.stride = stride; self.x = x; self.y = y
        }
    }

    /// Builds a composition from a BGRA image placed at (x, y) in the frame.
    public convenience init(bgra pixels: [UInt8], width: Int, height: Int, stride: Int, x: Int = 0, y: Int = 0) {
        self.init(layers: [Layer(pixels: pixels, width: width, height: height, stride: stride, x: x, y: y)])
    }

    /// One rectangle as its own composition, placed inside an aligned crop (ox, oy, ow, oh) of the frame.
    struct Piece { let composition: OpaquePointer; let ox: Int; let oy: Int; let ow: Int; let oh: Int }
    /// Per-rectangle compositions for blending into cropped views; nil when built for no frame size.
    let pieces: [Piece]?

    /// Blends every piece once into a scratch frame of `format`, so GStreamer converts (and caches on the
    /// rectangles) the pixels it needs for that format now — on the caller's thread — rather than on the
    /// first blend into a video frame.
    public func prepare(for format: String) {
        guard let pieces else { return }
        GStreamer.initialize()
        let f = gst_video_format_from_string(format)
        guard f != GST_VIDEO_FORMAT_UNKNOWN else { return }
        for p in pieces {
            var info = GstVideoInfo()
            guard gst_video_info_set_format(&info, f, guint(p.ow), guint(p.oh)) != 0,
                let buf = gst_buffer_new_allocate(nil, gsize(info.size), nil)
            else { continue }
            var frame = GstVideoFrame()
            if gst_video_frame_map(&frame, &info, buf, GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)) != 0 {
                _ = gst_video_overlay_composition_blend(p.composition, &frame)
                gst_video_frame_unmap(&frame)
            }
            gst_buffer_unref(buf)
        }
    }

    /// Crops are aligned to 4 pixels so every planar/packed subsampling we blend (4:2:0, 4:2:2, 4:1:1)
    /// starts on a whole chroma sample.
    static let cropAlignment = 4

    /// True for formats whose planes can be addressed pixel by pixel (not tiled or complex-packed).
    static func canBlendInViews(_ info: GstVideoInfo) -> Bool {
        let flags = info.finfo.pointee.flags.rawValue
        return flags & GST_VIDEO_FORMAT_FLAG_TILED.rawValue == 0 && flags & GST_VIDEO_FORMAT_FLAG_COMPLEX.rawValue == 0
    }

    /// Turns a mapped frame into a view of its (x, y, width, height) region: offset plane pointers,
    /// same strides. False when the region falls outside the frame.
    static func cropView(_ f: inout GstVideoFrame, x: Int, y: Int, width: Int, height: Int) -> Bool {
        let fw = Int(f.info.width), fh = Int(f.info.height)
        let w = min(width, fw - x), h = min(height, fh - y)
        guard x >= 0, y >= 0, w > 0, h > 0 else { return false }
        let finfo = f.info.finfo.pointee
        let nComp = Int(finfo.n_components), nPlanes = Int(finfo.n_planes)
        let planeOf = withUnsafeBytes(of: finfo.plane) { Array($0.bindMemory(to: guint.self)) }
        let wsub = withUnsafeBytes(of: finfo.w_sub) { Array($0.bindMemory(to: guint.self)) }
        let hsub = withUnsafeBytes(of: finfo.h_sub) { Array($0.bindMemory(to: guint.self)) }
        let pstride = withUnsafeBytes(of: finfo.pixel_stride) { Array($0.bindMemory(to: gint.self)) }
        let strides = withUnsafeBytes(of: f.info.stride) { Array($0.bindMemory(to: gint.self)) }
        var offsets = [Int](repeating: 0, count: 4)
        for p in 0..<nPlanes {
            guard let c = (0..<nComp).first(where: { Int(planeOf[$0]) == p }) else { continue }
            offsets[p] = (y >> Int(hsub[c])) * Int(strides[p]) + (x >> Int(wsub[c])) * Int(pstride[c])
        }
        withUnsafeMutableBytes(of: &f.data) { raw in
            let ptrs = raw.bindMemory(to: UnsafeMutableRawPointer?.self)
            for p in 0..<nPlanes { ptrs[p] = ptrs[p].map { $0 + offsets[p] } }
        }
        f.info.width = gint(w)
        f.info.height = gint(h)
        return true
    }

    /// Builds one composition from several positioned images (sprites), each cut to its content.
    public init(layers: [Layer]) {
        GStreamer.initialize()
        var comp: OpaquePointer? = nil
        var covered = 0
        var count = 0
        var pieces: [Piece] = []
        let a = OverlayComposition.cropAlignment
        for layer in layers {
            let (pixels, stride, x, y) = (layer.pixels, layer.stride, layer.x, layer.y)
            for r in OverlayComposition.contentRectangles(pixels, width: layer.width, height: layer.height, stride: stride) {
                var sub = [UInt8](repeating: 0, count: r.w * r.h * 4)
                for row in 0..<r.h {
                    let src = (r.y + row) * stride + r.x * 4
                    sub.replaceSubrange(row * r.w * 4..<(row + 1) * r.w * 4, with: pixels[src..<src + r.w * 4])
                }
                let buf = gst_buffer_new_allocate(nil, gsize(sub.count), nil)!
                _ = sub.withUnsafeBytes { gst_buffer_fill(buf, 0, $0.baseAddress, gsize($0.count)) }
                gst_buffer_add_video_meta(buf, GST_VIDEO_FRAME_FLAG_NONE, vf_overlay_rgb_format(), guint(r.w), guint(r.h))
                let rect = gst_video_overlay_rectangle_new_raw(
                    buf, gint(x + r.x), gint(y + r.y), guint(r.w), guint(r.h), GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA)!
                if let c = comp {
                    gst_video_overlay_composition_add_rectangle(c, rect)
                } else {
                    comp = gst_video_overlay_composition_new(rect)
                }
                gst_video_overlay_rectangle_unref(rect)
                // The same pixels placed inside an aligned crop, for blending into a cropped view.
                let rx = x + r.x, ry = y + r.y
                let ox = max(0, rx - rx % a), oy = max(0, ry - ry % a)
                let ow = (rx + r.w + a - 1) / a * a - ox, oh = (ry + r.h + a - 1) / a * a - oy
                // Both rectangles hold a reference to the same pixel buffer (rectangles never write to it).
                let prect = gst_video_overlay_rectangle_new_raw(
                    buf, gint(rx - ox), gint(ry - oy), guint(r.w), guint(r.h), GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA)!
                gst_buffer_unref(buf)
                pieces.append(Piece(composition: gst_video_overlay_composition_new(prect), ox: ox, oy: oy, ow: ow, oh: oh))
                gst_video_overlay_rectangle_unref(prect)
                covered += r.w * r.h
                count += 1
            }
        }
        raw = comp ?? gst_video_overlay_composition_new(nil)
        rectangleCount = count
        coveredPixels = covered
        self.pieces = pieces
    }
    deinit {
        gst_video_overlay_composition_unref(raw)
        for p in pieces ?? [] { gst_video_overlay_composition_unref(p.composition) }
    }

    /// Bands of at most 8 rows; in each band, column runs with content (gaps under 256 px merged),
    /// each trimmed to the rows where it has content; then runs that continue straight down from one
    /// band to the next are joined, so a vertical line is one tall rectangle (each rectangle costs a
    /// call into GStreamer's blender). Keeps the blended area near the drawn area.
    static func contentRectangles(_ p: [UInt8], width: Int, height: Int, stride: Int) -> [(x: Int, y: Int, w: Int, h: Int)] {
        var merged: [(x: Int, y: Int, w: Int, h: Int)] = []
        var open: [Int: Int] = [:]  // "x,w" of a rectangle reaching the current band's top -> index in merged
        for r in bandRectangles(p, width: width, height: height, stride: stride) {
            let key = r.x << 20 | r.w
            if let i = open[key], merged[i].y + merged[i].h == r.y {
                merged[i].h += r.h
            } else {
                open[key] = merged.count
                merged.append(r)
            }
        }
        return merged
    }

    static func bandRectangles(_ p: [UInt8], width: Int, height: Int, stride: Int) -> [(x: Int, y: Int, w: Int, h: Int)] {
        // GStreamer's blender (gst_video_blend) unpacks and packs the whole frame row for every row of
        // every rectangle, then blends only the rectangle's width: two runs sharing rows are cheaper as
        // one rectangle unless the gap between them is wide (measured here: ~2 us per 1080p row
        // against ~7 ns per blended pixel), hence runs closer than 256 px are joined.
        let band = 8, gap = 256
        var out: [(Int, Int, Int, Int)] = []
        var colHas = [Bool](repeating: false, count: width)
        p.withUnsafeBufferPointer { px in
            colHas.withUnsafeMutableBufferPointer { cols in
                var y0 = 0
                while y0 < height {
                    let y1 = min(height, y0 + band)
                    // Which columns and rows of this band hold any alpha.
                    for i in 0..<width { cols[i] = false }
                    var top = Int.max, bottom = -1
                    for y in y0..<y1 {
                        var rowHas = false
                        var a = y * stride + 3
                        for x in 0..<width {
                            if px[a] != 0 { cols[x] = true; rowHas = true }
                            a += 4
                        }
                        if rowHas { top = min(top, y); bottom = y }
                    }
                    if bottom >= 0 {
                        var x = 0
                        while x < width {
                            guard cols[x] else { x += 1; continue }
                            var end = x
                            var probe = x + 1
                            while probe < width && probe - end <= gap {
                                if cols[probe] { end = probe }
                                probe += 1
                            }
                            var runTop = Int.max, runBottom = -1
                            for y in top...bottom {
                                var a = y * stride + x * 4 + 3
                                for _ in x...end {
                                    if px[a] != 0 { runTop = min(runTop, y); runBottom = y; break }
                                    a += 4
                                }
                            }
                            out.append((x, runTop, end - x + 1, runBottom - runTop + 1))
                            x = end + 1
                        }
                    }
                    y0 = y1
                }
            }
        }
        return out
    }
}
