import Foundation
import TestTags
import Testing

/// vfgrid (and vfpassthrough) in stock gst-launch-1.0: the same pixels as the stage in the host
/// (GridStageTests' assertions on a 1280x720 black frame), written raw by filesink and read back.
@Suite(.serialized, .tags(.process), .tier) struct GridElementTests {
    static let (w, h) = (1280, 720)
    static let thirds = [426, 853]

    /// One black frame through `element` in `format`, as raw bytes.
    private func frame(_ format: String, _ element: String) throws -> [UInt8] {
        let out = PluginTools.tempDir().appendingPathComponent("frame.raw")
        let r = try PluginTools.launch(
            "videotestsrc num-buffers=1 pattern=black ! video/x-raw,format=\(format),width=\(Self.w),height=\(Self.h) ! \(element) ! filesink location=\(out.path)"
        )
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        return [UInt8](try Data(contentsOf: out))
    }

    @Test func thirdsBrightenTheThirdColumnsOfI420() throws {
        let f = try frame("I420", "vfgrid")
        #expect(f.count == Self.w * Self.h * 3 / 2)
        let column = { (x: Int) in (0..<Self.h).map { f[$0 * Self.w + x] } }
        // White at 75% over black luma 16: 16 + 0.75 * 219 ≈ 180.
        for x in Self.thirds {
            #expect(column(x).allSatisfy { (170...195).contains($0) }, "column \(x): \(Set(column(x)).sorted())")
        }
        let centre = column(640)
        #expect(centre.filter { $0 == 16 }.count >= Self.h - 4)
        #expect(centre.indices.filter { centre[$0] != 16 }.allSatisfy { abs($0 - 240) <= 1 || abs($0 - 480) <= 1 })
        let row = (0..<Self.w).filter { f[100 * Self.w + $0] > 16 }
        #expect(row.contains(426) && row.contains(853))
        #expect(row.allSatisfy { x in Self.thirds.contains { abs($0 - x) <= 1 } }, "\(row)")
        // Chroma stays neutral: the grid is grey (U plane after the luma).
        let u = Self.w * Self.h, half = Self.w / 2
        let chroma: [UInt8] = (0..<Self.h / 2).map { (y: Int) -> UInt8 in f[u + y * half + 213] }
        #expect(chroma.allSatisfy { (126...130).contains($0) }, "\(Set(chroma).sorted())")
    }

    @Test func thirdsBrightenTheThirdColumnsOfRGBA() throws {
        let f = try frame("RGBA", "vfgrid")
        #expect(f.count == Self.w * Self.h * 4)
        for x in Self.thirds {
            for channel in 0..<3 {
                let column = (0..<Self.h).map { f[($0 * Self.w + x) * 4 + channel] }
                #expect(column.allSatisfy { (0xbe...0xc2).contains($0) }, "column \(x) channel \(channel): \(Set(column).sorted())")
            }
        }
        let centre = (0..<Self.h).map { f[($0 * Self.w + 640) * 4] }
        #expect(centre.indices.filter { centre[$0] != 0 }.allSatisfy { abs($0 - 240) <= 1 || abs($0 - 480) <= 1 })
        #expect(centre.filter { $0 == 0 }.count >= Self.h - 4)
    }

    /// Properties set on the command line reach the stage: golden lines move the columns (GridStageTests).
    @Test func linesPropertySetByGstLaunchMovesTheColumns() throws {
        let f = try frame("I420", "vfgrid lines=golden")
        let row = (0..<Self.w).filter { f[100 * Self.w + $0] > 16 }
        #expect(row.contains(488) && row.contains(791), "\(row)")
        #expect(row.allSatisfy { x in [488, 791].contains { abs($0 - x) <= 1 } }, "\(row)")
    }

    /// A bad value is refused naming the element, property, token and what was expected; the default stays.
    @Test func aBadValueIsRefusedNamingTheProperty() throws {
        let out = PluginTools.tempDir().appendingPathComponent("frame.raw")
        let r = try PluginTools.launch(
            "videotestsrc num-buffers=1 pattern=black ! video/x-raw,format=I420,width=320,height=240 ! vfgrid name=g color=notacolour ! filesink location=\(out.path)"
        )
        #expect(r.err.contains("g: bad value 'notacolour' for property 'color': expected color #rrggbb"), "\(r.err)")
        #expect(r.code == 0)
        let f = [UInt8](try Data(contentsOf: out))
        #expect(f.count == 320 * 240 * 3 / 2 && f[100 * 320 + 106] > 170)
    }

    /// vfpassthrough hands frames on byte for byte.
    @Test func passthroughLeavesEveryByte() throws {
        let dir = PluginTools.tempDir()
        let a = dir.appendingPathComponent("a.raw"), b = dir.appendingPathComponent("b.raw")
        let r = try PluginTools.launch(
            "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=I420,width=320,height=240 ! tee name=t ! queue ! filesink location=\(a.path) t. ! queue ! vfpassthrough ! filesink location=\(b.path)"
        )
        try #require(r.code == 0, "\(r.err)")
        let x = try Data(contentsOf: a), y = try Data(contentsOf: b)
        #expect(x.count == 320 * 240 * 3 / 2 * 3)
        #expect(x == y)
    }

    /// A Python application changes `lines` while playing (GST_PARAM_MUTABLE_PLAYING, gst_util_set_object_arg as
    /// gst-launch would): the stage's `update` moves the columns on the next frames, and the property reads back.
    /// compose's `analysis-width` (before start only) is refused while playing, by name, and keeps its value.
    @Test(.tags(.live)) func linesChangedWhilePlayingMoveTheColumns() throws {
        let script = PluginTools.tempDir().appendingPathComponent("live.py")
        try Self.liveScript.write(to: script, atomically: true, encoding: .utf8)
        let r = try PluginTools.run("/usr/bin/python3", [script.path], timeout: 20)
        try #require(r.code == 0, "python3 failed (python3-gi installed?): \(r.err)\n\(PluginTools.loadDiagnosis())")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.out)")
        // 320 px: thirds at 106 and 213, golden lines at 122 and 197.
        #expect(o["first"] as? [Int] == [106, 213], "\(r.out)")
        #expect(o["last"] as? [Int] == [122, 197], "\(r.out)")
        #expect(o["state"] as? String == "playing" && o["lines"] as? String == "golden", "\(r.out)")
        #expect(o["analysis-width"] as? Int == 320, "\(r.out)")
        #expect(r.err.contains("c: property 'analysis-width' can only be set before the element starts"), "\(r.err)")
    }

    static let liveScript = """
import json
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch("videotestsrc pattern=black num-buffers=20 ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! vfcompose name=c sync=true warmup=0 overlay=false ! vfgrid name=g ! appsink name=s sync=false max-buffers=30")
g, s, c = p.get_by_name("g"), p.get_by_name("s"), p.get_by_name("c")
p.set_state(Gst.State.PLAYING)
def bright(sample):
    buf = sample.get_buffer()
    ok, m = buf.map(Gst.MapFlags.READ)
    row = [x for x in range(320) if m.data[100 * 320 + x] > 16]
    buf.unmap(m)
    return row
first = bright(s.emit("pull-sample"))
Gst.util_set_object_arg(g, "lines", "golden")
Gst.util_set_object_arg(c, "analysis-width", "100")
state = p.get_state(0)[1].value_nick
rows = []
while True:
    sample = s.emit("pull-sample")
    if sample is None:
        break
    rows.append(bright(sample))
p.set_state(Gst.State.NULL)
print(json.dumps({"first": first, "last": rows[-1], "state": state, "lines": g.get_property("lines").first_value_nick, "analysis-width": c.get_property("analysis-width")}))
"""
}
