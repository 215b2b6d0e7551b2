import CGStreamer
import Foundation

/// Scales and converts frames to small packed RGB with GStreamer's own GstVideoConverter
/// (any raw input format, one pass), for analysis at a low resolution.
public final class VideoScaler: @unchecked Sendable {
    private let converter: OpaquePointer
    private var outInfo: GstVideoInfo
    private let scratch: UnsafeMutablePointer<GstBuffer>
    /// Input layout this scaler was built for.
    public let input: VideoInfo
    /// Output width.
    public let width: Int
    /// Output height.
    public let height: Int

    /// Bytes per output pixel: 3 (RGB) or 1 (GRAY8).
    public let channels: Int

    /// Output layout of `reduced(_:)` (this scaler's format and size).
    public let output: VideoInfo
    private let outputCaps: Caps?

    /// Builds a converter from `input` to packed RGB (or, with `gray`, 8-bit luma only) of `width` x `height`.
    public convenience init(input: VideoInfo, width: Int, height: Int, gray: Bool = false) throws(GStreamerError) {
        try self.init(
            input: input, width: width, height: height, format: gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB, nearest: false)
    }

    /// Builds a nearest-neighbour scaler to packed RGB, for `reduced(_:)`: a cheap small copy of a frame
    /// (taken on the video thread, so the frame itself is not held) that a linear `VideoScaler` then
    /// turns into the analysis image on another thread. (Keeping a 4:2:0 input's format is not cheaper:
    /// the converter then resamples chroma at the input size, ~5 ms at 1080p.)
    public convenience init(reducing input: VideoInfo, width: Int, height: Int) throws(GStreamerError) {
        try self.init(input: input, width: width, height: height, format: GST_VIDEO_FORMAT_RGB, nearest: true)
    }

    private init(input: VideoInfo, width: Int, height: Int, format: GstVideoFormat, nearest: Bool) throws(GStreamerError) {
        GStreamer.initialize()
        self.input = input; self.width = width; self.height = height
        let gray = format == GST_VIDEO_FORMAT_GRAY8
        channels = gray ? 1 : 3
        var info = GstVideoInfo()
        gst_video_info_set_format(&info, format, guint(width), guint(height))
        // GstVideoConverter never converts rates or interlacing: those must match the input.
        info.fps_n = input.raw.fps_n; info.fps_d = input.raw.fps_d
        info.interlace_mode = input.raw.interlace_mode
        var inInfo = input.raw
        info.par_n = input.raw.par_n; info.par_d = input.raw.par_d
        outInfo = info
        output = VideoInfo(info)
        outputCaps = gst_video_info_to_caps(&info).map { c in
            defer { gst_caps_unref(c) }
            return Caps(retaining: c)
        }
        // Linear resampling: plenty for analysis, several times cheaper than the default cubic.
        let config = vf_video_converter_fast_config(nearest || ProcessInfo.processInfo.environment["VF_SCALER_NEAREST"] != nil ? 1 : 0)
        guard let c = gst_video_converter_new(&inInfo, &outInfo, config) else {
            throw GStreamerError(
                .library,
                "GStreamer cannot convert \(input.format) \(input.width)x\(input.height) to \(String(cString: gst_video_format_to_string(format))) \(width)x\(height)"
            )
        }
        converter = c
        scratch = gst_buffer_new_allocate(nil, gsize(outInfo.size), nil)!
    }
    deinit {
        gst_video_converter_free(converter)
        gst_buffer_unref(scratch)
    }

    /// What an analysis thread works from, for frames of `info`: a nearest-neighbour RGB copy at most `width` wide
    /// (the frame's shape kept), taken on the video thread (~1 ms per 1080p frame; linear resampling costs ~4 ms there,
    /// a copy in the input's 4:2:0 format ~5 ms), and the linear scaler that packs such a copy into the analysis image on
    /// the analysis thread.
    public static func analysisCopy(of info: VideoInfo, width: Int) throws(GStreamerError) -> (reducer: VideoScaler, scaler: VideoScaler) {
        let w = min(width, info.width)
        let h = max(2, Int((Double(w) * Double(info.height) / Double(info.width)).rounded()))
        let reducer = try VideoScaler(reducing: info, width: w, height: h)
        return (reducer, try VideoScaler(input: reducer.output, width: w, height: h))
    }

    /// A new frame of `output`'s layout (own buffer, same timestamps) scaled from `frame`.
    public func reduced(_ frame: VideoFrame) throws(GStreamerError) -> VideoFrame {
        guard let caps = outputCaps, let buffer = gst_buffer_new_allocate(nil, gsize(outInfo.size), nil) else {
            throw GStreamerError(.library, "could not allocate a \(width)x\(height) frame")
        }
        let out = Buffer(owning: buffer)
        var src = GstVideoFrame(), dst = GstVideoFrame()
        var inInfo = frame.info.raw
        guard gst_video_frame_map(&src, &inInfo, frame.buffer.raw, GST_MAP_READ) != 0 else {
            throw GStreamerError(.stream, "could not map a \(frame.info.format) frame for reading")
        }
        defer { gst_video_frame_unmap(&src) }
        guard gst_video_frame_map(&dst, &outInfo, out.raw, GST_MAP_WRITE) != 0 else {
            throw GStreamerError(.stream, "could not map a reduced frame")
        }
        gst_video_converter_frame(converter, &src, &dst)
        gst_video_frame_unmap(&dst)
        out.pts = frame.pts
        return VideoFrame(buffer: out, info: output, caps: caps, segment: frame.segment, index: frame.index)
    }

    /// Converts one frame; returns `width * height * channels` bytes (RGB or luma, rows packed, no padding).
    public func rgb(of frame: VideoFrame) throws(GStreamerError) -> [UInt8] {
        var src = GstVideoFrame(), dst = GstVideoFrame()
        var inInfo = frame.info.raw
        guard gst_video_frame_map(&src, &inInfo, frame.buffer.raw, GST_MAP_READ) != 0 else {
            throw GStreamerError(.stream, "could not map a \(frame.info.format) frame for reading")
        }
        defer { gst_video_frame_unmap(&src) }
        guard gst_video_frame_map(&dst, &outInfo, scratch, GST_MAP_WRITE) != 0 else {
            throw GStreamerError(.stream, "could not map the scaler's output")
        }
        defer { gst_video_frame_unmap(&dst) }
        gst_video_converter_frame(converter, &src, &dst)
        let stride = Int(vf_video_frame_stride(&dst, 0))
        let base = vf_video_frame_plane(&dst, 0)!
        let row = width * channels
        var out = [UInt8](repeating: 0, count: row * height)
        out.withUnsafeMutableBytes { o in
            for y in 0..<height {
                (o.baseAddress! + y * row).copyMemory(from: base + y * stride, byteCount: row)
            }
        }
        return out
    }
}
