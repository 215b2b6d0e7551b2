import Foundation
import GStreamerKit
import Overlay
import Stages
import Testing

@testable import Host

/// The share card draws the record's subject box where the subject is in the saved (cropped) photo.
@Suite struct ShareCardTests {
    /// A 180x240 photo (a 3:4 crop) with a white ball of radius 20 at (60, 120), written by GStreamer.
    static func ballPhoto() throws -> String {
        let dir = NSTemporaryDirectory() + "vf-card-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let w = 180, h = 240
        var px = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                px[(y * w + x) * 4 + 3] = 255
                if (x - 60) * (x - 60) + (y - 120) * (y - 120) <= 400 { for c in 0..<3 { px[(y * w + x) * 4 + c] = 255 } }
            }
        }
        let path = dir + "/IMG_00001.jpg"
        try ImageFile.encodeBGRA(px, width: w, height: h, stride: w * 4, to: path)
        return path
    }

    static func record(analysisPts: UInt64?) -> PhotoRecord {
        PhotoRecord(
            id: 1, file: "IMG_00001.jpg", time: "2026-01-01T00:00:00Z", pts: 5, width: 180, height: 240, rule: "thirds", score: 0.9,
            advice: "thirds: hold", subject: PhotoRecord.Rect(x: 35, y: 95, width: 50, height: 50), analysisPts: analysisPts,
            trigger: "auto", crop: "3:4", cropWindow: PhotoRecord.Rect(x: 70, y: 0, width: 180, height: 240))
    }

    /// Green (the box colour) somewhere within 3 px left or right of x on row y.
    static func greenNear(_ img: BGRAImage, x: Int, y: Int) -> Bool {
        (max(0, x - 3)...min(img.width - 1, x + 3)).contains { i in
            let p = y * img.stride + i * 4
            return img.pixels[p + 1] > 150 && img.pixels[p + 2] < 120 && img.pixels[p] < 150
        }
    }

    @Test func theSubjectBoxFramesTheBallOfTheCroppedPhoto() throws {
        let photo = try Self.ballPhoto()
        let card = try ShareCard.render(ShareCard.Content(photo: photo, record: Self.record(analysisPts: 5), date: ""))
        // The 180x240 photo is fitted to 750x1000 at (165, 60): k = 750 / 180.
        let k = 750.0 / 180, ox = 165.0, oy = 60.0
        let midY = Int(oy + 120 * k)
        #expect(Self.greenNear(card, x: Int((ox + 35 * k).rounded()), y: midY), "left edge of the box")
        #expect(Self.greenNear(card, x: Int((ox + 85 * k).rounded()), y: midY), "right edge of the box")
        // The ball (white) is inside the box.
        let centre = midY * card.stride + Int(ox + 60 * k) * 4
        #expect(card.pixels[centre] > 200 && card.pixels[centre + 1] > 200 && card.pixels[centre + 2] > 200)
    }

    @Test func aRecordFromBeforeAnalysisPtsHoldsItsBoxInFullFramePixels() throws {
        let photo = try Self.ballPhoto()
        // Legacy: the box was in the full frame; the card moves it by the crop window (x 70): off the ball.
        let card = try ShareCard.render(ShareCard.Content(photo: photo, record: Self.record(analysisPts: nil), date: ""))
        let k = 750.0 / 180, ox = 165.0, oy = 60.0
        #expect(!Self.greenNear(card, x: Int((ox + 35 * k).rounded()), y: Int(oy + 120 * k)))
    }

    /// The card in memory (the control server's download): a complete 1080x1440 JPEG that decodes to the
    /// same picture `viewfinder card` writes to a file.
    @Test func theJPEGInMemoryIsTheCardAsTheFileHasIt() throws {
        let photo = try Self.ballPhoto()
        let content = ShareCard.content(record: Self.record(analysisPts: 5), photo: photo)
        let data = try ShareCard.jpeg(content)
        #expect(data.prefix(2) == Data([0xFF, 0xD8]) && data.suffix(2) == Data([0xFF, 0xD9]))
        let memory = FilePaths.directory(of: photo) + "/memory.jpg", file = FilePaths.directory(of: photo) + "/file.jpg"
        try data.write(to: URL(fileURLWithPath: memory))
        try ShareCard.write(content, to: file)
        let a = try #require(JPEGFile.read(memory)), b = try #require(JPEGFile.read(file))
        #expect(a.complete && a.width == 1080 && a.height == 1440)
        #expect(b.width == a.width && b.height == a.height)
        // The same picture: decoded, the two differ by under a level on average (the bytes are not always equal: two
        // renders of the text can differ in a few anti-aliased pixels, seen once in CI).
        let pa = try ImageFile.decodeBGRA(memory, width: a.width, height: a.height)
        let pb = try ImageFile.decodeBGRA(file, width: b.width, height: b.height)
        #expect(pa.pixels.count == pb.pixels.count && pa.stride == pb.stride)
        var sum = 0, worst = 0
        for i in 0..<min(pa.pixels.count, pb.pixels.count) {
            let d = abs(Int(pa.pixels[i]) - Int(pb.pixels[i]))
            sum += d; worst = max(worst, d)
        }
        let mean = Double(sum) / Double(max(1, pa.pixels.count))
        #expect(mean < 0.5, "mean difference \(mean), largest \(worst)")
    }
}
