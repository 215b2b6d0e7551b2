import Foundation
import FrameAnalysis
import Host
import Stages
import Timing

/// `bench analysis`: where an `engine=auto` analysis spends its time, engine by engine, and what an analysis costs
/// with every fallback run (`fallbacks=all`, the chain before issue 25) against one fallback per analysis
/// (`fallbacks=staggered`), on the same frames, alternating, in one run.
extension Bench {
    /// One frame of the bench: a name and the analysis image compose would make of it (320 px wide).
    public struct AnalysisFrame: Sendable {
        public var name: String
        public var image: RGBImage
    }

    /// One engine's cost on one frame.
    public struct EngineCost: Sendable {
        public var engine: String
        /// Median and largest ms of one `detect`.
        public var medianMs: Double, maxMs: Double
        /// Detections it returned (last call).
        public var found: Int
    }

    /// One way of running the chain on one frame, over `frames` analyses of a stream (pts 100 ms apart).
    public struct ChainCost: Sendable {
        public var mode: String
        public var meanMs: Double, p95Ms: Double, maxMs: Double
        /// Engine runs per analysis (mean) and the engine that supplied the subject, by count.
        public var enginesPerAnalysis: Double
        public var suppliers: [String: Int]
        /// Staggered only: median ms of the analyses that took each turn ("people 2/6": the third of six slices), in
        /// schedule order.
        public var turns: [(turn: String, medianMs: Double)] = []
    }

    /// Figures of `bench analysis` per frame.
    public struct AnalysisResult: Sendable {
        public var frame: String
        public var width: Int, height: Int
        public var engines: [EngineCost]
        public var all: ChainCost, staggered: ChainCost
    }

    /// The frames: videotestsrc's SMPTE bars at 1280x720 (made by gst-launch-1.0, scaled to 320x180 as compose's
    /// analysis copy), and real photos from `launch/testdata` scaled to 320 px wide by area averaging: a scene
    /// without people, a face, and walkers without a visible face (vtest). Photos missing are left out.
    public static func analysisFrames(testdata: URL) throws(HostError) -> [AnalysisFrame] {
        var frames = [AnalysisFrame(name: "videotestsrc smpte 1280x720", image: try testPattern(width: 320, height: 180))]
        for (file, what) in [
            ("faces/no_building.ppm", "photo without people (no_building)"), ("faces/no_mountain.ppm", "photo without people (no_mountain)"),
            ("astronaut.ppm", "photo with a face (astronaut)"), ("vtest-0100.ppm", "walkers without a face (vtest-0100)"),
        ] {
            guard let data = FileManager.default.contents(atPath: testdata.appendingPathComponent(file).path),
                let photo = try? RGBImage(ppm: [UInt8](data))
            else { continue }
            let w = 320, h = max(2, Int((Double(w) * Double(photo.height) / Double(photo.width)).rounded()))
            frames.append(AnalysisFrame(name: what, image: photo.areaResized(width: w, height: h)))
        }
        return frames
    }

    /// videotestsrc's default pattern at 1280x720, scaled to `width`x`height` RGB by GStreamer (gst-launch-1.0).
    static func testPattern(width: Int, height: Int) throws(HostError) -> RGBImage {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-analysis-\(UUID().uuidString).rgb").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments =
            ("-q videotestsrc num-buffers=1 ! video/x-raw,width=1280,height=720 ! videoscale ! videoconvert ! "
            + "video/x-raw,format=RGB,width=\(width),height=\(height) ! filesink location=\(file)").split(separator: " ").map(String.init)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw HostError(.runtime, "bench analysis: cannot run gst-launch-1.0: \(error.localizedDescription)") }
        p.waitUntilExit()
        // GStreamer's RGB rows are padded to 4 bytes.
        let stride = (width * 3 + 3) / 4 * 4
        guard p.terminationStatus == 0, let data = FileManager.default.contents(atPath: file), data.count >= stride * height else {
            throw HostError(.runtime, "bench analysis: gst-launch-1.0 made no \(width)x\(height) RGB frame (exit \(p.terminationStatus))")
        }
        let bytes = [UInt8](data)
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height { pixels += bytes[(y * stride)..<(y * stride + width * 3)] }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Milliseconds `body` takes.
    static func milliseconds(_ body: () -> Void) -> Double {
        let t0 = SystemClock.shared.now
        body()
        return SystemClock.shared.elapsed(since: t0) * 1000
    }

    /// Measures compose's `engine=auto` chain (as `ComposeEngines.make` builds it for 1280x720 input at 320 px: the
    /// cnn when installed) on each frame: every engine alone (`analyses` calls each), then `analyses` analyses with
    /// `fallbacks=all` and with `fallbacks=staggered` (compose's default `fallback-every`), alternating analysis by analysis.
    public static func analysis(frames: [AnalysisFrame], analyses: Int) throws(HostError) -> [AnalysisResult] {
        let minFace = ComposeEngines.analysedMinFace(24, analysisWidth: 320, inputWidth: 1280)
        let engines: [any DetectionEngine]
        do { engines = try ComposeEngines.make(.auto, minFace: minFace, faces: .init(), stage: "bench") } catch {
            throw HostError(.runtime, "bench analysis: \(error)")
        }
        let analyzer = CompositionAnalyzer(engines: engines, engine: "auto", rule: AutoRule())
        let n = max(1, analyses)
        return frames.map { frame in
            let costs = analyzer.chain.map { e -> EngineCost in
                var found = 0
                let ms = (0..<n).map { _ in milliseconds { found = e.detect(in: frame.image).count } }.sorted()
                return EngineCost(engine: e.name, medianMs: ms[ms.count / 2], maxMs: ms.last ?? 0, found: found)
            }
            var smoothers = (GuidanceSmoother(), GuidanceSmoother())
            var rotation = FallbackRotation(interval: 0.1, every: ComposeStage.fallbackEvery.defaultValue)
            var times: ([Double], [Double]) = ([], [])
            var runs = (0, 0)
            var suppliers: ([String: Int], [String: Int]) = ([:], [:])
            var turns: [String: [Double]] = [:], order: [String] = []
            for i in 0..<n {
                let pts = UInt64(i) * 100_000_000
                var g: Guidance?
                times.0.append(milliseconds { g = analyzer.analyze(frame.image, pts: pts, smoother: &smoothers.0) })
                let e0 = g?.engine ?? "none"
                suppliers.0[e0, default: 0] += 1
                runs.0 += (analyzer.chain.firstIndex { $0.name == e0 } ?? (analyzer.chain.count - 1)) + 1
                times.1.append(milliseconds { g = analyzer.analyze(frame.image, pts: pts, smoother: &smoothers.1, rotation: &rotation) })
                suppliers.1[g?.engine ?? "none", default: 0] += 1
                runs.1 += rotation.lastRun.count
                if let turn = rotation.lastTurn {
                    if turns[turn] == nil { order.append(turn) }
                    turns[turn, default: []].append(times.1.last ?? 0)
                }
            }
            func cost(_ mode: String, _ t: [Double], _ r: Int, _ s: [String: Int]) -> ChainCost {
                let sorted = t.sorted()
                return ChainCost(
                    mode: mode, meanMs: t.reduce(0, +) / Double(t.count), p95Ms: sorted[min(sorted.count - 1, sorted.count * 95 / 100)],
                    maxMs: sorted.last ?? 0, enginesPerAnalysis: Double(r) / Double(n), suppliers: s)
            }
            var staggered = cost("staggered", times.1, runs.1, suppliers.1)
            staggered.turns = order.map { t in
                let ms = (turns[t] ?? []).sorted()
                return (t, ms.isEmpty ? 0 : ms[ms.count / 2])
            }
            return AnalysisResult(
                frame: frame.name, width: frame.image.width, height: frame.image.height, engines: costs,
                all: cost("all", times.0, runs.0, suppliers.0), staggered: staggered)
        }
    }
}
