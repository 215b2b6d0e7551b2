import Foundation
import TestSupport
import Testing

/// `capture` through the real binary: photos by jpegenc/jifmux/multifilesink, EXIF read by exiftool,
/// thumbnails measured by ffprobe, records.json against the directory, kill -9 and a full disk.
@Suite(.serialized, .tags(.live, .process), .tier) struct CaptureCommandTests {
    /// records.json's photos, parsed.
    static func records(_ dir: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: dir.appendingPathComponent("records.json"))
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(top["photos"] as? [[String: Any]])
    }

    /// Top-level photo files (IMG_nnnnn.jpg, not the _full ones).
    static func photos(_ dir: URL) -> [String] {
        Tools.files(in: dir, suffix: ".jpg").filter { !$0.hasSuffix("_full.jpg") }
    }

    /// SOI at the start, EOI at the end.
    static func isCompleteJPEG(_ path: String) -> Bool {
        guard let d = FileManager.default.contents(atPath: path), d.count > 4 else { return false }
        return d[0] == 0xFF && d[1] == 0xD8 && d[d.count - 2] == 0xFF && d[d.count - 1] == 0xD9
    }

    static func size(_ path: String) throws -> (Int, Int) {
        let r = try Tools.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        let v = r.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        return v.count == 2 ? (v[0], v[1]) : (0, 0)
    }

    @Test func movingBallAutoCapturesWithExifThumbnailsAndAnExactIndex() throws {
        let d = Tools.tempDir().appendingPathComponent("photos")
        // compose sync=true analyses every due frame on the video thread, so the run is the same every time.
        let r = try Tools.vf(
            "launch", "-m",
            "videotestsrc pattern=ball num-buffers=300 ! video/x-raw,width=320,height=240,framerate=30/1 ! compose sync=true analysis-width=160 ! capture delay=0.2 directory=\(d.path) ! fakesink",
            timeout: 180)
        #expect(r.code == 0, "\(r.err)")
        let files = Self.photos(d)
        #expect(files.count >= 1, "no auto capture in 10 s of stream")
        #expect(r.out.contains("trigger=auto"))
        #expect(r.out.contains(" state=readyToCapture") && r.out.contains(" state=savingPhoto"))
        // The index lists exactly the files on disk, with their thumbnails.
        let recs = try Self.records(d)
        #expect(recs.compactMap { $0["file"] as? String }.sorted() == files)
        for rec in recs {
            let file = d.appendingPathComponent(rec["file"] as! String).path
            #expect(rec["trigger"] as? String == "auto")
            #expect(rec["width"] as? Int == 320 && rec["height"] as? Int == 240)
            #expect((rec["score"] as? Double ?? 0) > 0.5)
            #expect(rec["subject"] as? [String: Any] != nil)
            #expect((rec["exif"] as? [String: String])?["application-name"] == "Viewfinder")
            // Decodes (gst-discoverer, a real client) at full size.
            let disc = try Tools.run("/usr/bin/gst-discoverer-1.0", [file])
            #expect(disc.code == 0 && disc.out.contains("Width: 320") && disc.out.contains("Height: 240"), "\(disc.out)")
            // EXIF as exiftool reads it.
            let exif = try Tools.run("/usr/bin/exiftool", ["-s", "-DateTimeOriginal", "-ImageDescription", "-Software", file])
            #expect(exif.out.contains("DateTimeOriginal"), "\(exif.out)")
            #expect(exif.out.contains("ImageDescription                : Viewfinder photo"), "\(exif.out)")
            #expect(exif.out.contains("Software                        : Viewfinder"))
            // Clean: only the 40x40 ball is bright; compose's box, arrow, text and capture's label are not in it.
            let img = try Tools.luma(of: file)
            let bright = img.pixels.indices.filter { img.pixels[$0] > 40 }
            let xs = bright.map { $0 % img.width }, ys = bright.map { $0 / img.width }
            #expect(bright.count > 800 && bright.count < 1400, "\(bright.count) bright pixels")
            #expect((xs.max() ?? 0) - (xs.min() ?? 0) <= 42 && (ys.max() ?? 0) - (ys.min() ?? 0) <= 42)
            let thumb = try #require(rec["thumbnail"] as? String)
            let (tw, th) = try Self.size(d.appendingPathComponent(thumb).path)
            #expect(tw == 300 && th == 225, "thumbnail \(tw)x\(th)")
        }
        #expect(Tools.files(in: d.appendingPathComponent("thumbs"), suffix: ".jpg") == files)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.appendingPathComponent(".partial").path) == ["thumbs"])
    }

    /// 12 + 14: the live ball, compose analysing on its own thread, 3:4 photos: each photo's record,
    /// EXIF and box describe that very frame (the box holds the ball in the saved pixels, rule and advice
    /// agree), stderr says `saved FILE (auto, RULE SCORE)` once per photo, and the summary counts them.
    @Test func eachPhotoCarriesItsOwnAnalysisAndIsReportedOnStderr() throws {
        let d = Tools.tempDir().appendingPathComponent("photos")
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=ball is-live=true num-buffers=300 ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 ! capture crop=3:4 delay=0.2 cooldown=0.5 directory=\(d.path) ! fakesink",
            timeout: 180)
        #expect(r.code == 0, "\(r.err)")
        let recs = try Self.records(d)
        #expect(recs.count >= 1, "no photo in 10 s of the ball: \(r.err)")
        let savedLines = r.err.split(separator: "\n").filter { $0.hasPrefix("saved ") }
        #expect(savedLines.count == recs.count, "\(r.err)")
        for rec in recs {
            let name = try #require(rec["file"] as? String)
            let rule = try #require(rec["rule"] as? String, "\(name) has no analysis")
            let advice = try #require(rec["advice"] as? String)
            let score = try #require(rec["score"] as? Double)
            // The analysis is of this photo's frame.
            #expect(rec["analysisPts"] as? Int != nil && rec["analysisPts"] as? Int == rec["pts"] as? Int, "\(rec)")
            // Rule and advice of one analysis: the advice's rule prefix is the rule (or a check's).
            if let colon = advice.firstIndex(of: ":") {
                let named = String(advice[..<colon])
                #expect(named == rule || named == "edges" || named == "horizon", "rule \(rule) vs advice \(advice)")
            }
            #expect(
                (rec["exif"] as? [String: String])?["description"]?.hasSuffix(String(format: "%@, score %.2f, %@", rule, score, advice))
                    == true, "\(rec)")
            // The box, in the saved photo's pixels, holds the ball's bright pixels.
            let img = try Tools.luma(of: d.appendingPathComponent(name).path)
            let bright = img.pixels.indices.filter { img.pixels[$0] > 40 }
            #expect(bright.count > 300, "\(name): the ball is in the photo")
            let cx = Double(bright.map { $0 % img.width }.reduce(0, +)) / Double(max(1, bright.count))
            let cy = Double(bright.map { $0 / img.width }.reduce(0, +)) / Double(max(1, bright.count))
            let box = try #require(rec["subject"] as? [String: Double], "\(name) has no subject box")
            let (x, y, w, h) = (box["x"] ?? -1, box["y"] ?? -1, box["width"] ?? 0, box["height"] ?? 0)
            #expect(cx >= x && cx <= x + w && cy >= y && cy <= y + h, "\(name): box \(box) misses the ball at (\(cx), \(cy))")
            #expect(img.width == 180 && img.height == 240)
            let line = "saved \(d.appendingPathComponent(name).path) (auto, \(rule) \(String(format: "%.2f", score)))"
            #expect(savedLines.contains { $0 == line }, "\(line) not in \(savedLines)")
        }
        #expect(r.err.contains("  capture0: \(recs.count) photo\(recs.count == 1 ? "" : "s") saved in \(d.path)\n"), "\(r.err)")
    }

    /// Bonus on opencv-doc's vtest.avi (people walking; the file runs faster than compose can analyse):
    /// every photo's box is compose's measurement of that very frame (its JSON line with that pts), moved
    /// into the crop; no frame is saved twice.
    @Test func onVtestEveryPhotoRecordsTheAnalysisOfItsOwnFrame() throws {
        let video = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".testdata/vtest.avi").path
        guard FileManager.default.fileExists(atPath: video) else { return }
        let t = Tools.tempDir()
        let d = t.appendingPathComponent("photos"), json = t.appendingPathComponent("compose.jsonl").path
        let r = try Tools.vf(
            "launch",
            "filesrc location=\(video) num-buffers=400 ! decodebin ! videoconvert ! compose metadata-location=\(json) ! capture crop=3:4 delay=0.3 cooldown=1 directory=\(d.path) ! fakesink",
            timeout: 300)
        #expect(r.code == 0, "\(r.err)")
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let recs = try Self.records(d)
        #expect(recs.count >= 1)
        let pts = recs.compactMap { $0["pts"] as? Int }
        #expect(Set(pts).count == pts.count, "a frame saved twice: \(pts)")
        for rec in recs {
            let apts = try #require(rec["analysisPts"] as? Int, "\(rec)")
            #expect(apts == rec["pts"] as? Int)
            let line = try #require(lines.first { $0["pts"] as? Int == apts }, "no analysis line for pts \(apts)")
            #expect(line["rule"] as? String == rec["rule"] as? String && line["advice"] as? String == rec["advice"] as? String)
            let m = try #require(line["measured"] as? [String: Double])
            let w = try #require(rec["cropWindow"] as? [String: Double])
            let s = try #require(rec["subject"] as? [String: Double])
            // Clipped to the crop and moved to its origin (JSON rounds to 0.01 px).
            let x0 = max((m["x"] ?? .nan), (w["x"] ?? .nan)),
                x1 = min((m["x"] ?? .nan) + (m["width"] ?? .nan), (w["x"] ?? .nan) + (w["width"] ?? .nan))
            let y0 = max((m["y"] ?? .nan), (w["y"] ?? .nan)),
                y1 = min((m["y"] ?? .nan) + (m["height"] ?? .nan), (w["y"] ?? .nan) + (w["height"] ?? .nan))
            #expect(
                abs((s["x"] ?? .nan) - (x0 - (w["x"] ?? .nan))) < 0.05 && abs((s["y"] ?? .nan) - (y0 - (w["y"] ?? .nan))) < 0.05,
                "\(s) vs \(m) in \(w)")
            #expect(abs((s["width"] ?? .nan) - (x1 - x0)) < 0.05 && abs((s["height"] ?? .nan) - (y1 - y0)) < 0.05, "\(s) vs \(m) in \(w)")
        }
    }

    @Test func killMinusNineWhileSavingNeverBreaksTheIndex() throws {
        let d = Tools.tempDir().appendingPathComponent("photos")
        var listed = 0
        for round in 0..<20 {
            let (p, o, e) = try Tools.start(
                Tools.viewfinder,
                [
                    "launch",
                    "videotestsrc is-live=true pattern=smpte ! video/x-raw,width=640,height=480,framerate=30/1 ! capture interval=0.1 crop=3:4 keep-full=true ring-ms=200 directory=\(d.path) ! fakesink",
                ])
            usleep(UInt32(700_000 + (round * 97_000) % 900_000))
            kill(p.processIdentifier, SIGKILL)
            _ = Tools.finish(p, o, e, timeout: 10)
            // Parses every time and lists only complete JPEGs that exist; nothing incomplete lies in DIR.
            if FileManager.default.fileExists(atPath: d.appendingPathComponent("records.json").path) {
                let recs = try Self.records(d)
                for rec in recs {
                    let f = try #require(rec["file"] as? String)
                    #expect(Self.isCompleteJPEG(d.appendingPathComponent(f).path), "round \(round): \(f) listed but not complete")
                }
                listed = recs.count
            }
            for f in Tools.files(in: d, suffix: ".jpg") {
                #expect(Self.isCompleteJPEG(d.appendingPathComponent(f).path), "round \(round): \(f) incomplete in the directory")
            }
        }
        #expect(listed >= 20, "only \(listed) photos listed after 20 runs")
        // A clean start reconciles: every photo on disk is listed.
        let r = try Tools.vf("launch", "videotestsrc num-buffers=1 ! capture auto=false directory=\(d.path) ! fakesink")
        #expect(r.code == 0, "\(r.err)")
        #expect(try Self.records(d).compactMap { $0["file"] as? String }.sorted() == Self.photos(d))
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.appendingPathComponent(".partial").path) == ["thumbs"])
    }

    @Test func aFullDiskStopsOnlyThePhotoBranch() throws {
        let d = Tools.tempDir()
        let photos = d.appendingPathComponent("photos"), rec = d.appendingPathComponent("rec.mp4")
        // ulimit -f: writes past 24 KiB fail with EFBIG, as on a full disk. Photos of the bars (~39 KB) are larger,
        // the 64x48 recording and the thumbnails are smaller.
        let cmd =
            "ulimit -f 24; exec \(Tools.viewfinder) launch 'videotestsrc pattern=smpte num-buffers=90 ! video/x-raw,width=640,height=480,framerate=30/1 ! capture interval=1 directory=\(photos.path) ! videoscale ! video/x-raw,width=64,height=48 ! videoconvert ! x264enc bitrate=32 ! mp4mux ! filesink location=\(rec.path)'"
        let r = try Tools.run("/bin/bash", ["-c", cmd], timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.err.contains(
                "ERROR from element capture0_snapshot_files in the 'capture0.snapshot' branch (stopped; the stream goes on; retrying in 5 s)"
            ), "\(r.err)")
        #expect(try Tools.ffprobeFrames(rec.path) == 90)
        #expect(Self.photos(photos).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: photos.appendingPathComponent("records.json").path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: photos.appendingPathComponent(".partial").path).filter { $0 != "thumbs" }
                .isEmpty)
    }

    @Test func selfTimerPhotoIsThreeSecondsAfterTheTriggerWithTheCountdownOnlyOnThePreview() throws {
        let d = Tools.tempDir()
        let photos = d.appendingPathComponent("photos"), preview = d.appendingPathComponent("preview")
        try FileManager.default.createDirectory(at: preview, withIntermediateDirectories: true)
        // Black frames; the trigger is frame 30 (1 s); every preview frame is kept as a JPEG.
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=black num-buffers=150 ! video/x-raw,width=320,height=240,framerate=30/1 ! capture auto=false at=30 timer=3 directory=\(photos.path) ! videoconvert ! jpegenc ! multifilesink location=\(preview.path)/%03d.jpg"
        )
        #expect(r.code == 0, "\(r.err)")
        let recs = try Self.records(photos)
        #expect(recs.count == 1)
        let pts = try #require(recs.first?["pts"] as? Int)
        #expect(abs(pts - 4_000_000_000) <= 33_333_334, "photo pts \(pts)")
        #expect(recs.first?["trigger"] as? String == "timer")
        func centreMax(_ file: String) throws -> Int {
            let img = try Tools.luma(of: file)
            var m = 0
            for y in (img.height / 3)..<(2 * img.height / 3) {
                for x in (img.width / 3)..<(2 * img.width / 3) { m = max(m, Int(img.pixels[y * img.width + x])) }
            }
            return m
        }
        #expect(try centreMax(preview.appendingPathComponent("010.jpg").path) < 40)
        for f in ["040.jpg", "070.jpg", "110.jpg"] {
            #expect(try centreMax(preview.appendingPathComponent(f).path) > 200, "no countdown in \(f)")
        }
        #expect(try centreMax(preview.appendingPathComponent("130.jpg").path) < 40)
        // The photo: black all over, no digit, no state label.
        let photo = try Tools.luma(of: photos.appendingPathComponent("IMG_00001.jpg").path)
        #expect(photo.width == 320 && photo.pixels.max()! < 30)
    }

    @Test func aFailedPhotoBranchIsStartedAgainAndNumberingGoesOn() throws {
        let d = Tools.tempDir().appendingPathComponent("photos")
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "launch",
                "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! capture interval=0.5 directory=\(d.path) ! fakesink",
            ])
        func listed() -> Int { (try? Self.records(d).count) ?? 0 }
        var deadline = Date().addingTimeInterval(20)
        while listed() < 1 && Date() < deadline { usleep(100_000) }
        // Pull the work area away: the next photo cannot be written, both branches stop.
        try FileManager.default.removeItem(at: d.appendingPathComponent(".partial"))
        usleep(1_500_000)
        try FileManager.default.createDirectory(at: d.appendingPathComponent(".partial/thumbs"), withIntermediateDirectories: true)
        let before = listed()
        deadline = Date().addingTimeInterval(25)
        while listed() < before + 2 && Date() < deadline { usleep(200_000) }
        kill(p.processIdentifier, SIGINT)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("branch (stopped; the stream goes on; retrying in 5 s)"), "\(r.err)")
        #expect(r.err.contains("the 'capture0.snapshot' branch was started again"), "\(r.err)")
        let recs = try Self.records(d)
        #expect(recs.count >= before + 2, "\(recs.count) photos after the restart, \(before) before")
        #expect(recs.compactMap { $0["file"] as? String }.sorted() == Self.photos(d))
        #expect(Set(recs.compactMap { $0["id"] as? Int }).count == recs.count)
        for f in Self.photos(d) { #expect(Self.isCompleteJPEG(d.appendingPathComponent(f).path)) }
    }

    /// opencv-doc's vtest.avi: a fixed camera with people walking through. The camera is judged stable
    /// after 10 frames and stays stable: the walkers are not camera motion.
    @Test func peopleWalkingPastAFixedCameraDoNotUnsettleIt() throws {
        let video = Tools.root.appendingPathComponent(".testdata/vtest.avi").path
        let d = Tools.tempDir()
        let r = try Tools.vf(
            "launch", "-m",
            "filesrc location=\(video) ! decodebin ! identity eos-after=150 ! videoconvert ! capture auto=false overlay=false directory=\(d.path)/p ! fakesink",
            timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        let states = r.out.split(separator: "\n").filter { $0.contains("event=state") }
            .compactMap { line in line.range(of: " state=").map { line[$0.upperBound...].prefix { $0.isLetter } } }
        #expect(states == ["waitingForStability", "detectingRegion"], "\(states)")
        #expect(
            r.out.contains(
                "capture0: viewfinder/capture event=state state=detectingRegion reason=\"steady; looking for a subject\" readiness=ready shots=0 pending=0 pts=1000000000"
            ), "\(r.out.prefix(600))")
    }

    @Test func anUnusableDirectoryIsAUsageError() throws {
        let d = Tools.tempDir()
        let file = d.appendingPathComponent("taken")
        FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))
        let r = try Tools.vf("launch", "videotestsrc num-buffers=5 ! capture directory=\(file.path)/photos ! fakesink")
        #expect(r.code == 2)
        #expect(r.err.contains("capture0") && r.err.contains("\(file.path)/photos"), "\(r.err)")
        let bad = try Tools.vf("launch", "videotestsrc num-buffers=5 ! capture crop=2:3 directory=\(d.path)/p ! fakesink")
        #expect(bad.code == 2 && bad.err.contains("2:3"), "\(bad.err)")
    }
}
