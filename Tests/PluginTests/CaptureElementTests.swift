import Foundation
import TestTags
import Testing

/// vfcapture in stock gst-launch-1.0: with nothing linked to its outputs the element runs capture's default
/// branches itself (JPEG with EXIF, thumbnail, records.json, as the host's `capture` writes them); a
/// requested `snapshot` pad feeds the application's own branch.
@Suite(.serialized, .tags(.live, .process), .tier) struct CaptureElementTests {
    static func isCompleteJPEG(_ path: String) -> Bool {
        guard let d = FileManager.default.contents(atPath: path), d.count > 4 else { return false }
        return d[0] == 0xFF && d[1] == 0xD8 && d[d.count - 2] == 0xFF && d[d.count - 1] == 0xD9
    }

    static func records(_ dir: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: dir.appendingPathComponent("records.json"))
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(top["photos"] as? [[String: Any]])
    }

    static func jpegs(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
    }

    @Test func defaultBranchWritesJPEGWithExifThumbnailAndRecords() throws {
        let dir = PluginTools.tempDir().appendingPathComponent("photos")
        let r = try PluginTools.launch(
            "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240,framerate=30/1 ! vfcapture name=cap auto=false at=5 directory=\(dir.path) ! fakesink",
            messages: true)
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        #expect(Self.jpegs(dir) == ["IMG_00001.jpg"], "\(r.out)")
        let file = dir.appendingPathComponent("IMG_00001.jpg").path
        #expect(Self.isCompleteJPEG(file))
        // The element's own messages, as the host prints them: the capture and the saved photo.
        #expect(r.out.contains("from element \"cap\" (element): viewfinder/capture, stage=(string)cap, event=(string)capture"), "\(r.out)")
        #expect(r.out.contains("event=(string)saved, number=(int)1, file=(string)\(file)"), "\(r.out)")
        // records.json lists exactly the file on disk, with its EXIF fields and thumbnail.
        let recs = try Self.records(dir)
        #expect(recs.count == 1)
        let rec = try #require(recs.first)
        #expect(rec["file"] as? String == "IMG_00001.jpg" && rec["trigger"] as? String == "at")
        #expect(rec["width"] as? Int == 320 && rec["height"] as? Int == 240)
        #expect((rec["exif"] as? [String: String])?["application-name"] == "Viewfinder")
        #expect(rec["thumbnail"] as? String == "thumbs/IMG_00001.jpg")
        #expect(Self.isCompleteJPEG(dir.appendingPathComponent("thumbs/IMG_00001.jpg").path))
        // EXIF as exiftool reads it (jifmux in the default branch).
        let exif = try PluginTools.run("/usr/bin/exiftool", ["-s", "-DateTimeOriginal", "-ImageDescription", "-Software", file])
        #expect(exif.out.contains("DateTimeOriginal"), "\(exif.out)")
        #expect(exif.out.contains("ImageDescription                : Viewfinder photo 1 (at)"), "\(exif.out)")
        #expect(exif.out.contains("Software                        : Viewfinder"), "\(exif.out)")
        // Nothing left half-written.
        #expect(Self.jpegs(dir.appendingPathComponent(".partial")).isEmpty)
    }

    /// `c.snapshot ! jpegenc ! multifilesink async=false`: the photo goes to the application's branch (a sink
    /// after an encoder cannot preroll before the first photo, hence async=false); capture's own snapshot
    /// writer is not used.
    @Test func requestedSnapshotPadFeedsTheApplicationsBranch() throws {
        let tmp = PluginTools.tempDir()
        let dir = tmp.appendingPathComponent("photos"), out = tmp.appendingPathComponent("snap")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let r = try PluginTools.launch(
            "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240,framerate=30/1 ! vfcapture name=c auto=false at=5 thumbnails=false directory=\(dir.path) ! fakesink c.snapshot ! jpegenc ! multifilesink async=false location=\(out.path)/s_%02d.jpg",
            timeout: 20)
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        #expect(Self.jpegs(out) == ["s_00.jpg"])
        let disc = try PluginTools.run("/usr/bin/gst-discoverer-1.0", [out.appendingPathComponent("s_00.jpg").path])
        #expect(disc.out.contains("Width: 320") && disc.out.contains("Height: 240"), "\(disc.out)")
        #expect(Self.jpegs(dir).isEmpty)
    }

    /// `vfcompose ! vfcapture`: two elements, two chains; compose's meta travels on the buffers from one element to
    /// the next, so capture auto-captures the composed moving ball as the host's `compose ! capture` does
    /// (CaptureCommandTests), with the score and subject box in its record.
    @Test func composeThenCaptureAutoCapturesFromComposesMeta() throws {
        let dir = PluginTools.tempDir().appendingPathComponent("photos")
        let r = try PluginTools.launch(
            "videotestsrc pattern=ball num-buffers=110 ! video/x-raw,width=320,height=240,framerate=30/1 ! vfcompose sync=true analysis-width=160 analysis-fps=10 ! vfcapture delay=0.2 directory=\(dir.path) ! fakesink",
            messages: true, timeout: 30)
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        #expect(r.out.contains("event=(string)capture, number=(int)1, trigger=(string)auto"), "\(r.out.suffix(2000))")
        let recs = try Self.records(dir)
        #expect(recs.count >= 1)
        #expect(recs.compactMap { $0["file"] as? String }.sorted() == Self.jpegs(dir))
        for rec in recs {
            #expect(rec["trigger"] as? String == "auto")
            #expect((rec["score"] as? Double ?? 0) > 0.5, "\(rec)")
            #expect(rec["subject"] as? [String: Any] != nil, "\(rec)")
        }
    }

    /// A directory under a file cannot be used: the element fails to start with an error naming itself, the
    /// directory and why (the host's usage error), and gst-launch-1.0 stops before any frame.
    @Test func anUnusableDirectoryStopsThePipelineNamingIt() throws {
        let tmp = PluginTools.tempDir()
        let file = tmp.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let r = try PluginTools.launch("videotestsrc num-buffers=10 ! vfcapture name=cap directory=\(file.path)/photos ! fakesink")
        #expect(r.code != 0)
        #expect(
            r.err.contains("GstVfcapture:cap: cap: cannot use directory '\(file.path)/photos': '\(file.path)' is a file, not a directory"),
            "\(r.err)")
    }

    /// An application sends capture's `viewfinder-capture` custom event to the element (what SIGUSR1 and the
    /// control API do in the host): the stage takes a photo with trigger `event` and its default branch saves it.
    @Test func customEventFromAnApplicationTakesAPhoto() throws {
        let (r, dir) = try Self.runPython(Self.eventScript, timeout: 20)
        let file = dir.appendingPathComponent("IMG_00001.jpg").path
        #expect(r.out == "capture event\nsaved \(file)\n", "\(r.out)")
        #expect(Self.isCompleteJPEG(file))
        #expect(try Self.records(dir).first?["trigger"] as? String == "event")
    }

    static let eventScript = """
import sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch("videotestsrc pattern=ball num-buffers=40 ! video/x-raw,width=320,height=240,framerate=30/1 ! vfcapture name=c auto=false directory=" + sys.argv[1] + " ! appsink name=s sync=false max-buffers=50")
c, s = p.get_by_name("c"), p.get_by_name("s")
p.set_state(Gst.State.PLAYING)
for i in range(10):
    s.emit("pull-sample")
c.send_event(Gst.Event.new_custom(Gst.EventType.CUSTOM_DOWNSTREAM, Gst.Structure.new_empty("viewfinder-capture")))
while s.emit("pull-sample") is not None:
    pass
bus = p.get_bus()
while True:
    m = bus.pop()
    if m is None:
        break
    st = m.get_structure()
    if m.type == Gst.MessageType.ELEMENT and st.get_name() == "viewfinder/capture" and st.get_string("event") in ("capture", "saved"):
        print(st.get_string("event"), st.get_string("trigger") or st.get_string("file"))
p.set_state(Gst.State.NULL)
"""

    /// The default branch fails mid-stream (its `.partial` work directory replaced by a file before a photo): the
    /// element posts `viewfinder/output-error`, as the host's supervisor does, and every frame still reaches the
    /// application; with the directory back, the branch is started again after 5 s (`viewfinder/output-restarted`)
    /// and the next photo is saved. Live source: the 5 s are wall-clock time (8 s of stream in all).
    @Test func aFailingDefaultBranchIsReportedRestartedAndTheStreamGoesOn() throws {
        let (r, dir) = try Self.runPython(Self.failScript, timeout: 30)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(r.out)\n\(r.err)")
        #expect(Array(lines.prefix(2)) == ["output-error snapshot", "output-restarted snapshot"], "\(r.out)")
        #expect(lines.dropFirst(2).first?.hasPrefix("saved IMG_") == true, "\(r.out)")
        #expect(lines.last == "frames 240", "\(r.out)")
        #expect(Self.jpegs(dir).count == 1 && Self.isCompleteJPEG(dir.appendingPathComponent(Self.jpegs(dir)[0]).path))
    }

    static let failScript = """
import os, shutil, sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
d = sys.argv[1]
p = Gst.parse_launch("videotestsrc is-live=true pattern=ball num-buffers=240 ! video/x-raw,width=320,height=240,framerate=30/1 ! vfcapture name=c auto=false thumbnails=false directory=" + d + " ! appsink name=s sync=false max-buffers=300")
c, s, bus = p.get_by_name("c"), p.get_by_name("s"), p.get_bus()
seen = []
def pull():
    sample = s.emit("pull-sample")
    while True:
        m = bus.pop()
        if m is None:
            break
        st = m.get_structure()
        if m.type != Gst.MessageType.ELEMENT:
            continue
        if st.get_name() in ("viewfinder/output-error", "viewfinder/output-restarted"):
            seen.append(st.get_name().split("/")[1] + " " + st.get_string("output"))
        elif st.get_name() == "viewfinder/capture" and st.get_string("event") == "saved":
            seen.append("saved " + os.path.basename(st.get_string("file")))
    return sample
def capture():
    c.send_event(Gst.Event.new_custom(Gst.EventType.CUSTOM_DOWNSTREAM, Gst.Structure.new_empty("viewfinder-capture")))
p.set_state(Gst.State.PLAYING)
frames = 0
for i in range(5):
    pull(); frames += 1
partial = os.path.join(d, ".partial")
shutil.rmtree(partial)
open(partial, "w").close()
capture()
while not seen and pull() is not None:
    frames += 1
os.remove(partial)
os.makedirs(os.path.join(partial, "thumbs"))
while len(seen) < 2 and pull() is not None:
    frames += 1
capture()
while pull() is not None:
    frames += 1
p.set_state(Gst.State.NULL)
print("\\n".join(seen))
print("frames", frames)
"""

    /// Runs a PyGObject script with a fresh photo directory as its argument; fails naming python's error and the
    /// plugin's load diagnosis.
    static func runPython(_ source: String, timeout: Double) throws -> (r: PluginTools.Result, dir: URL) {
        let tmp = PluginTools.tempDir()
        let dir = tmp.appendingPathComponent("photos"), script = tmp.appendingPathComponent("app.py")
        try source.write(to: script, atomically: true, encoding: .utf8)
        let r = try PluginTools.run("/usr/bin/python3", [script.path, dir.path], timeout: timeout)
        try #require(r.code == 0, "python3 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        return (r, dir)
    }
}
