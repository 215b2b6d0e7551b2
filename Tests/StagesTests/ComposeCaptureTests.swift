import Foundation
import FrameAnalysis
import GStreamerKit
import StageTesting
import Stages
import Testing

/// compose ! capture as a fused group runs them: both stages on the same frame, one after the other.
/// Photos must carry their own frame's analysis, and the two stages' texts must not overlap.
@Suite(.serialized) struct ComposeCaptureTests {
    static let frameNs: UInt64 = 33_333_333

    /// BGRA bytes: black, with a white disc of radius `r` centred at (cx, cy).
    static func ball(_ info: VideoInfo, cx: Int, cy: Int, r: Int = 20) -> [UInt8] {
        let stride = info.stride(plane: 0)
        var b = [UInt8](repeating: 0, count: stride * info.height)
        for y in 0..<info.height {
            for x in 0..<info.width {
                b[y * stride + x * 4 + 3] = 255
                if (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r { for c in 0..<3 { b[y * stride + x * 4 + c] = 255 } }
            }
        }
        return b
    }

    /// Where the ball is in frame i: fast across the frame (22 px a frame), bouncing, and a little down.
    static func position(_ i: Int, width: Int) -> (Int, Int) {
        let span = width - 60, t = (22 * i) % (2 * span)
        return (30 + (t < span ? t : 2 * span - t), 60 + (i % 40) * 3)
    }

    /// The centroid of the bright pixels of a photo file, decoded by GStreamer.
    static func brightCentroid(_ path: String, width: Int, height: Int) throws -> (x: Double, y: Double, count: Int) {
        let d = try ImageFile.decodeBGRA(path, width: width, height: height)
        var sx = 0.0, sy = 0.0, n = 0
        for y in 0..<height {
            for x in 0..<width where d.pixels[y * d.stride + x * 4 + 1] > 128 { sx += Double(x); sy += Double(y); n += 1 }
        }
        return (n > 0 ? sx / Double(n) : -1, n > 0 ? sy / Double(n) : -1, n)
    }

    /// The advice's rule prefix ("golden: hold") names the record's rule, or one of the checks that may
    /// override the advice (edges, horizon); never another placement rule.
    static func agrees(rule: String?, advice: String?) -> Bool {
        guard let rule, let advice else { return rule == nil && advice == nil }
        guard let colon = advice.firstIndex(of: ":") else { return true }
        let named = String(advice[..<colon])
        return named == rule || named == "edges" || named == "horizon" || !RuleRegistry.names.contains(named)
    }

    /// (a) A fast ball, compose analysing on its own thread (results arrive with later frames, as live),
    /// captures at several positions, 3:4 crop: every photo's box holds the ball in the saved pixels.
    @Test(arguments: [false, true])
    func everyPhotosSubjectBoxHoldsTheBallInTheSavedPixels(synchronous: Bool) throws {
        let info = try VideoInfo(format: "BGRA", width: 320, height: 240, fpsN: 30, fpsD: 1)
        let dir = NSTemporaryDirectory() + "vf-composecapture-\(UUID().uuidString)"
        // The snapshot branch writes what it is given as a JPEG (GStreamer's jpegenc, through ImageFile)
        // and reports it the way multifilesink does.
        let h = try StageHarness(
            "compose name=c engine=saliency warmup=0 analysis-fps=6 analysis-width=160 sync=\(synchronous) overlay=false"
                + " ! capture name=cap directory=\(dir) auto=false at=24,37,50,63,76 crop=3:4 thumbnails=false overlay=false", info: info)
        let capture = try #require(h.stage(CaptureStage.self))
        h.planOutputs(defaultBranches: ["snapshot"], stage: "cap")
        try #require(h.writeFiles(on: "snapshot", content: .jpeg(quality: 92)) != nil)
        try h.open()
        for i in 0..<90 {
            let (cx, cy) = Self.position(i, width: info.width)
            try h.push(Self.ball(info, cx: cx, cy: cy))
            // Each analysis ends before the next frame: its result travels on the next frame's meta.
            h.finish(stage: "c")
        }
        h.close()
        let records = capture.records
        #expect(records.count == 5, "\(h.messages.map(\.description))")
        for r in records {
            let file = dir + "/" + r.file
            let c = try Self.brightCentroid(file, width: r.width, height: r.height)
            #expect(c.count > 500, "\(r.file): the ball is in the photo (\(c.count) bright pixels)")
            let s = try #require(r.subject, "\(r.file) has no subject box")
            #expect(
                c.x >= s.x && c.x <= s.x + s.width && c.y >= s.y && c.y <= s.y + s.height,
                "\(r.file): box \(s) misses the ball at (\(c.x), \(c.y))")
            #expect(
                s.x >= 0 && s.y >= 0 && s.x + s.width <= Double(r.width) + 0.5 && s.y + s.height <= Double(r.height) + 0.5,
                "box inside the photo")
            // The analysis is the photo's own frame's.
            #expect(
                r.analysisPts != nil && r.analysisPts == r.pts,
                "\(r.file): analysed \(r.analysisPts.map(String.init) ?? "-"), photo \(r.pts.map(String.init) ?? "-")")
            #expect(Self.agrees(rule: r.rule, advice: r.advice), "\(r.file): rule \(r.rule ?? "-") vs advice \(r.advice ?? "-")")
            #expect(r.width == 180 && r.height == 240)
        }
        #expect(capture.summary() == "cap: 5 photos saved in \(dir)")
    }

    /// A real portrait (scikit-image's astronaut) through compose (face cascades) and capture: every photo's record
    /// carries the subject's track id, the same one in each (one face, followed the whole time), and it is the id
    /// compose's messages gave that face.
    @Test func eachPhotoRecordsTheSubjectsTrackId() throws {
        let info = try VideoInfo(format: "BGRA", width: 512, height: 512, fpsN: 30, fpsD: 1)
        let dir = NSTemporaryDirectory() + "vf-ids-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let h = try StageHarness(
            "compose name=c engine=faces warmup=0 analysis-fps=10 sync=true overlay=false"
                + " ! capture name=cap directory=\(dir) auto=false at=3,9 thumbnails=false overlay=false", info: info)
        let capture = try #require(h.stage(CaptureStage.self))
        h.planOutputs(defaultBranches: ["snapshot"], stage: "cap")
        try #require(h.writeFiles(on: "snapshot", content: .jpeg(quality: 85)) != nil)
        try h.open()
        var bytes = try CompositionMessageTests.astronaut(stops: 0)
        for i in stride(from: 0, to: bytes.count, by: 4) { bytes.swapAt(i, i + 2) }
        for _ in 0..<12 { try h.push(bytes) }
        h.close()
        let ids = Set(h.messages(CompositionMessage.self).compactMap(\.subjectID))
        #expect(ids.count == 1, "the subject's ids in compose's messages: \(ids)")
        let records = capture.records
        #expect(records.count == 2, "\(h.messages.map(\.description))")
        #expect(records.allSatisfy { $0.subjectID != nil && $0.subjectID == ids.first }, "\(records.map(\.subjectID))")
        // And in records.json, as written.
        let text = try String(contentsOfFile: dir + "/records.json", encoding: .utf8)
        #expect(text.contains("\"subjectID\" : \(ids.first ?? -1)") || text.contains("\"subjectID\":\(ids.first ?? -1)"), "\(text.prefix(400))")
    }

    /// 13: compose's score and advice and capture's state line and countdown on one frame, at several
    /// sizes: no two texts overlap, all inside the frame, each really drawn.
    @Test(arguments: [(320, 240), (640, 480), (1280, 720), (1920, 1080)])
    func composeAndCaptureTextsNeverOverlap(size: (Int, Int)) throws {
        let info = try VideoInfo(format: "BGRA", width: size.0, height: size.1, fpsN: 30, fpsD: 1)
        let h = try StageHarness(
            "compose name=c engine=saliency warmup=0 sync=true grid=none"
                + " ! capture name=cap directory=\(NSTemporaryDirectory())vf-layout-\(UUID().uuidString) auto=false timer=3", info: info)
        h.keepsUnblendedPixels = true
        var last: VideoFrame?
        for i in 0..<3 {
            if i == 1 { h.fireTrigger() }
            last = try h.push(Self.ball(info, cx: info.width / 5, cy: info.height / 2, r: info.height / 12), pts: UInt64(i) * Self.frameNs)
        }
        let frame = try #require(last)
        let boxes = frame.textBoxes
        // The score block, the advice, the state line and the countdown digit.
        #expect(boxes.count == 4, "\(boxes)")
        for (i, a) in boxes.enumerated() {
            #expect(
                a.width > 0 && a.height > 0 && a.x >= 0 && a.y >= 0 && a.x + a.width <= size.0 && a.y + a.height <= size.1,
                "\(a) outside \(size)")
            for b in boxes[(i + 1)...] {
                let overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
                #expect(!overlap, "\(a) overlaps \(b) at \(size)")
            }
        }
        // Drawn where they say: the background is black, each box gets light pixels (text or backdrop edge).
        let before = (bytes: try #require(h.unblendedPixels(ofFrame: frame.index)), rowBytes: frame.info.stride(plane: 0))
        let after = try frame.planeBytes(plane: 0)
        for a in boxes {
            var changed = 0
            for y in a.y..<(a.y + a.height) {
                for x in a.x..<(a.x + a.width)
                where after.bytes[y * after.rowBytes + x * 4 + 1] > 150 && before.bytes[y * before.rowBytes + x * 4 + 1] < 100 {
                    changed += 1
                }
            }
            #expect(changed > 10, "nothing drawn in \(a) at \(size)")
        }
    }

    /// A group photo made of real faces, as BGRA 640x480: no photo in opencv-data, opencv-doc or
    /// scikit-image shows a group, so three real portraits of launch/testdata (basketball1, messi5,
    /// astronaut, their faces at OpenCV's boxes) are decoded by GStreamer scaled so every face is 48 px,
    /// cut around the face (106 x 144: 2.2 faces wide, the face's top 0.6 face below the tile's top) and
    /// set side by side on grey, the middle face's centre at (400, 235). Returns the pixels and the faces.
    static func groupPhoto(_ info: VideoInfo) throws -> (bgra: [UInt8], faces: [Box]) {
        let sources: [(String, Int, Int, Box)] = [
            ("basketball1.png", 640, 480, Box(x: 72, y: 91, width: 39, height: 39)),
            ("messi5.jpg", 548, 342, Box(x: 227, y: 94, width: 37, height: 37)),
            ("astronaut.png", 512, 512, Box(x: 177, y: 66, width: 95, height: 95)),
        ]
        let stride = info.stride(plane: 0), face = 48.0, tileW = 106, tileH = 144
        var out = [UInt8](repeating: 128, count: stride * info.height)
        for y in 0..<info.height { for x in 0..<info.width { out[y * stride + x * 4 + 3] = 255 } }
        var faces: [Box] = []
        for (k, (name, w, h, f)) in sources.enumerated() {
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".testdata/\(name)").path
            try #require(FileManager.default.fileExists(atPath: path), "run launch/testdata (opencv-doc, scikit-image samples)")
            let scale = face / f.width
            let sw = Int((Double(w) * scale).rounded()), sh = Int((Double(h) * scale).rounded())
            let src = try ImageFile.decodeBGRA(path, width: sw, height: sh)
            let ox = 400 + (k - 1) * tileW - tileW / 2, oy = 235 - Int(face / 2 + 0.6 * face)
            let sx0 = Int(((f.x + f.width / 2) * scale).rounded()) - tileW / 2, sy0 = Int((f.y * scale - 0.6 * face).rounded())
            for ty in 0..<tileH {
                for tx in 0..<tileW {
                    let sx = sx0 + tx, sy = sy0 + ty
                    guard sx >= 0, sx < sw, sy >= 0, sy < sh else { continue }
                    for c in 0..<4 { out[(oy + ty) * stride + (ox + tx) * 4 + c] = src.pixels[sy * src.stride + sx * 4 + c] }
                }
            }
            faces.append(Box(x: Double(ox + tileW / 2) - face / 2, y: Double(oy) + 0.6 * face, width: face, height: face))
        }
        return (out, faces)
    }

    /// Issue 13, groups: three real faces side by side, compose engine=faces ! capture crop=3:4. The subject
    /// is the group, so the photo's 3:4 window (360 of 640 wide) holds all three faces, with half a face
    /// above them, and the record's subject box is the whole group, uncut, in the photo's pixels.
    @Test func aGroupPhotoCroppedTo3By4KeepsEveryFace() throws {
        let info = try VideoInfo(format: "BGRA", width: 640, height: 480, fpsN: 30, fpsD: 1)
        let (frame, faces) = try Self.groupPhoto(info)
        let dir = NSTemporaryDirectory() + "vf-composecapture-group-\(UUID().uuidString)"
        let json = NSTemporaryDirectory() + "vf-composecapture-group-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: json) }
        let h = try StageHarness(
            "compose name=c engine=faces rule=thirds warmup=0 analysis-fps=6 analysis-width=640 overlay=false metadata-location=\(json)"
                + " ! capture name=cap directory=\(dir) auto=false at=20 crop=3:4 thumbnails=false overlay=false", info: info)
        let capture = try #require(h.stage(CaptureStage.self))
        h.planOutputs(defaultBranches: ["snapshot"], stage: "cap")
        try #require(h.writeFiles(on: "snapshot", content: .jpeg(quality: 92)) != nil)
        try h.open()
        for _ in 0..<30 {
            try h.push(frame)
            h.finish(stage: "c")
        }
        h.close()
        let r = try #require(capture.records.first, "\(h.messages.map(\.description))")
        #expect(r.width == 360 && r.height == 480 && r.crop == "3:4")
        let w = try #require(r.cropWindow)
        for f in faces {
            #expect(w.x <= f.x && f.x + f.width <= w.x + w.width, "face \(f) cut by the window \(w)")
            #expect(w.y <= f.y - 0.5 * f.height && f.y + f.height <= w.y + w.height, "face \(f) without headroom in \(w)")
        }
        // The subject box in the photo is the group: from the left face to the right one, not clipped.
        let s = try #require(r.subject)
        #expect(s.x > 0 && s.x + s.width < 360, "\(s)")
        #expect(abs(s.x + w.x - faces[0].x) < 12 && abs(s.x + w.x + s.width - (faces[2].x + faces[2].width)) < 12, "\(s) in \(w)")
        // compose's JSON lines name the subject a group and list its three faces.
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count >= 4)
        for line in lines {
            #expect(line["subject_kind"] as? String == "group" && line["advice"] as? String == "move the subject up", "\(line)")
            let group = try #require(line["group"] as? [[String: Double]])
            #expect(group.count == 3)
            for f in faces {
                #expect(group.contains { Box(x: $0["x"]!, y: $0["y"]!, width: $0["width"]!, height: $0["height"]!).iou(f) >= 0.5 })
            }
        }
    }
}
