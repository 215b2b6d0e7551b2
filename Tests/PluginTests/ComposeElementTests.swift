import Foundation
import TestTags
import Testing

/// vfcompose outside the host: stock gst-launch-1.0 on a real photo (JSON lines, `viewfinder/composition`
/// element messages posted by the element) and a Python (PyGObject) application, examples/compose.py.
@Suite(.serialized, .tags(.process), .tier) struct ComposeElementTests {
    /// A real photo prepared by launch/testdata (opencv-doc samples).
    static func photo(_ name: String) throws -> String {
        let path = PluginTools.root.appendingPathComponent(".testdata/\(name)").path
        try #require(FileManager.default.fileExists(atPath: path), "run launch/testdata (opencv-doc samples)")
        return path
    }

    static func jsonLines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// The face on basketball1.png where OpenCV finds it (ComposeStageTests: (72, 91) 39x39), in the JSON lines
    /// and in one message per line, posted by the element `c` with `stage=c` first.
    @Test func facesOnARealPhotoGiveJSONLinesAndMessages() throws {
        let photo = try Self.photo("basketball1.png")
        let json = PluginTools.tempDir().appendingPathComponent("faces.jsonl").path
        let r = try PluginTools.launch(
            "filesrc location=\(photo) ! decodebin ! videoconvert ! imagefreeze num-buffers=5 ! vfcompose name=c engine=faces warmup=0 analysis-width=640 metadata-location=\(json) ! fakesink",
            messages: true)
        try #require(r.code == 0, "gst-launch-1.0 failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        let lines = try Self.jsonLines(json)
        #expect(!lines.isEmpty)
        for line in lines {
            let faces = try #require(line["faces"] as? [[String: Double]])
            #expect(faces.count == 1)
            #expect(faces.first.map { abs($0["x"]! - 72) <= 4 && abs($0["y"]! - 91) <= 4 && abs($0["width"]! - 39) <= 4 } == true, "\(faces)")
            #expect(line["engine"] as? String == "faces")
        }
        let messages = r.out.components(separatedBy: "\n").filter { $0.contains("viewfinder/composition") }
        #expect(messages.count == lines.count, "\(r.out)")
        for m in messages {
            #expect(m.contains("from element \"c\" (element): viewfinder/composition, stage=(string)c,"), "\(m)")
            #expect(m.contains("engine=(string)faces") && m.contains("face-count=(int)1"), "\(m)")
        }
    }

    /// examples/compose.py with /usr/bin/python3 (Debian's gi): it reads the element's composition messages
    /// and finds the composition meta on every frame that left the element.
    @Test func pythonApplicationReadsCompositionMessages() throws {
        let script = PluginTools.root.appendingPathComponent("examples/compose.py").path
        let r = try PluginTools.run(
            "/usr/bin/python3",
            [script, "--source", "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240,framerate=30/1"],
            timeout: 30)
        try #require(r.code == 0, "python3 failed (python3-gi and gir1.2-gstreamer-1.0 installed?): \(r.err)\n\(PluginTools.loadDiagnosis())")
        let objects = try r.out.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let messages = objects.filter { $0["rule"] != nil }
        #expect(messages.count >= 5, "\(r.out)")
        for m in messages {
            #expect(m["source"] as? String == "c" && m["stage"] as? String == "c")
            #expect(m["engine"] as? String == "saliency")
            #expect((m["width"] as? Double ?? 0) > 10, "\(m)")
        }
        let summary = try #require(objects.last)
        #expect(summary["messages"] as? Int == messages.count)
        #expect(summary["frames-with-meta"] as? Int == 30, "\(summary)")
    }
}
