import Foundation
import TestTags
import Testing

/// The plugin's logging (`PluginLogging`): inside stock gst-launch-1.0 the library's lines ("saved ...") never reach
/// the application's stdout or stderr; they go to GStreamer's debug log, category `viewfinder_stages` (the swift-log
/// label `viewfinder.stages`), at INFO, so GST_DEBUG=viewfinder*:5 shows them and a lower threshold does not.
@Suite(.serialized, .tags(.process), .tier) struct PluginLoggingTests {
    static func description(_ dir: URL) -> String {
        "videotestsrc num-buffers=10 ! video/x-raw,width=160,height=120,framerate=30/1 ! vfcapture auto=false at=2 directory=\(dir.path) ! fakesink"
    }

    /// gst-launch-1.0 -q with `debug` as GST_DEBUG (nil: unset) writing to a file; the run and the file's lines.
    static func launch(_ dir: URL, debug: String?) throws -> (result: PluginTools.Result, log: [String]) {
        var env = PluginTools.environment()
        let file = PluginTools.tempDir().appendingPathComponent("gst-debug.log")
        if let debug {
            env["GST_DEBUG"] = debug
            env["GST_DEBUG_FILE"] = file.path
            env["GST_DEBUG_NO_COLOR"] = "1"
        }
        let words = ["-q"] + description(dir).split(separator: " ").map(String.init)
        let r = try PluginTools.run("/usr/bin/gst-launch-1.0", words, environment: env)
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return (r, text.split(separator: "\n").map(String.init))
    }

    @Test func savedLinesGoToTheDebugLogNotToStdoutOrStderr() throws {
        let dir = PluginTools.tempDir().appendingPathComponent("photos")
        let photo = dir.appendingPathComponent("IMG_00001.jpg").path

        // No GST_DEBUG: the photo is written, and the application's streams hold nothing at all.
        let quiet = try Self.launch(dir, debug: nil)
        try #require(quiet.result.code == 0, "gst-launch-1.0 failed: \(quiet.result.err)\n\(PluginTools.loadDiagnosis())")
        #expect(FileManager.default.fileExists(atPath: photo))
        #expect(!quiet.result.out.contains("saved") && !quiet.result.err.contains("saved"), "\(quiet.result.out)\(quiet.result.err)")
        #expect(quiet.result.out.isEmpty && quiet.result.err.isEmpty, "stdout: \(quiet.result.out)\nstderr: \(quiet.result.err)")

        // GST_DEBUG=viewfinder*:5: the line is in the debug log, at INFO in category viewfinder_stages, with the file
        // and function it came from; still nothing on stdout or stderr.
        let second = dir.appendingPathComponent("IMG_00002.jpg").path
        let debug = try Self.launch(dir, debug: "viewfinder*:5")
        #expect(debug.result.code == 0, "\(debug.result.err)")
        #expect(!debug.result.out.contains("saved") && !debug.result.err.contains("saved"), "\(debug.result.out)\(debug.result.err)")
        let saved = debug.log.filter { $0.contains("saved ") }
        #expect(saved.count == 1, "\(debug.log)")
        let line = saved.first ?? ""
        #expect(line.hasSuffix(": saved \(second) (at)"), "\(line)")
        #expect(line.contains(" INFO ") && line.contains(" viewfinder_stages Stages/PhotoSaver.swift:"), "\(line)")

        // Below INFO (FIXME) the category drops it: the handler's level follows GST_DEBUG.
        let fixme = try Self.launch(dir, debug: "viewfinder*:3")
        #expect(fixme.result.code == 0, "\(fixme.result.err)")
        #expect(!fixme.log.contains { $0.contains("saved ") }, "\(fixme.log)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("IMG_00003.jpg").path))
        #expect(!fixme.result.out.contains("saved") && !fixme.result.err.contains("saved"))
    }
}
