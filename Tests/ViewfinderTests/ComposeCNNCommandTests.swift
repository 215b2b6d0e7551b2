import Foundation
import TestSupport
import Testing

/// `compose engine=cnn` and `engine=auto`'s use of it, through the real `viewfinder` binary. The library
/// is looked for in `VIEWFINDER_YUFACE_DIR`: an empty directory stands for a machine without it.
@Suite(.tags(.process), .tier) struct ComposeCNNCommandTests {
    /// Where launch/fetch-yuface installs the library by default.
    static let installDirectory = FileManager.default.homeDirectoryForCurrentUser
        .appendingPathComponent(".cache/viewfinder/yuface-2023.5.1")
    static let installed = FileManager.default.fileExists(
        atPath: installDirectory.appendingPathComponent("yuface/libfacedetection.so").path)
    static let skipReason: Comment = "libfacedetection is not installed in \(installDirectory.path): run launch/fetch-yuface"
    static let source = "videotestsrc is-live=true num-buffers=20 ! video/x-raw,width=320,height=240,framerate=30/1"

    /// The test process's environment with `VIEWFINDER_YUFACE_DIR` set.
    static func environment(yuface dir: String) -> [String: String] {
        var e = ProcessInfo.processInfo.environment
        e["VIEWFINDER_YUFACE_DIR"] = dir
        return e
    }

    @Test func cnnWithoutTheLibraryExitsTwoNamingWhatIsMissingAndTheSetupCommand() throws {
        let empty = Tools.tempDir()
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "\(Self.source) ! compose engine=cnn ! fakesink"],
            environment: Self.environment(yuface: empty.path), timeout: 30)
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("engine=cnn"), "\(r.err)")
        #expect(r.err.contains("\(empty.path)/yuface/libfacedetection.so: no such file"), "\(r.err)")
        #expect(r.err.contains("install it with launch/setup"), "\(r.err)")
        #expect(!r.err.contains(" in, "), "nothing ran: \(r.err)")
    }

    @Test func autoWithoutTheLibraryFallsBackAndSaysSoOnce() throws {
        let empty = Tools.tempDir()
        // Two compose stages, each making its engines at start and again for the input size: one message.
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "\(Self.source) ! compose overlay=false ! compose overlay=false ! fakesink"],
            environment: Self.environment(yuface: empty.path), timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.err.split(separator: "\n").filter { $0.contains("engine=auto: no cnn engine") }
        #expect(lines.count == 1, "\(r.err)")
        #expect(lines.first?.contains("using the face cascades") == true, "\(r.err)")
        #expect(r.err.contains("20 in, 20 out"), "\(r.err)")
    }

    /// engine=cnn, and engine=auto which tries the cnn first when it loads: the subject engine is "cnn".
    @Test(.enabled(if: installed, skipReason), arguments: ["engine=cnn cnn-threads=2", "engine=auto"])
    func cnnFindsTheAstronautAndHerEyes(engine: String) throws {
        let photo = Tools.root.appendingPathComponent(".testdata/astronaut.png").path
        try #require(FileManager.default.fileExists(atPath: photo), "run launch/testdata")
        let d = Tools.tempDir()
        let json = d.appendingPathComponent("m.jsonl").path
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch",
                "filesrc location=\(photo) ! pngdec ! videoconvert ! imagefreeze num-buffers=5 ! video/x-raw,framerate=30/1 ! compose \(engine) sync=true warmup=0 analysis-fps=30 analysis-width=512 overlay=false metadata-location=\(json) ! fakesink",
            ], environment: Self.environment(yuface: Self.installDirectory.path), timeout: 60)
        #expect(r.code == 0, "\(r.err)")
        #expect(!r.err.contains("no cnn engine"), "\(r.err)")
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 4, "\(lines)")
        for line in lines {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(o["engine"] as? String == "cnn")
            let faces = try #require(o["faces"] as? [[String: Any]])
            try #require(faces.count == 1, "\(faces)")
            let f = faces[0]
            let x = try #require(f["x"] as? Double), y = try #require(f["y"] as? Double)
            let w = try #require(f["width"] as? Double), h = try #require(f["height"] as? Double)
            // Labelled by eye (CNNFaceEngineTests): 180,70 86x104; IoU computed here.
            let (lx, ly, lw, lh) = (180.0, 70.0, 86.0, 104.0)
            let ix = max(0, min(x + w, lx + lw) - max(x, lx)), iy = max(0, min(y + h, ly + lh) - max(y, ly))
            #expect(ix * iy / (w * h + lw * lh - ix * iy) >= 0.6, "\(f)")
            let eyes = try #require(f["eyes"] as? [[Double]])
            #expect(eyes.count == 2 && eyes[0][0] < eyes[1][0] && abs(eyes[0][1] - 101) < 6 && abs(eyes[1][1] - 103) < 6, "\(eyes)")
        }
    }
}
