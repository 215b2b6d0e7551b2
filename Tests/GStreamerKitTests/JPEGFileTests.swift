import Foundation
import GStreamerKit
import TestTags
import Testing

/// JPEGs written by real GStreamer elements (jpegenc ! jifmux, tags injected), read back.
@Suite(.tags(.process), .tier) struct JPEGFileTests {
    static func write(_ tags: String? = nil, width: Int = 320, height: Int = 200) throws -> String {
        let path = NSTemporaryDirectory() + "vf-jpeg-\(UUID().uuidString).jpg"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments =
            ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=\(width),height=\(height)", "!", "jpegenc", "!"]
            + (tags.map { ["taginject", "tags=\($0)", "!"] } ?? []) + ["jifmux", "!", "filesink", "location=\(path)"]
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return path
    }

    @Test func readsSizeAndTheExifJifmuxWrote() throws {
        let path = try Self.write(
            "description=hello-world,datetime=(datetime)2026-11-22T10:11:12Z,application-name=Viewfinder,image-orientation=rotate-180")
        let j = try #require(JPEGFile.read(path))
        #expect(j.complete)
        #expect(j.width == 320 && j.height == 200)
        #expect(j.tags["description"] == "hello-world")
        #expect(j.tags["application-name"] == "Viewfinder")
        #expect(j.tags["image-orientation"] == "rotate-180")
        #expect(j.tags["datetime"]?.hasPrefix("2026-11-22T10:11:12") == true)
    }

    @Test func aFileCutShortIsNotComplete() throws {
        let path = try Self.write(width: 64, height: 48)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(JPEGFile.parse(bytes)?.complete == true)
        for cut in [bytes.count - 1, bytes.count - 2, bytes.count / 2, 200] {
            #expect(JPEGFile.parse(Array(bytes[0..<cut]))?.complete == false)
        }
        #expect(JPEGFile.parse([0x89, 0x50, 0x4E, 0x47]) == nil)
        #expect(JPEGFile.read("/nonexistent.jpg") == nil)
    }
}
