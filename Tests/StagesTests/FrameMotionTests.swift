import Foundation
import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

/// `FrameMotion`'s thumbnail and its camera motion, on frames made here.
@Suite struct FrameMotionTests {
    @Test func theThumbnailKeepsTheShapeUpToFourToOne() {
        #expect(FrameMotion.thumbnailSize(width: 1920, height: 1080) == (160, 90))
        #expect(FrameMotion.thumbnailSize(width: 1080, height: 1920) == (160, 284))
        #expect(FrameMotion.thumbnailSize(width: 1920, height: 16) == (160, 2))
        // A column 16 px wide: 9 x 640, not 160 x 10800 (which stalled reframe and redact on such input).
        #expect(FrameMotion.thumbnailSize(width: 16, height: 1080) == (9, 640))
        #expect(FrameMotion.thumbnailSize(width: 2, height: 4096) == (2, 640))
        #expect(FrameMotion.thumbnailSize(width: 0, height: 0) == (160, 160))
    }

    /// A luma frame whose texture is shifted `dx` px to the right.
    func frame(width: Int, height: Int, dx: Int) throws -> VideoFrame {
        let info = try VideoInfo(format: "GRAY8", width: width, height: height)
        var bytes = [UInt8](repeating: 0, count: info.size)
        let stride = info.stride(plane: 0)
        for y in 0..<height {
            for x in 0..<width {
                let u = x - dx
                let v = 128 + 50 * sin(Double(u) / 16) * cos(Double(y) / 13) + 30 * sin(Double(u + 2 * y) / 23)
                bytes[y * stride + x] = UInt8(max(0, min(255, v)))
            }
        }
        return VideoFrame(buffer: Buffer(bytes: bytes), info: info, caps: try Caps(info.capsString), segment: Segment(), index: 0)
    }

    @Test func aPanIsMeasuredInInputPixelsAndATallColumnGivesNoneQuickly() throws {
        var m = FrameMotion()
        #expect(m.take(FrameMotion.sample(try frame(width: 640, height: 360, dx: 0))).motion == nil)
        let moved = try #require(m.take(FrameMotion.sample(try frame(width: 640, height: 360, dx: 8))).motion)
        #expect(abs(moved.dx - 8) < 1 && abs(moved.dy) < 1 && abs(moved.scale - 1) < 0.01, "\(moved)")
        // The column: its thumbnail is 9 px wide, too narrow for the blocks: no motion, and the sample is small.
        var c = FrameMotion()
        let s = FrameMotion.sample(try frame(width: 16, height: 1080, dx: 0))
        #expect(s.thumbnail.count == 9 * 640)
        _ = c.take(s)
        #expect(c.take(FrameMotion.sample(try frame(width: 16, height: 1080, dx: 2))).motion == nil)
    }
}
