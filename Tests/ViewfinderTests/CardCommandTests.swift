import Foundation
import TestSupport
import Testing

/// `viewfinder card`: a 1080x1440 share card from a captured photo, by id or by file.
@Suite(.serialized, .tags(.process), .tier) struct CardCommandTests {
    /// One photo of a pure blue frame, captured at frame 3 (with its record).
    static func photoDirectory() throws -> URL {
        let d = Tools.tempDir().appendingPathComponent("photos")
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=blue num-buffers=6 ! video/x-raw,width=320,height=240 ! capture at=3 auto=false directory=\(d.path) ! fakesink"
        )
        #expect(r.code == 0, "\(r.err)")
        return d
    }

    @Test func cardByIdAndByFileIs1080x1440WithThePhotoOnTop() throws {
        let d = try Self.photoDirectory()
        let png = d.deletingLastPathComponent().appendingPathComponent("card.png").path
        let r = try Tools.vf("card", "1", "--directory", d.path, "--output", png)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("1080x1440"))
        let img = try Tools.luma(of: png)
        #expect(img.width == 1080 && img.height == 1440)
        // Photo (blue: luma ~41 in video range, 29 full range) fitted to 960x720 at (60, 60); the card is darker
        // (~19) around it; the text below is white.
        func at(_ x: Int, _ y: Int) -> Int { Int(img.pixels[y * img.width + x]) }
        #expect(at(20, 20) < 25)
        #expect((25...45).contains(at(100, 100)), "photo pixel \(at(100, 100))")
        #expect((25...45).contains(at(1000, 760)), "photo pixel \(at(1000, 760))")
        #expect(at(100, 800) < 25)
        let textRows = (830..<1400).filter { y in (60..<1020).contains { at($0, y) > 200 } }
        #expect(textRows.count > 20, "little text drawn: \(textRows.count) rows")  // the title (no score without compose)
        // By file, JPEG, next to the photo.
        let byFile = try Tools.vf("card", d.appendingPathComponent("IMG_00001.jpg").path)
        #expect(byFile.code == 0, "\(byFile.err)")
        let jpg = d.appendingPathComponent("IMG_00001_card.jpg").path
        let probe = try Tools.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", jpg])
        #expect(probe.out.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,1080,1440")
    }

    @Test func unknownIdOrBadOutputIsAUsageError() throws {
        let d = try Self.photoDirectory()
        let r = try Tools.vf("card", "7", "--directory", d.path)
        #expect(r.code == 2 && r.err.contains("no photo with id 7") && r.err.contains("ids: 1"), "\(r.err)")
        let o = try Tools.vf("card", "1", "--directory", d.path, "--output", d.path + "/card.gif")
        #expect(o.code == 2 && o.err.contains("card.gif") && o.err.contains(".png"), "\(o.err)")
        #expect(!FileManager.default.fileExists(atPath: d.path + "/card.gif"))
        let missing = try Tools.vf("card", "/nonexistent/IMG_00001.jpg")
        #expect(missing.code == 2 && missing.err.contains("/nonexistent/IMG_00001.jpg"), "\(missing.err)")
    }

    /// The output's directory is checked before anything is drawn: exit 2 with what is wrong (not a temp-file path and exit 1).
    @Test func outputInAFileOrMissingDirectoryIsAUsageErrorUpFront() throws {
        let r = try Tools.vf("card", "1", "--directory", "/nonexistent", "--output", "/etc/passwd/card.png")
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("card: cannot write '/etc/passwd/card.png': '/etc/passwd' is a file, not a directory"), "\(r.err)")
        #expect(!r.err.contains(".tmp"), "\(r.err)")
        let d = Tools.tempDir()
        let m = try Tools.vf("card", "1", "--directory", "/nonexistent", "--output", d.path + "/no/card.jpg")
        #expect(m.code == 2 && m.err.contains("directory '\(d.path)/no' does not exist"), "\(m.err)")
    }

    /// A one-character file name (the photo `a` in the current directory) is a path like any other, not a crash.
    @Test func oneCharacterPhotoName() throws {
        let d = Tools.tempDir()
        try Data("not a jpeg".utf8).write(to: d.appendingPathComponent("a"))
        let r = try Tools.vf("card", "a", cwd: d)
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("card: 'a' is not a readable JPEG"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path) == ["a"])
    }
}
