import Foundation
import TestSupport
import Testing

/// `pipelines/demo-live.pipeline` (what `launch/demo` serves without a display) really shows the product:
/// real footage of people, the people engine (HOG; the upper-body cascade behind it) finds them, the rule of
/// thirds judges them, the preview plays.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct DemoLivePipelineTests {
    static let frames = Tools.root.appendingPathComponent(".testdata/people/0795.jpg").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: frames))) func theDemoFindsPeopleAndServesThePreview() throws {
        let photos = Tools.tempDir().appendingPathComponent("photos")
        let port = ControlTools.freePort()
        let vf = try ControlTools.Running(
            [
                "run", Tools.root.appendingPathComponent("pipelines/demo-live.pipeline").path, "--http", "127.0.0.1:\(port)",
                "--set", "capture.directory=\(photos.path)",
            ], port: port, cwd: Tools.root)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")
        // (A debug build analyses about one frame a second here: few verdicts, each on real footage.)
        let events = try ControlTools.events(vf.base + "/api/events", seconds: 8)
        let verdicts = events.filter { $0["name"] as? String == "viewfinder/composition" }.compactMap { $0["fields"] as? [String: Any] }
        #expect(verdicts.count >= 2, "\(verdicts.count) verdicts")
        #expect(verdicts.allSatisfy { $0["rule"] as? String == "thirds" })
        let withPeople = verdicts.filter {
            ["people", "bodies"].contains($0["engine"] as? String ?? "") && ($0["width"] as? Double ?? 0) > 0
        }
        // engine=auto's people engine (or the upper-body cascade behind it) finds walkers (some frames fall
        // back to saliency; a box may hold one walker or a group): each box lies in the 768x576 frame and
        // covers a part of it, not the whole picture.
        #expect(withPeople.count >= 1, "no people in \(verdicts.count) verdicts")
        for v in withPeople {
            let x = v["x"] as? Double ?? -1, y = v["y"] as? Double ?? -1, w = v["width"] as? Double ?? 0, h = v["height"] as? Double ?? 0
            #expect(x >= 0 && y >= 0 && x + w <= 768.5 && y + h <= 576.5, "box outside the frame: \(x),\(y) \(w)x\(h)")
            #expect(w * h < 0.25 * 768 * 576, "box is most of the frame: \(w)x\(h)")
        }

        // The preview: a 640x480 JPEG of the footage with the guidance.
        let file = Tools.tempDir().appendingPathComponent("preview.jpg")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-s", "-o", file.path, vf.base + "/api/preview.jpg"]
        try p.run()
        p.waitUntilExit()
        let data = try Data(contentsOf: file)
        #expect(data.prefix(2) == Data([0xFF, 0xD8]), "not a JPEG")
        let decoded = try Tools.ffprobeVideoFrames(file.path)
        #expect(decoded.count == 1 && decoded.first?.width == 640 && decoded.first?.height == 480, "\(decoded)")

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop").status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
