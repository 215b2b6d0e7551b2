import Foundation
import FrameAnalysis
import GStreamerKit
import StageTesting
import TestTags
import Testing

@testable import Host
@testable import Stages

/// The compose stage: in real pipelines (analysis results as JSON lines, bus messages and buffer meta
/// across elements) and, for what it draws, through `StageHarness`.
@Suite(.serialized, .tier) struct ComposeStageTests {
    static func tmp(_ name: String) -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-compose-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d.appendingPathComponent(name).path
    }

    /// A real photo prepared by launch/testdata (opencv-doc samples).
    static func photo(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".testdata/\(name)").path
        try #require(FileManager.default.fileExists(atPath: path), "run launch/testdata (opencv-doc samples)")
        return path
    }

    static func jsonLines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test(.tags(.live)) func salientBallIsFoundAndPublishedEverywhere() throws {
        let json = Self.tmp("compose.jsonl")
        // A white ball on black, still (pattern=ball moves; imagefreeze holds one frame).
        let s = try Session(
            description:
                "videotestsrc pattern=ball num-buffers=1 ! video/x-raw,width=640,height=360,framerate=30/1 ! imagefreeze is-live=true num-buffers=30 ! compose name=c engine=saliency warmup=0 analysis-fps=30 metadata-location=\(json) ! queue ! tee name=t ! queue ! videoconvert ! fakesink name=out t. ! queue ! fakesink"
        )
        let trace = try #require(s.element(named: "out")).traceMeta(ComposeStage.metaName, field: "width")
        #expect(s.run() == 0, "\(s.errors)")
        let lines = try Self.jsonLines(json)
        let analysed = try #require((s.stage(named: "c") as? ComposeStage)?.analysedFrames)
        #expect(lines.count == analysed)
        #expect(lines.count >= 1)
        // The ball of videotestsrc's first frame: centre around (320, 180) is not it; find where the white pixels are
        // by decoding the same frame: the ball starts at the top-left area for pattern=ball frame 0.
        let first = lines[0]
        let subject = try #require(first["subject"] as? [String: Double])
        #expect(first["engine"] as? String == "saliency")
        #expect((first["width"] as? Int) == 640 && (first["height"] as? Int) == 360)
        #expect(subject["width"]! > 10 && subject["width"]! < 320)
        // Messages: one per analysed frame, with the same box.
        let msgs = s.elementMessages.map(\.description).filter { $0.contains("viewfinder/composition") }
        #expect(msgs.count == lines.count)
        #expect(msgs[0].contains("engine=(string)saliency"))
        // Meta crosses queue, tee and videoconvert: the last buffers carry the box width.
        let widths = trace.seen.compactMap { $0 }
        #expect(!widths.isEmpty)
        #expect(abs(widths.last! - (lines.last!["subject"] as! [String: Double])["width"]!) < 0.5)
    }

    @Test func facesEngineOnBasketball1MatchesOpenCV() throws {
        let photo = try Self.photo("basketball1.png")
        let json = Self.tmp("faces.jsonl")
        let s = try Session(
            description:
                "filesrc location=\(photo) ! decodebin ! videoconvert ! imagefreeze num-buffers=5 ! compose engine=faces warmup=0 analysis-width=640 metadata-location=\(json) ! fakesink"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let lines = try Self.jsonLines(json)
        #expect(!lines.isEmpty)
        // OpenCV 4.6 CascadeClassifier(haarcascade_frontalface_default) scale 1.1, 5 neighbours, 24 px on the same
        // photo (Tests/FrameAnalysisTests/Fixtures/opencv_faces.json): one face at (72, 91) 39x39.
        let opencv = Box(x: 72, y: 91, width: 39, height: 39)
        for line in lines {
            let faces = try #require(line["faces"] as? [[String: Double]])
            #expect(faces.count == 1)
            let f = faces[0]
            #expect(Box(x: f["x"]!, y: f["y"]!, width: f["width"]!, height: f["height"]!).iou(opencv) >= 0.8)
            #expect(line["engine"] as? String == "faces")
        }
    }

    /// `engine=people`, and `engine=auto` (no face there: its chain falls through to people), on a vtest.avi frame
    /// (40 s: launch/testdata's people/0401.jpg, 768x576): the subject is a walker found by OpenCV's HOG people
    /// detector (the three men annotated in PeopleEngineTests), no face. `auto` with `fallbacks=all`: every frame
    /// judged alone (staggered, HOG's search completes at the 11th face-less analysis: FallbackRotationTests).
    @Test(arguments: ["people", "auto fallbacks=all"]) func peopleEngineMakesAWalkerTheSubject(engine: String) throws {
        let photo = try Self.photo("people/0401.jpg")
        let json = Self.tmp("people.jsonl")
        let s = try Session(
            description:
                "filesrc location=\(photo) ! jpegdec ! videoconvert ! imagefreeze num-buffers=3 ! compose engine=\(engine) warmup=0 metadata-location=\(json) ! fakesink"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let lines = try Self.jsonLines(json)
        #expect(!lines.isEmpty)
        let walkers = [
            Box(x: 272, y: 200, width: 30, height: 86), Box(x: 589, y: 140, width: 28, height: 64),
            Box(x: 686, y: 300, width: 58, height: 112),
        ]
        for line in lines {
            #expect(line["engine"] as? String == "people")
            #expect(line["width"] as? Int == 768 && line["height"] as? Int == 576)
            #expect((line["faces"] as? [Any])?.isEmpty == true)
            let m = try #require(line["measured"] as? [String: Double], "\(line)")
            let box = Box(x: m["x"]!, y: m["y"]!, width: m["width"]!, height: m["height"]!)
            // The subject box holds a walker (or a group of them) and is not most of the frame.
            let held = walkers.filter { w in
                let ix = max(0, min(w.x + w.width, box.x + box.width) - max(w.x, box.x))
                let iy = max(0, min(w.y + w.height, box.y + box.height) - max(w.y, box.y))
                return ix * iy >= 0.5 * w.area
            }
            #expect(!held.isEmpty && box.area < 0.25 * 768 * 576, "\(box) \(line["subject_kind"] ?? "")")
            #expect(["full-body", "group"].contains(line["subject_kind"] as? String ?? ""), "\(line)")
        }
    }

    /// `engine=auto`'s chain: [cnn when installed,] faces, people (HOG), the upper-body cascade alone, saliency.
    @Test func autoChainPutsPeopleBeforeTheUpperBodyCascade() throws {
        let engines = try ComposeEngines.make(.auto, minFace: 24, faces: .init(), stage: "c")
        #expect(engines.map(\.name).filter { $0 != "cnn" } == ["faces", "people", "bodies", "saliency"])
        let bodies = try #require(engines.compactMap { $0 as? BodyEngine }.first)
        #expect(!bodies.fullBody)
        #expect(try ComposeEngines.make(.people, minFace: 24, faces: .init(), stage: "c").map(\.name) == ["people"])
        let cascades = try ComposeEngines.make(.bodies, minFace: 24, faces: .init(), stage: "c")
        #expect(cascades.compactMap { ($0 as? BodyEngine)?.fullBody } == [true])
    }

    /// `rule=exposure` on a real photo: each JSON line carries the exposure figures of the face.
    @Test func exposureFiguresReachTheJSONLines() throws {
        let photo = try Self.photo("astronaut.png")
        let json = Self.tmp("exposure.jsonl")
        let s = try Session(
            description:
                "filesrc location=\(photo) ! decodebin ! videoconvert ! imagefreeze num-buffers=3 ! videoconvert ! compose engine=faces rule=exposure warmup=0 metadata-location=\(json) ! fakesink"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let lines = try Self.jsonLines(json)
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line["rule"] as? String == "exposure" && line["advice"] as? String == "the subject is well exposed")
            let e = try #require(line["exposure"] as? [String: Double], "\(line)")
            // The face measures luma 156, +0.39 stops, 0.9 % of the frame clipped when boxed by hand.
            #expect(try #require(e["subject_luma"]) > 135 && e["subject_luma"]! < 170, "\(e)")
            #expect(try #require(e["background_luma"]) > 100 && e["background_luma"]! < 125, "\(e)")
            #expect(try #require(e["stops"]) > -0.2 && e["stops"]! < 0.9, "\(e)")
            #expect(try #require(e["clipped"]) < 0.02, "\(e)")
        }
    }

    /// Whether launch/fetch-yuface installed the cnn engine's library.
    static let cnnInstalled = FileManager.default.fileExists(atPath: CNNFaceEngine.libraryPath(in: CNNFaceEngine.defaultDirectory))

    @Test(.enabled(if: cnnInstalled, "libfacedetection is not installed: run launch/fetch-yuface"))
    func cnnEngineCarriesTheEyesInTheMeta() throws {
        let photo = try Self.photo("astronaut.png")
        let s = try Session(
            description:
                "filesrc location=\(photo) ! decodebin ! videoconvert ! imagefreeze num-buffers=5 ! video/x-raw,framerate=30/1 ! compose engine=cnn sync=true warmup=0 analysis-fps=30 analysis-width=256 overlay=false ! queue ! videoconvert ! fakesink name=out"
        )
        let out = try #require(s.element(named: "out"))
        let left = out.traceMeta(ComposeStage.metaName, field: "eye-left-x")
        let right = out.traceMeta(ComposeStage.metaName, field: "eye-right-y")
        #expect(s.run() == 0, "\(s.errors)")
        // Analysed at 256 px wide, reported in the 512 px input's pixels: pupils located by eye at (204, 101), (246, 103).
        let lx = left.seen.compactMap { $0 }, ry = right.seen.compactMap { $0 }
        #expect(!lx.isEmpty && !ry.isEmpty)
        #expect(abs((lx.last ?? 0) - 204) < 8 && abs((ry.last ?? 0) - 103) < 8, "\(lx) \(ry)")
    }

    @Test func upstreamEngineUsesFacedetectResults() throws {
        let photo = try Self.photo("basketball1.png")
        let json = Self.tmp("upstream.jsonl")
        let s = try Session(
            description:
                "filesrc location=\(photo) ! decodebin ! videoconvert ! imagefreeze num-buffers=4 ! videoconvert ! facedetect scale-factor=1.1 min-neighbors=5 min-size-width=24 min-size-height=24 display=false ! videoconvert ! compose engine=upstream warmup=0 metadata-location=\(json) ! fakesink"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let lines = try Self.jsonLines(json)
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line["engine"] as? String == "upstream")
            let faces = try #require(line["faces"] as? [[String: Double]])
            // facedetect's own box (OpenCV 4.6, same cascade): 72,91 39x39.
            #expect(faces.map { [$0["x"]!, $0["y"]!, $0["width"]!, $0["height"]!] } == [[72, 91, 39, 39]])
        }
    }

    /// The luma rows of `frames`, one after the other (what `videoconvert ! video/x-raw,format=GRAY8` wrote).
    static func gray(_ frames: [VideoFrame]) throws -> [UInt8] {
        try frames.flatMap { f in
            let p = try f.planeBytes(plane: 0)
            return (0..<p.rows).flatMap { p.bytes[($0 * p.rowBytes)..<($0 * p.rowBytes + f.info.width)] }
        }
    }

    @Test func overlayFalseLeavesPixelsUntouched() throws {
        let h = try StageHarness("compose engine=saliency overlay=false warmup=0", info: VideoInfo(format: "I420", width: 320, height: 180))
        let bytes = try Self.gray(try h.push(count: 5))
        #expect(bytes.count == 320 * 180 * 5)
        #expect(bytes.allSatisfy { $0 <= 17 })
    }

    @Test func overlayDrawsTheRuleGrid() throws {
        let h = try StageHarness(
            "compose engine=saliency rule=thirds grid=auto warmup=100", info: VideoInfo(format: "I420", width: 640, height: 360))
        let bytes = try Self.gray([try h.push()])
        // Before any analysis, the rule's grid is drawn: the thirds column x = 213 is lit, x = 320 is not.
        let col = { (x: Int) in (0..<360).map { Int(bytes[$0 * 640 + x]) }.reduce(0, +) / 360 }
        #expect(col(213) > 60)
        #expect(col(320) < 30)
    }

    @Test func defaultMarksTheRulePointsOnly() throws {
        let h = try StageHarness("compose engine=saliency rule=thirds warmup=100", info: VideoInfo(format: "I420", width: 640, height: 360))
        let px = try Self.gray([try h.push()])
        let at = { (x: Int, y: Int) in Int(px[y * 640 + x]) }
        // A cross at each thirds intersection (213, 120), (426, 240)...; no line between them.
        #expect(at(213, 120) > 100 && at(426, 240) > 100 && at(426, 120) > 100 && at(213, 240) > 100)
        #expect(at(213, 180) < 30)  // half-way down the would-be line
        #expect(at(320, 120) < 30)
    }

    @Test func metricSamplesCountAnalysesTheirRateAndTheGuidanceAge() throws {
        // sync=true: every due frame is judged on the video thread, so the figures are exact. 30 frames at 30 fps,
        // analysis-fps=10: frames 0, 3, ... 27 are judged.
        let h = try StageHarness(
            "compose engine=saliency sync=true overlay=false warmup=0 analysis-fps=10", info: VideoInfo(format: "I420", width: 320, height: 180))
        let compose = try #require(h.stage(ComposeStage.self))
        #expect(compose.metricSamples.map(\.name) == ["viewfinder_analyses_total"])
        try h.push(count: 30)
        let byName = Dictionary(compose.metricSamples.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let total = try #require(byName["viewfinder_analyses_total"])
        #expect(total.kind == .counter && total.value == 10 && compose.analysedFrames == 10)
        let d = Double(h.frameDuration) / 1e9
        // The newest frame is 29, the latest judged 27.
        #expect(byName["viewfinder_guidance_age_seconds"]?.value == Double(2 * h.frameDuration) / 1e9)
        // Over the 29 frame durations since the first frame: the 9 analyses after it (3, 6, ... 27).
        let rate = try #require(byName["viewfinder_analyses_per_second"]?.value)
        #expect(abs(rate - 9 / (29 * d)) < 1e-9, "\(rate)")
        #expect(byName.values.allSatisfy { $0.labels.isEmpty })
    }

    /// A real group photo (multi_face, five labelled faces) panned 9 px a frame through compose (face cascades, every
    /// frame analysed): each labelled face found keeps one track id in every message, JSON line and meta, the ids
    /// differ, and the subject's id is one of them.
    @Test(.tags(.evaluation)) func eachFaceOfAPannedGroupKeepsItsTrackId() throws {
        let (info, bytes, faces, _) = try RedactStageTests.photo()
        let json = Self.tmp("ids.jsonl")
        let h = try StageHarness(
            kind: "compose",
            properties: [
                ("engine", "faces"), ("sync", "true"), ("warmup", "0"), ("analysis-fps", "30"), ("overlay", "false"),
                ("analysis-width", "640"), ("metadata-location", json),
            ], info: info)
        try h.open()
        let step = 9, frames = 12
        var metas: [CompositionMeta.Analysis] = []
        for k in 0..<frames {
            let out = try h.push(Self.shifted(bytes, info, dx: step * k))
            if let a = CompositionMeta(frame: out)?.analysis { metas.append(a) }
        }
        h.close()
        let posted = h.messages(CompositionMessage.self)
        #expect(posted.count == frames)
        // Each labelled face (moved with the picture) -> the ids of the faces found on it, message by message.
        var idsOf = [Set<Int>](repeating: [], count: faces.count), seen = [Int](repeating: 0, count: faces.count)
        for m in posted {
            #expect(m.faceIDs.count == m.faces.count && Set(m.faceIDs).count == m.faceIDs.count, "\(m.faceIDs)")
            if let s = m.subjectID { #expect(m.faceIDs.contains(s)) }
            for (i, f) in faces.enumerated() {
                let moved = Box(x: f.x + Double(step * m.frame), y: f.y, width: f.width, height: f.height)
                guard let j = m.faces.indices.max(by: { m.faces[$0].iou(moved) < m.faces[$1].iou(moved) }), m.faces[j].iou(moved) > 0.3
                else { continue }
                idsOf[i].insert(m.faceIDs[j]); seen[i] += 1
            }
        }
        // The cascades find four of the five (the fifth, smallest, on no frame): those on nearly every frame.
        let found = seen.indices.filter { seen[$0] > 0 }
        #expect(found.count >= 4 && found.allSatisfy { seen[$0] >= frames - 2 }, "frames each labelled face was found on: \(seen)")
        #expect(found.allSatisfy { idsOf[$0].count == 1 }, "ids per labelled face: \(idsOf)")
        #expect(Set(idsOf.flatMap { $0 }).count == found.count)
        // The JSON lines and the meta say the same as the messages.
        let lines = try Self.jsonLines(json)
        #expect(lines.count == frames)
        for (line, m) in zip(lines, posted) {
            let ids = (line["faces"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            #expect(ids == m.faceIDs)
            #expect((line["subject_id"] as? Int) == m.subjectID)
        }
        #expect(metas.count == frames && metas.last?.faceIDs == posted.last?.faceIDs && metas.last?.subjectID == posted.last?.subjectID)
    }

    /// `bytes` (I420 of `info`) moved `dx` (even) pixels to the right, the strip uncovered grey.
    static func shifted(_ bytes: [UInt8], _ info: VideoInfo, dx: Int) -> [UInt8] {
        var out = [UInt8](repeating: 128, count: bytes.count)
        for plane in 0..<3 {
            let w = plane == 0 ? info.width : info.width / 2, h = plane == 0 ? info.height : info.height / 2
            let d = plane == 0 ? dx : dx / 2, stride = info.stride(plane: plane), offset = info.offset(plane: plane)
            for y in 0..<h where d < w {
                let row = offset + y * stride
                out[(row + d)..<(row + w)] = bytes[row..<(row + w - d)]
            }
        }
        return out
    }

    @Test func badPropertiesAreRejected() {
        #expect(throws: HostError.self) { try Session(description: "videotestsrc ! compose rule=spiral ! fakesink") }
        #expect(throws: HostError.self) { try Session(description: "videotestsrc ! compose analysis-width=10 ! fakesink") }
        #expect(throws: HostError.self) {
            try Session(description: "videotestsrc ! compose metadata-location=/no/such/dir/x.jsonl ! fakesink")
        }
    }
}
