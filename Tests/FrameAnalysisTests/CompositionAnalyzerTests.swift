import TestTags
import Testing

@testable import FrameAnalysis

@Suite(.tier) struct CompositionAnalyzerTests {
    /// An engine that returns fixed detections.
    struct StubEngine: DetectionEngine {
        let name: String
        var detections: [Detection]
        func detect(in image: RGBImage) -> [Detection] { detections }
    }

    static let frame = CompositionTestFrames.rgb(CompositionTestFrames.texture(width: 320, height: 180))
    static let face = Detection(box: Box(x: 90, y: 40, width: 32, height: 40), confidence: 0.9, kind: .face)
    static let body = Detection(box: Box(x: 200, y: 30, width: 60, height: 140), confidence: 0.6, kind: .upperBody)

    @Test func autoUsesTheFirstEngineThatFindsSomething() {
        let faces = StubEngine(name: "faces", detections: []), bodies = StubEngine(name: "bodies", detections: [Self.body])
        let g = CompositionAnalyzer(engines: [faces, bodies]).analyze(Self.frame)
        #expect(g.engine == "bodies" && g.subject == Self.body && g.detections == [Self.body])
        let g2 = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [Self.face]), bodies]).analyze(Self.frame)
        #expect(g2.engine == "faces" && g2.subject == Self.face)
    }

    @Test func autoFallsBackToSaliency() {
        var g = CompositionTestFrames.texture(width: 320, height: 180)
        CompositionTestFrames.disc(&g, cx: 240, cy: 120, r: 14, value: 250)
        let out = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [])]).analyze(CompositionTestFrames.rgb(g))
        #expect(out.engine == "saliency" && out.subject?.kind == .salient)
        let c = try! #require(out.subject?.box.center)
        #expect(abs(c.x - 240) < 10 && abs(c.y - 120) < 10)
        #expect(CompositionAnalyzer(engines: []).chain.map(\.name) == ["saliency"])
    }

    @Test func namedEngineRunsAlone() {
        let a = CompositionAnalyzer(
            engines: [
                StubEngine(name: "faces", detections: [Self.face]),
                StubEngine(name: "bodies", detections: [Self.body]),
            ], engine: "bodies")
        #expect(a.analyze(Self.frame).engine == "bodies")
        #expect(CompositionAnalyzer(engines: [], engine: "faces").analyze(Self.frame).subject == nil)
    }

    @Test func guidanceCarriesTheRuleVerdictAndBoxes() {
        let a = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [Self.face])], rule: ThirdsRule())
        let g = a.analyze(Self.frame, pts: 123)
        // Face centre (106, 60) -> (0.33125, 0.3333): on the thirds point.
        #expect(g.pts == 123 && g.rule == "thirds" && g.wellComposed && g.score > 0.99)
        #expect(g.subjectNormalized == Box(x: 90.0 / 320, y: 40.0 / 180, width: 0.1, height: 40.0 / 180))
        #expect(g.subjectBox(width: 1280, height: 720) == Box(x: 360, y: 160, width: 128, height: 160))
        #expect(g.target == Point2D(x: 1.0 / 3, y: 1.0 / 3))
        #expect(g.timings.map(\.step) == ["luma", "detect", "select", "rule"])
        #expect(g.timings.allSatisfy { $0.ms >= 0 })
    }

    @Test func picksTheBestCandidate() {
        let tiny = Detection(box: Box(x: 300, y: 5, width: 8, height: 8), confidence: 1, kind: .face)
        let g = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [tiny, Self.face])]).analyze(Self.frame)
        #expect(g.subject == Self.face && g.detections.count == 2)
    }

    @Test func noSubjectAnywhere() {
        let flat = RGBImage(width: 320, height: 180, pixels: [UInt8](repeating: 90, count: 320 * 180 * 3))
        let g = CompositionAnalyzer(engines: []).analyze(flat)
        #expect(g.subject == nil && g.engine == nil && g.score == 0 && !g.wellComposed && g.advice == "looking for a subject")
    }

    @Test func streamWithSmootherLocksAfterOneSecond() {
        // The subject drifts by ±2 px around the thirds point at 10 analyses per second.
        var smoother = GuidanceSmoother()
        var out: [Guidance] = []
        for i in 0..<15 {
            var face = Self.face
            face.box.x += i % 2 == 0 ? 2 : -2
            let a = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [face])], rule: ThirdsRule())
            out.append(a.analyze(Self.frame, pts: UInt64(i) * 100_000_000, smoother: &smoother))
        }
        #expect(out.allSatisfy { $0.wellComposed })
        #expect(out.map(\.locked) == Array(repeating: false, count: 10) + Array(repeating: true, count: 5))
        #expect(out[1].timings.map(\.step) == ["luma", "detect", "select", "smooth", "rule"])
        // Smoothed: the ±2 px jitter is damped (EWMA 0.4 -> at most ±1.2 px after the first analysis).
        #expect(out.dropFirst(3).allSatisfy { abs($0.subject!.box.x - 90) <= 1.3 })
    }

    /// A rule that reports what it was given.
    struct EchoRule: CompositionRule {
        let name = "echo"
        func evaluate(_ input: RuleInput) -> RuleResult {
            let c = input.subjectCenter ?? Point2D(x: -1, y: -1)
            var d = ["centerX": c.x, "centerY": c.y, "members": Double(input.members.count)]
            for (i, m) in input.members.enumerated() { d["member\(i).x"] = m.x; d["member\(i).width"] = m.width }
            if let e = input.eyes { (d["eyeLeftX"], d["eyeLeftY"], d["eyeRightX"]) = (e.left.x, e.left.y, e.right.x) }
            if let l = input.look { d["look"] = l }
            if input.kind == .face { d["face"] = 1 }
            return RuleResult(rule: name, score: 0.5, wellComposed: false, target: nil, direction: .zero, advice: "", adviceKey: "echo", details: d)
        }
    }

    /// A group's rules see its size-weighted centre (not the middle of the union) and its members, normalised.
    @Test func rulesSeeTheGroupsWeightedCentreAndMembers() throws {
        // Two faces of 40 and 60 px, 30 px apart, in 320x180: union 40...170; weighted centre
        // (1600 * 60 + 3600 * 140) / 5200 = 115.38 (the union's middle is 105).
        let small = Detection(box: Box(x: 40, y: 60, width: 40, height: 40), confidence: 0.8, kind: .face)
        let big = Detection(box: Box(x: 110, y: 50, width: 60, height: 60), confidence: 0.8, kind: .face)
        let g = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [small, big])], rule: EchoRule()).analyze(Self.frame)
        #expect(g.subject?.kind == .group && g.subject?.box == Box(x: 40, y: 50, width: 130, height: 60))
        #expect(g.detections == [small, big])
        let cx = (1600.0 * 60 + 3600 * 140) / 5200, cy = (1600.0 * 80 + 3600 * 80) / 5200
        #expect(abs(g.details["centerX"]! - cx / 320) < 1e-12 && abs(g.details["centerY"]! - cy / 180) < 1e-12)
        #expect(g.details["members"] == 2)
        // Members in the engine's order.
        #expect(abs(g.details["member0.x"]! - 40.0 / 320) < 1e-12 && abs(g.details["member0.width"]! - 40.0 / 320) < 1e-12)
        #expect(abs(g.details["member1.x"]! - 110.0 / 320) < 1e-12 && abs(g.details["member1.width"]! - 60.0 / 320) < 1e-12)
    }

    /// A face's eyes reach the rules normalised, kept at their place in the box when the smoother moves it,
    /// with its look and kind.
    @Test func rulesSeeTheEyesLookAndKindMovedWithTheSmoothedBox() {
        let eyes = Detection.Eyes(left: Point2D(x: 110, y: 70), right: Point2D(x: 140, y: 70))
        let at = { (x: Double) in
            Detection(box: Box(x: x, y: 50, width: 60, height: 60), confidence: 0.9, kind: .face,
                eyes: Detection.Eyes(left: Point2D(x: eyes.left.x + x - 100, y: 70), right: Point2D(x: eyes.right.x + x - 100, y: 70)),
                look: 0.4)
        }
        let one = CompositionAnalyzer(engines: [StubEngine(name: "cnn", detections: [at(100)])], rule: EchoRule()).analyze(Self.frame)
        #expect(abs(one.details["eyeLeftX"]! - 110.0 / 320) < 1e-12 && abs(one.details["eyeLeftY"]! - 70.0 / 180) < 1e-12)
        #expect(abs(one.details["eyeRightX"]! - 140.0 / 320) < 1e-12 && one.details["look"] == 0.4 && one.details["face"] == 1)
        // The box moves 10 px right; the smoother keeps 0.4 of the step (x 104), and the eyes move with it.
        var smoother = GuidanceSmoother()
        _ = CompositionAnalyzer(engines: [StubEngine(name: "cnn", detections: [at(100)])], rule: EchoRule())
            .analyze(Self.frame, smoother: &smoother)
        let moved = CompositionAnalyzer(engines: [StubEngine(name: "cnn", detections: [at(110)])], rule: EchoRule())
            .analyze(Self.frame, smoother: &smoother)
        #expect(abs(moved.details["eyeLeftX"]! - 114.0 / 320) < 1e-12 && abs(moved.details["eyeRightX"]! - 144.0 / 320) < 1e-12)
    }

    /// A group photo made of real faces: no photo in opencv-data, opencv-doc or scikit-image shows a
    /// group, so three real portraits (basketball1, messi5, astronaut, their faces at OpenCV's boxes) are
    /// cut around the face (2.2 face widths wide, 3 high, the face's top 0.6 of a face below the tile's
    /// top), scaled bilinearly so every face is 48 px, and set side by side into a 640x480 grey frame,
    /// the middle face's centre at (400, 235). Returns the frame and the three faces' boxes in it.
    static func groupPhoto() throws -> (image: RGBImage, faces: [Box]) {
        let sources: [(String, Box)] = [
            ("basketball1", Box(x: 72, y: 91, width: 39, height: 39)),
            ("messi5", Box(x: 227, y: 94, width: 37, height: 37)),
            ("astronaut", Box(x: 177, y: 66, width: 95, height: 95)),
        ]
        let W = 640, H = 480, face = 48.0, tileW = 106, tileH = 144
        var out = [UInt8](repeating: 128, count: W * H * 3)
        var faces: [Box] = []
        for (k, (name, f)) in sources.enumerated() {
            let src = try TestImages.rgb(name)
            let scale = f.width / face  // source pixels per output pixel
            let ox = 400 + (k - 1) * tileW - tileW / 2, oy = 235 - Int(face / 2 + 0.6 * face)
            let sx0 = f.x + f.width / 2 - Double(tileW) / 2 * scale, sy0 = f.y - 0.6 * face * scale
            for ty in 0..<tileH {
                for tx in 0..<tileW {
                    let x = ox + tx, y = oy + ty
                    guard x >= 0, x < W, y >= 0, y < H else { continue }
                    let fx = min(max(0, sx0 + (Double(tx) + 0.5) * scale - 0.5), Double(src.width - 1))
                    let fy = min(max(0, sy0 + (Double(ty) + 0.5) * scale - 0.5), Double(src.height - 1))
                    let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, src.width - 1), y1 = min(y0 + 1, src.height - 1)
                    let ax = fx - Double(x0), ay = fy - Double(y0)
                    for c in 0..<3 {
                        func p(_ px: Int, _ py: Int) -> Double { Double(src.pixels[(py * src.width + px) * 3 + c]) }
                        let v = (1 - ay) * ((1 - ax) * p(x0, y0) + ax * p(x1, y0)) + ay * ((1 - ax) * p(x0, y1) + ax * p(x1, y1))
                        out[(y * W + x) * 3 + c] = UInt8(max(0, min(255, v.rounded())))
                    }
                }
            }
            faces.append(Box(x: Double(ox + tileW / 2) - face / 2, y: Double(oy) + 0.6 * face, width: face, height: face))
        }
        return (RGBImage(width: W, height: H, pixels: out), faces)
    }

    /// Issue 13, groups: on the real three-face photo the faces engine finds all three, the subject is the
    /// group (its box covers every face), thirds advises moving the group's centre (not one face's), and
    /// capture's 3:4 crop of the frame contains all three faces with headroom.
    @Test(.tags(.evaluation)) func threeRealFacesSideBySideAreOneSubject() throws {
        let (image, faces) = try Self.groupPhoto()
        let analyzer = CompositionAnalyzer(engines: [try FaceEngine()], engine: "faces", rule: ThirdsRule())
        let g = analyzer.analyze(image)
        for f in faces {
            #expect(g.detections.contains { $0.box.iou(f) >= 0.5 }, "face \(f) not found in \(g.detections.map(\.box))")
        }
        let subject = try #require(g.subject)
        #expect(subject.kind == .group && subject.members.count == 3, "\(subject)")
        for f in faces {
            let inside = subject.box.x <= f.x + 0.15 * f.width && f.x + 0.85 * f.width <= subject.box.x + subject.box.width
                && subject.box.y <= f.y + 0.15 * f.height && f.y + 0.85 * f.height <= subject.box.y + subject.box.height
            #expect(inside, "face \(f) outside the subject \(subject.box)")
        }
        // Thirds: the group's centre (~0.625, ~0.49) goes up to (2/3, 1/3); the left face alone would go up
        // and left, the right one up and left too: the advice is the group's.
        let n = try #require(g.subjectNormalized), a = try #require(subject.anchor)
        let centre = Point2D(x: n.x + a.x * n.width, y: n.y + a.y * n.height)
        #expect(abs(centre.x - 400.0 / 640) < 0.02 && abs(centre.y - 235.0 / 480) < 0.03, "\(centre)")
        #expect(g.target == Point2D(x: 2.0 / 3, y: 1.0 / 3))
        #expect(g.advice == "move the subject up" && g.adviceKey == "thirds.move.up", "\(g.advice)")
        #expect(abs(g.direction.dx - (2.0 / 3 - centre.x)) < 1e-9 && abs(g.direction.dy - (1.0 / 3 - centre.y)) < 1e-9)
        for f in [faces[0], faces[2]] {
            let alone = ThirdsRule().evaluate(RuleInput(subject: f.scaled(1.0 / 640, 1.0 / 480), frameWidth: 640, frameHeight: 480))
            #expect(alone.adviceKey == "thirds.move.up-left")
        }
        // Capture's 3:4 crop (360x480 of 640x480) around the group: every face inside, half a face above.
        let box = try #require(g.subjectBox(width: 640, height: 480))
        let c = CaptureChoice.crop(width: 640, height: 480, aspect: .init(w: 3, h: 4), subject: box, rule: "thirds")
        #expect(c.width == 360 && c.height == 480)
        for f in faces {
            #expect(Double(c.x) <= f.x && f.x + f.width <= Double(c.x + c.width), "face \(f) cut by crop \(c)")
            #expect(Double(c.y) <= f.y - 0.5 * f.height && f.y + f.height <= Double(c.y + c.height))
        }
        // Without grouping the subject is one of the faces.
        let single = CompositionAnalyzer(
            engines: [try FaceEngine()], engine: "faces", rule: ThirdsRule(), selector: SubjectSelector(grouping: nil)
        ).analyze(image)
        #expect(single.subject?.kind == .face)
    }
}
