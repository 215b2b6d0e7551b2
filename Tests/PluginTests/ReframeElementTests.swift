import Foundation
import TestTags
import Testing

/// vfreframe, the element of a resizing stage: its src caps carry the stage's output size (transform_caps asks the
/// stage), a change of input size renegotiates downstream, the frames leaving are the stage's own buffers (no video
/// meta of the input size) — all through stock gst-launch-1.0, gst-inspect-1.0, ffprobe and python3 (PyGObject).
@Suite(.serialized, .tags(.process), .tier) struct ReframeElementTests {
    /// The file gst-launch-1.0 wrote is 360x640 with every frame: what `width=` and `height=` ask, from 1280x720.
    @Test func requestedSizeReachesTheFile() throws {
        let out = PluginTools.tempDir().appendingPathComponent("reframed.mp4").path
        let r = try PluginTools.launch(
            "videotestsrc num-buffers=30 ! video/x-raw,width=1280,height=720 ! vfreframe aspect=9:16 width=360 height=640 ! videoconvert ! x264enc ! mp4mux ! filesink location=\(out)",
            timeout: 60)
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        let probe = try PluginTools.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", out])
        #expect(probe.out.trimmingCharacters(in: .whitespacesAndNewlines) == "360,640,30", "\(probe.out) \(probe.err)")
    }

    /// A size downstream that is not the stage's is refused at negotiation (the src caps are the stage's size only).
    @Test func anotherSizeDownstreamIsNotNegotiated() throws {
        let r = try PluginTools.launch(
            "videotestsrc num-buffers=3 ! video/x-raw,width=1280,height=720 ! vfreframe analysis=upstream width=360 height=640 ! video/x-raw,width=320 ! fakesink"
        )
        #expect(r.code != 0)
        #expect(r.err.contains("not-negotiated") || r.err.contains("not negotiated"), "\(r.err)")
    }

    /// Both always pads take any size in the stage's formats (no width or height in the templates).
    @Test func padTemplatesOfferTheStagesFormatsAtAnySize() throws {
        let r = try PluginTools.inspect("vfreframe")
        try #require(r.code == 0, "\(r.err)\n\(PluginTools.loadDiagnosis())")
        let templates = try #require(r.out.components(separatedBy: "Pad Templates:").last?.components(separatedBy: "Element has").first)
        for pad in ["SINK template: 'sink'", "SRC template: 'src'"] {
            let section = try #require(templates.components(separatedBy: pad).last, "\(templates)")
            let caps = section.components(separatedBy: "template:").first ?? section
            #expect(caps.contains("Availability: Always"))
            #expect(caps.contains("video/x-raw") && caps.contains("(string)I420") && caps.contains("(string)GRAY8"), "\(caps)")
            #expect(!caps.contains("width") && !caps.contains("height"), "\(caps)")
        }
        for property in ["aspect", "width", "height", "rule", "analysis"] { #expect(r.out.contains("  \(property) "), "\(property)") }
    }

    /// Three bands (red, green, blue thirds) framed 1:1 with nobody in view: the default window is centred, so the
    /// band edges land where the input's are minus the window's left edge: 1280x720 (window 280...999) gives 720x720
    /// with edges at 146 and 573; then the input changes to 640x480 (window 80...559): new caps downstream, 480x480,
    /// edges at 133 and 346. No video meta of the input's size travels on (the input buffers carry one).
    @Test func inputSizeChangeRenegotiatesAndKeepsTheCentredColumns() throws {
        let frames = try Self.run("vfreframe analysis=upstream aspect=1:1", sizes: [(1280, 720), (640, 480)])
        try #require(frames.count == 6, "\(frames)")
        for (i, f) in frames.enumerated() {
            let big = i < 3
            #expect(f["width"] as? Int == (big ? 720 : 480) && f["height"] as? Int == (big ? 720 : 480), "\(f)")
            #expect(f["size"] as? Int == (big ? 720 * 720 * 4 : 480 * 480 * 4), "\(f)")
            #expect(f["edges"] as? [Int] == (big ? [146, 573] : [133, 346]), "\(f)")
            #expect(f["bands"] as? [[Int]] == [[255, 0, 0], [0, 255, 0], [0, 0, 255]], "\(f)")
            #expect(f["meta"] is NSNull, "\(f)")
        }
    }

    /// width and height fixed (9:16 at 360x640) from 1280x720: the centred 405x720 window lies inside the green band.
    @Test func fixedSizeFramesTheCentreBand() throws {
        let frames = try Self.run("vfreframe analysis=upstream aspect=9:16 width=360 height=640", sizes: [(1280, 720)])
        try #require(frames.count == 3, "\(frames)")
        for f in frames {
            #expect(f["width"] as? Int == 360 && f["height"] as? Int == 640, "\(f)")
            #expect(f["edges"] as? [Int] == [], "\(f)")
            #expect(f["bands"] as? [[Int]] == [[0, 255, 0], [0, 255, 0], [0, 255, 0]], "\(f)")
        }
    }

    /// Runs `element` between an appsrc pushing three RGBA band frames per size in `sizes` and an appsink; one JSON
    /// object per frame out: caps size, buffer size, row 100's colour edges, the colours at a sixth, half and five
    /// sixths of the width, the video meta's size (null when none).
    static func run(_ element: String, sizes: [(Int, Int)]) throws -> [[String: Any]] {
        let script = PluginTools.tempDir().appendingPathComponent("reframe.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let args = [script.path, element] + sizes.map { "\($0.0)x\($0.1)" }
        let r = try PluginTools.run("/usr/bin/python3", args, timeout: 60)
        try #require(r.code == 0, "python3 failed (python3-gi installed?): \(r.err)\n\(PluginTools.loadDiagnosis())")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]], "\(r.out)")
    }

    static let script = """
import json, sys
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo
Gst.init(None)
p = Gst.parse_launch("appsrc name=a format=time ! " + sys.argv[1] + " ! appsink name=s sync=false max-buffers=100")
a, s = p.get_by_name("a"), p.get_by_name("s")
p.set_state(Gst.State.PLAYING)
def bands(w, h):
    row = bytearray()
    for x in range(w):
        row += bytes([255, 0, 0, 255] if x < w // 3 else [0, 255, 0, 255] if x < 2 * w // 3 else [0, 0, 255, 255])
    return bytes(row) * h
t = 0
for size in sys.argv[2:]:
    w, h = (int(v) for v in size.split("x"))
    a.set_property("caps", Gst.Caps.from_string(f"video/x-raw,format=RGBA,width={w},height={h},framerate=30/1"))
    data = bands(w, h)
    for i in range(3):
        b = Gst.Buffer.new_wrapped(data)
        GstVideo.buffer_add_video_meta(b, GstVideo.VideoFrameFlags.NONE, GstVideo.VideoFormat.RGBA, w, h)
        b.pts = t * Gst.SECOND // 30
        b.duration = Gst.SECOND // 30
        t += 1
        a.emit("push-buffer", b)
a.emit("end-of-stream")
out = []
while True:
    sample = s.emit("pull-sample")
    if sample is None:
        break
    st = sample.get_caps().get_structure(0)
    w, h = st.get_value("width"), st.get_value("height")
    buf = sample.get_buffer()
    meta = GstVideo.buffer_get_video_meta(buf)
    ok, m = buf.map(Gst.MapFlags.READ)
    row = [list(m.data[(100 * w + x) * 4:(100 * w + x) * 4 + 3]) for x in range(w)]
    buf.unmap(m)
    out.append({"width": w, "height": h, "size": buf.get_size(),
                "edges": [x for x in range(1, w) if row[x] != row[x - 1]],
                "bands": [row[w // 6], row[w // 2], row[5 * w // 6]],
                "meta": None if meta is None else [meta.width, meta.height]})
p.set_state(Gst.State.NULL)
print(json.dumps(out))
"""
}
