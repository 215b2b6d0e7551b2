import Foundation
import Synchronization
import TestTags
import Testing

@testable import FrameAnalysis

/// `FallbackRotation`: engine=auto's fallbacks one per analysis, their results kept for a while of stream time.
@Suite(.tier) struct FallbackRotationTests {
    /// What engines were called, in order, and whether the scripted "cnn" sees a face.
    final class Script: Sendable {
        let calls = Mutex<[String]>([])
        let face = Mutex(false)
        func take() -> [String] { calls.withLock { c in defer { c = [] }; return c } }
    }

    /// An engine answering from the script: `finds` its box, the "cnn" only while the script shows a face.
    struct Scripted: DetectionEngine {
        let name: String
        let script: Script
        var finds: Box?
        func detect(in image: RGBImage) -> [Detection] {
            script.calls.withLock { $0.append(name) }
            if name == "cnn" {
                return script.face.withLock { $0 } ? [Detection(box: Box(x: 10, y: 10, width: 20, height: 20), confidence: 0.9, kind: .face)] : []
            }
            return finds.map { [Detection(box: $0, confidence: 0.8, kind: .fullBody)] } ?? []
        }
    }

    static let person = Box(x: 100, y: 40, width: 30, height: 90)
    static let salient = Box(x: 0, y: 0, width: 50, height: 50)

    /// cnn, faces, people (finds `person`), bodies, saliency (finds `salient`).
    static func chain(_ s: Script) -> [any DetectionEngine] {
        [
            Scripted(name: "cnn", script: s), Scripted(name: "faces", script: s), Scripted(name: "people", script: s, finds: person),
            Scripted(name: "bodies", script: s), Scripted(name: "saliency", script: s, finds: salient),
        ]
    }

    static let frame = RGBImage(width: 320, height: 180, pixels: [UInt8](repeating: 128, count: 320 * 180 * 3))
    static func pts(_ seconds: Double) -> UInt64 { UInt64((seconds * 1e9).rounded()) }

    /// Counted steps: without a face every analysis runs the cnn, one fallback in turn, and saliency only when no
    /// kept fallback result stands; the person HOG found stays the subject while the other fallbacks take their turns.
    @Test func oneFallbackPerAnalysisAndThePersonIsKept() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        var runs: [[String]] = [], suppliers: [String?] = []
        for i in 0..<7 {
            let (found, engine) = r.detect(chain, in: Self.frame, pts: Self.pts(0.1 * Double(i)))
            runs.append(s.take())
            #expect(runs.last == r.lastRun)
            suppliers.append(engine)
            if engine == "people" { #expect(found.map(\.box) == [Self.person]) }
        }
        #expect(
            runs == [
                ["cnn", "faces", "saliency"], ["cnn", "people"], ["cnn", "bodies"], ["cnn", "faces"], ["cnn", "people"], ["cnn", "bodies"],
                ["cnn", "faces"],
            ])
        #expect(suppliers == ["saliency", "people", "people", "people", "people", "people", "people"])
        #expect(runs.allSatisfy { $0.count <= 3 && $0.filter { ["faces", "people", "bodies"].contains($0) }.count == 1 })
    }

    /// A face found runs nothing else; a person's kept result goes stale after `hold` seconds of stream time (here
    /// while faces were found), and a pts going backwards (a seek) makes it stale at once.
    @Test func keptResultsAgeInStreamTime() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        _ = r.detect(chain, in: Self.frame, pts: Self.pts(0))  // faces
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(0.1)).engine == "people")
        s.face.withLock { $0 = true }
        _ = s.take()
        for t in [0.2, 0.5, 1.0] {
            #expect(r.detect(chain, in: Self.frame, pts: Self.pts(t)).engine == "cnn")
            #expect(s.take() == ["cnn"])
        }
        s.face.withLock { $0 = false }
        // 1.0 s after HOG's frame: still held (bodies' turn).
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.1)).engine == "people")
        #expect(s.take() == ["cnn", "bodies"])
        // 1.1 s after: stale; faces' turn finds nothing, saliency supplies.
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.2)).engine == "saliency")
        #expect(s.take() == ["cnn", "faces", "saliency"])
        // HOG again at 1.3; a seek back to 0.5 makes its result stale.
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.3)).engine == "people")
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(0.5)).engine == "saliency")
    }

    /// Without pts a kept result stands for one turn of the fallbacks (3 analyses here).
    @Test func withoutPtsAResultStandsForOneTurn() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        let engines = (0..<8).map { _ in r.detect(chain, in: Self.frame, pts: nil).engine }
        // people runs at analyses 2, 5, 8 and stands for 3 analyses each time.
        #expect(engines == ["saliency", "people", "people", "people", "people", "people", "people", "people"])
        // hold: a round of turns plus one analysis, at least 1 s.
        #expect(r.hold(round: 3) == 1)
        #expect(FallbackRotation(interval: 0.5).hold(round: 3) == 2)
        #expect(FallbackRotation(interval: 0.1).hold(round: 12) == 1.3)
    }

    /// The real chain compose builds for engine=auto without a face (the cnn when installed, the face cascades,
    /// HOG people, the upper-body cascade, saliency) on vtest-1000 at 320x240: staggered, the walkers are the
    /// subject within one turn of the fallbacks, as with every fallback run, and stay it on the following analyses;
    /// no analysis runs more than one fallback.
    @Test(arguments: [1, 4]) func theStaggeredChainFindsTheWalkers(slices: Int) throws {
        let image = PeopleEngineTests.resized(try TestImages.rgb("vtest-1000"), width: 320)
        var engines: [any DetectionEngine] = []
        if let cnn = try? CNNFaceEngine(threads: 1, minFace: 6) { engines.append(cnn) }
        engines += [try FaceEngine(minFace: 24), PeopleEngine(slices: slices), try BodyEngine(fullBody: false), SaliencyEngine()]
        let analyzer = CompositionAnalyzer(engines: engines, engine: "auto")
        let fallbacks = analyzer.chain.count - 2
        let whole = analyzer.analyze(image)
        #expect(whole.engine == "people")
        var rotation = FallbackRotation(interval: 0.1)
        var smoother = GuidanceSmoother()
        var firstPeople: Int?, peopleSlices: [Int] = []
        for i in 0..<(fallbacks * slices + 2) {
            let g = analyzer.analyze(image, pts: UInt64(i) * 100_000_000, smoother: &smoother, rotation: &rotation)
            #expect(rotation.lastRun.count <= 3, "\(rotation.lastRun)")
            #expect(rotation.lastRun.filter { ["faces", "people", "bodies"].contains($0) }.count == 1, "\(rotation.lastRun)")
            if rotation.lastRun.contains("people") { peopleSlices.append(rotation.lastSlice ?? -1) }
            if g.engine == "people" {
                if firstPeople == nil { firstPeople = i }
                #expect(g.detections.map(\.box) == whole.detections.map(\.box))
            } else {
                #expect(firstPeople == nil, "analysis \(i): \(g.engine ?? "none") after people")
            }
        }
        let first = try #require(firstPeople)
        // The people engine is the first fallback with the face cascades as first engine, the second behind the cnn;
        // cut into 4, its search is whole at its 4th turn (a turn every `fallbacks` analyses), one slice per turn.
        #expect(first == fallbacks - 2 + fallbacks * (slices - 1))
        #expect(peopleSlices.prefix(slices) == (slices == 1 ? [-1] : Array(0..<slices))[...], "\(peopleSlices)")
        let walkers = try #require(PeopleEngineTests.pedestrians["vtest-1000"]).map { $0.scaled(320.0 / 768, 320.0 / 768) }
        #expect(PeopleEngineTests.score(whole.detections, walkers).found >= 2, "\(whole.detections)")
    }
}
