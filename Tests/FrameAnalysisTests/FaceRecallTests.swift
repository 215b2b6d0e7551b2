import Foundation
import TestTags
import Testing

@testable import FrameAnalysis

/// `FaceRecall` on the labelled real-photo set (`Fixtures/face_labels.json`, photos from `launch/testdata`): recall
/// and false faces of every engine, printed, with the issue's goals asserted; and the matching rules on boxes made up
/// for the purpose.
@Suite(.serialized, .tier) struct FaceRecallTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/face_labels.json")

    static func load(_ p: LabelledPhoto) throws -> RGBImage { try TestImages.rgb("faces/\(p.name)") }

    static func misses(_ s: FaceRecall.Summary) -> String {
        s.photos.filter { $0.found < $0.faces || $0.falseFaces > 0 }.map { p in
            "\(p.name): missed \(zip(p.missed, p.nearest).map { "\($0) (best IoU \(String(format: "%.2f", $1)))" }), false \(p.falseBoxes.map(\.description))"
        }.joined(separator: "; ")
    }

    @Test func theLabelledSetIsWhatTheIssueAsksFor() throws {
        let set = try FaceLabelSet.load(Self.fixture)
        let withFaces = set.photos.filter { !$0.faces.isEmpty }
        #expect(withFaces.count >= 15 && set.photos.count - withFaces.count >= 10)
        #expect(withFaces.reduce(0) { $0 + $1.faces.count } >= 40)
        // Groups (3 or more faces) and small faces (under 50 px once analysed at 640 px) are in it.
        #expect(withFaces.filter { $0.faces.count >= 3 }.count >= 4)
        let r = FaceRecall()
        let small = withFaces.flatMap { p in p.faces.map { min($0.width, $0.height) * r.scale(for: p) } }.filter { $0 < 50 }
        #expect(small.count >= 10)
        // Every label lies inside its photo, and the photo on disk has the size recorded.
        for p in set.photos {
            for f in p.faces { #expect(f.x >= 0 && f.y >= 0 && f.x + f.width <= Double(p.width) + 1 && f.y + f.height <= Double(p.height) + 1) }
            let img = try Self.load(p)
            #expect(img.width == p.width && img.height == p.height, "\(p.name)")
        }
    }

    /// Every engine on the 39 photos at 640 px (figures printed; the closing note and README quote them).
    @Test(.tags(.evaluation)) func everyEngineOnTheRealPhotos() throws {
        let set = try FaceLabelSet.load(Self.fixture)
        let r = FaceRecall()
        let photos = try r.prepare(set.photos, load: Self.load)
        let results = Dictionary(try r.evaluateEngines(photos).map { ($0.engine, $0.summary) }, uniquingKeysWith: { a, _ in a })
        let plain = try #require(results["cascade"]), checked = try #require(results["cascade+verify"])
        print("FaceRecallTests: cascade:        \(plain.line)\n  \(Self.misses(plain))")
        print("FaceRecallTests: cascade+verify: \(checked.line)\n  \(Self.misses(checked))")
        // Verification costs no face of 30-60 px (analysed) that the cascade found, but one: a face behind dark
        // sunglasses (multi_face, 57 px: no eye, 2 votes of the second cascade), as weak on every cue as the blurred
        // spectator it must reject; the cnn finds it. And it removes every false face.
        for (a, b) in zip(plain.photos, checked.photos) {
            let lost = b.missed.filter { m in !a.missed.contains(m) && min(m.width, m.height) >= 30 && min(m.width, m.height) <= 60 }
            let sunglasses = Box(x: 138, y: 39, width: 57, height: 72)
            #expect(lost.allSatisfy { a.name == "multi_face" && $0.iou(sunglasses) > 0.9 }, "\(a.name): verification rejected \(lost)")
        }
        #expect(checked.falseFaces == 0 && plain.falseFaces >= 3)
        #expect(plain.found - checked.found <= 1, "verification lost \(plain.found - checked.found) faces")
        guard let net = results["cnn"], let auto = results["auto"] else {
            print("FaceRecallTests: cnn not installed (launch/fetch-yuface); cnn and auto not measured")
            return
        }
        print("FaceRecallTests: cnn:            \(net.line)\n  \(Self.misses(net))")
        print("FaceRecallTests: auto:           \(auto.line)\n  \(Self.misses(auto))")
        // The issue's goals: cnn recall >= 0.95 at IoU 0.5 with <= 1 false face per 20 photos; auto no worse than the
        // best single engine.
        #expect(net.recall >= 0.95 && net.falsePer20 <= 1)
        #expect(auto.recall >= max(net.recall, checked.recall, plain.recall))
        #expect(auto.falseFaces <= net.falseFaces)
        // The cascades' own misses are faces they never proposed (tilted, turned, shouting), not boxes drawn another
        // way: the cnn finds every one of them.
        #expect(net.found > checked.found + 5)
    }
}

extension FaceRecallTests {
    static let photo = LabelledPhoto(
        name: "made-up", width: 1280, height: 640,
        faces: [Box(x: 100, y: 100, width: 100, height: 120), Box(x: 600, y: 100, width: 20, height: 24)],
        ignore: [Box(x: 1000, y: 0, width: 280, height: 200)])

    static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ c: Double = 0.9, kind: Detection.Kind = .face) -> Detection {
        Detection(box: Box(x: x, y: y, width: w, height: h), confidence: c, kind: kind)
    }

    /// Scoring in analysed pixels: the photo is halved (1280 -> 640), so labels shrink with it; the 20x24 label
    /// becomes 10x12, too small to count, and works as an ignore region.
    @Test func matchingRules() {
        let r = FaceRecall()
        #expect(r.scale(for: Self.photo) == 0.5)
        // A hit at IoU >= 0.5 (the label is 50,50 50x60 once halved), a duplicate on the same face (centre inside
        // the matched label), a detection in the ignore region, one on the too-small face, and one false face.
        let hits = [
            Self.face(52, 52, 48, 58), Self.face(60, 60, 30, 30, 0.5), Self.face(550, 20, 40, 40),
            Self.face(298, 48, 8, 10), Self.face(200, 250, 40, 40),
        ]
        let p = r.score(hits, on: Self.photo)
        #expect(p.faces == 1 && p.found == 1 && p.falseFaces == 1 && p.falseBoxes == [Box(x: 200, y: 250, width: 40, height: 40)])
        // Below IoU 0.5: a miss, with its best IoU kept; and the detection is not a false face (centre inside).
        let near = r.score([Self.face(50, 80, 50, 60)], on: Self.photo)
        #expect(near.found == 0 && near.falseFaces == 0 && near.missed == [Box(x: 50, y: 50, width: 50, height: 60)])
        #expect(abs(near.nearest[0] - 1.0 / 3.0) < 1e-9)  // 50x30 shared of 4500
        // Bodies and saliency are not faces.
        let bodies = r.score([Self.face(52, 52, 48, 58, kind: .upperBody), Self.face(200, 250, 40, 40, kind: .salient)], on: Self.photo)
        #expect(bodies.found == 0 && bodies.falseFaces == 0)
        // Profile faces count as faces.
        #expect(r.score([Self.face(52, 52, 48, 58, kind: .profileFace)], on: Self.photo).found == 1)
        // Totals and the printed line.
        let s = FaceRecall.Summary(photos: [p, near])
        #expect(s.faces == 2 && s.found == 1 && s.recall == 0.5 && s.falseFaces == 1 && s.falsePer20 == 10)
        #expect(s.line == "recall 0.500 (1/2), 1 false face in 2 photos (10.00 per 20)")
    }

    /// The area-average resize keeps a flat colour and averages a 2x2 checker to its mean.
    @Test func areaResize() {
        let flat = RGBImage(width: 8, height: 6, pixels: [UInt8](repeating: 0, count: 0) + (0..<48).flatMap { _ in [200, 100, 50] as [UInt8] })
        let f = flat.areaResized(width: 3, height: 2)
        #expect(f.width == 3 && f.height == 2 && Set(stride(from: 0, to: f.pixels.count, by: 3).map { f.pixels[$0] }) == [200])
        var px: [UInt8] = []
        for y in 0..<4 { for x in 0..<4 { let v: UInt8 = (x + y) % 2 == 0 ? 255 : 0; px += [v, v, v] } }
        let half = RGBImage(width: 4, height: 4, pixels: px).areaResized(width: 2, height: 2)
        #expect(half.pixels.allSatisfy { $0 == 128 })
    }
}
