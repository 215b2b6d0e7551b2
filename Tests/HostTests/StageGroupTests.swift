import Foundation
import GStreamerKit
import Testing

@testable import Host

/// A stage group's hand-off: drawing stages write into the frame they pulled, with no full-frame copy.
@Suite(.serialized) struct StageGroupTests {
    static func directory() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-group-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Luma of raw I420 frames written by multifilesink, one file per frame.
    static func lumaRows(_ file: String, width: Int) throws -> [[UInt8]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        return stride(from: 0, to: width * 120, by: width).map { Array(data[$0..<$0 + width]) }
    }

    @Test(arguments: [
        "compose warmup=0 ! grid", "grid ! queue ! compose warmup=0", "ringlight", "compose warmup=0 ! capture auto=false ! grid",
    ])
    func drawingStagesWriteInPlace(stages: String) throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let description =
            "videotestsrc pattern=black num-buffers=30 ! video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! "
            + stages.replacingOccurrences(of: "capture auto=false", with: "capture auto=false directory=\(dir)/photos")
            + " ! multifilesink location=\(dir)/f%02d.raw"
        let s = try Session(description: description)
        #expect(s.run() == 0, "\(s.errors)")
        let r = try #require(s.report)
        #expect(r.framesOut == 30)
        #expect(r.copies == 0, "\(stages): \(r.copies) full-frame copies over 30 frames")
        // The drawing reached the pixels: the last frame of a black source is no longer all black.
        let rows = try Self.lumaRows(dir + "/f29.raw", width: 160)
        let lit = rows.joined().filter { $0 > 40 }.count
        #expect(lit > 100, "\(stages): \(lit) bright luma pixels")
    }

    @Test func aBufferSharedWithAnotherBranchIsCopiedBeforeDrawing() throws {
        // tee gives both branches the same buffer: the drawing branch must not change the clean one.
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try Session(
            description:
                "videotestsrc pattern=black num-buffers=10 ! video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! tee name=t "
                + "t. ! queue max-size-buffers=20 ! identity sleep-time=20000 ! multifilesink location=\(dir)/clean%02d.raw "
                + "t. ! queue ! grid ! multifilesink location=\(dir)/grid%02d.raw")
        #expect(s.run() == 0, "\(s.errors)")
        let clean = try Self.lumaRows(dir + "/clean09.raw", width: 160).joined().filter { $0 > 40 }.count
        let drawn = try Self.lumaRows(dir + "/grid09.raw", width: 160).joined().filter { $0 > 40 }.count
        #expect(clean == 0)
        #expect(drawn > 100)
        #expect((s.report?.copies ?? 0) >= 1)
    }
}
