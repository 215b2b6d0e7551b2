import Foundation
import FrameAnalysis
import GStreamerKit
import GStreamerTrace
import Host
import Stages
import Synchronization
import Timing

/// Side-by-side measurements against a peer GStreamer element, in one run.
public enum Bench {
    /// Result of `bench bridge`.
    public struct BridgeResult: Sendable {
        /// Frames per run.
        public var frames: Int
        /// Best frames per second through `identity`.
        public var identityFPS: Double
        /// Best frames per second through the host with the `passthrough` stage.
        public var stageFPS: Double
        /// Buffer copies the binding made in the stage runs.
        public var copies: Int
        /// Buffers that reached the sink holding the very memory the appsink received (last stage run).
        public var identical: Int
        /// Buffers that reached the sink (last stage run).
        public var reachedSink: Int
        /// stage fps / identity fps.
        public var ratio: Double { identityFPS > 0 ? stageFPS / identityFPS : 0 }
    }

    /// Runs `videotestsrc ! I420 WxH ! identity ! fakesink` and the same with `passthrough`, alternating.
    public static func bridge(
        frames: Int = 300, width: Int = 1920, height: Int = 1080, rounds: Int = 3,
        log: (String) -> Void = { _ in }
    ) throws(HostError) -> BridgeResult {
        let source = "videotestsrc num-buffers=\(frames) ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1"
        var best = (identity: 0.0, stage: 0.0)
        var copies = 0, identical = 0, reached = 0
        for round in 1...rounds {
            // identity, as gst-launch would run it.
            let peer = try Session(description: "\(source) ! identity ! fakesink name=vf_bench_sink")
            var t0 = SystemClock.shared.now
            guard peer.run() == 0 else { throw HostError(.runtime, "identity run failed: \(peer.errors.joined(separator: "; "))") }
            let idFPS = Double(frames) / SystemClock.shared.elapsed(since: t0)
            best.identity = max(best.identity, idFPS)

            let ours = try Session(description: "\(source) ! passthrough ! fakesink name=vf_bench_sink")
            let up = ours.element(named: "vf_passthrough0_sink")!.traceBuffers()
            let down = ours.element(named: "vf_bench_sink")!.traceBuffers(reference: up)
            let c0 = BufferCopies.count
            t0 = SystemClock.shared.now
            guard ours.run() == 0 else { throw HostError(.runtime, "passthrough run failed: \(ours.errors.joined(separator: "; "))") }
            let stFPS = Double(frames) / SystemClock.shared.elapsed(since: t0)
            best.stage = max(best.stage, stFPS)
            copies += BufferCopies.count - c0
            identical = down.matched; reached = down.seen
            log(String(format: "round %d: identity %.1f fps, passthrough %.1f fps", round, idFPS, stFPS))
        }
        return BridgeResult(
            frames: frames, identityFPS: best.identity, stageFPS: best.stage, copies: copies, identical: identical, reachedSink: reached)
    }

    /// Result of `bench compose`.
    public struct ComposeResult: Sendable {
        /// Frames through the stage.
        public var frames: Int
        /// Mean ms per frame spent in the stage on the video thread (submit, meta, overlay, blend).
        public var meanMs: Double
        /// 95th percentile of the same.
        public var p95Ms: Double
        /// Analyses run (on the analysis thread) and their mean ms.
        public var analyses: Int
        /// Mean ms of one analysis.
        public var analysisMeanMs: Double
        /// Full-frame buffer copies per frame in the compose run (copy-on-write of a shared buffer).
        public var copiesPerFrame: Double
        /// The same for `passthrough` on the same video (the bridge alone: 0 when nothing is shared).
        public var passthroughCopiesPerFrame: Double
    }

    /// Runs 1080p video through `compose` (analysis at `analysisWidth`) and reports the stage's cost per frame.
    public static func compose(frames: Int = 300, analysisWidth: Int = 320, engine: String = "auto") throws(HostError) -> ComposeResult {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-compose-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let source = "videotestsrc pattern=ball num-buffers=\(frames) ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
        let peer = try Session(description: "\(source) ! passthrough ! fakesink")
        guard peer.run() == 0, let pr = peer.report else {
            throw HostError(.runtime, "passthrough run failed: \(peer.errors.joined(separator: "; "))")
        }
        let s = try Session(
            description:
                "\(source) ! compose name=c engine=\(engine) analysis-width=\(analysisWidth) warmup=0 metadata-location=\(json) ! fakesink")
        guard s.run() == 0, let r = s.report, let t = r.stages.first else {
            throw HostError(.runtime, "compose run failed: \(s.errors.joined(separator: "; "))")
        }
        let lines = (try? String(contentsOfFile: json, encoding: .utf8))?.split(separator: "\n") ?? []
        let ms = lines.compactMap { line -> Double? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return o["analysis_ms"] as? Double
        }
        return ComposeResult(
            frames: t.frames, meanMs: t.meanMs, p95Ms: t.p95Ms, analyses: ms.count,
            analysisMeanMs: ms.isEmpty ? 0 : ms.reduce(0, +) / Double(ms.count),
            copiesPerFrame: Double(r.copies) / Double(max(1, t.frames)),
            passthroughCopiesPerFrame: Double(pr.copies) / Double(max(1, pr.framesIn)))
    }

    /// Result of `bench faces`.
    public struct FacesResult: Sendable {
        /// Frames compared.
        public var frames: Int
        /// Frames per second through GStreamer's `facedetect` (OpenCV).
        public var facedetectFPS: Double
        /// Frames per second through `compose engine=faces` (frontal pass, same settings).
        public var oursFPS: Double
        /// Faces found by facedetect / by us, over all frames.
        public var facedetectHits: Int
        /// Faces found by us.
        public var ourHits: Int
        /// Frames where both found the same number of faces and every face matched (IoU >= 0.5).
        public var agreeingFrames: Int
        /// ours / facedetect.
        public var ratio: Double { facedetectFPS > 0 ? oursFPS / facedetectFPS : 0 }
        /// `compose engine=cnn` (YuNet) on the same frames: nil when its library is not installed.
        public var cnn: CNNFigures?
        /// Why the cnn engine was not measured.
        public var cnnMissing: String?
        /// `compose engine=people` (OpenCV's HOG people detector) on the same frames.
        public var people: PeopleFigures?

        /// The people engine's figures.
        public struct PeopleFigures: Sendable {
            /// Frames per second.
            public var fps: Double
            /// Frames analysed.
            public var frames: Int
            /// Frames where it found someone.
            public var framesWithPeople: Int
        }

        /// The cnn engine's figures.
        public struct CNNFigures: Sendable {
            /// Frames per second.
            public var fps: Double
            /// Faces found.
            public var hits: Int
            /// Frames where it and facedetect found the same faces (IoU >= 0.5 each).
            public var agreeingFrames: Int
        }
    }

    /// Runs `facedetect` (scale 1.1, 5 neighbours, 24 px) and our faces engine with the same cascade and
    /// settings (frontal pass, no verification) on the same frames, one after the other in one run.
    public static func faces(video: String, frames: Int = 150, width: Int = 640, height: Int = 480) throws(HostError) -> FacesResult {
        let source =
            "filesrc location=\(video) ! decodebin ! videoconvert ! videoscale ! video/x-raw,width=\(width),height=\(height) ! identity eos-after=\(frames) ! videoconvert"
        // GStreamer's element, collecting its per-frame messages.
        let peer = try Session(
            description:
                "\(source) ! facedetect scale-factor=1.1 min-neighbors=5 min-size-width=24 min-size-height=24 display=false ! fakesink")
        let collected = Mutex<[UInt64: [Box]]>([:])
        peer.onElementMessage = { message in
            if let m = FacedetectMessage.parse(message.structure.text) { collected.withLock { $0[m.timestamp] = m.faces } }
        }
        let t0 = SystemClock.shared.now
        guard peer.run() == 0 else {
            throw HostError(.runtime, "facedetect run failed: \(peer.errors.joined(separator: "; ")) (is gstreamer1.0-opencv installed?)")
        }
        let peerSeconds = SystemClock.shared.elapsed(since: t0)
        let theirs = collected.withLock { $0 }

        /// One `compose` run with `options`: seconds and the faces of each analysed frame by pts.
        func compose(_ options: String) throws(HostError) -> (seconds: Double, faces: [UInt64: [Box]], subjects: [UInt64: String]) {
            let json = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-faces-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: json) }
            let ours = try Session(
                description:
                    "\(source) ! compose \(options) sync=true analysis-fps=120 warmup=0 analysis-width=\(width) overlay=false metadata-location=\(json) ! fakesink"
            )
            let t0 = SystemClock.shared.now
            guard ours.run() == 0 else { throw HostError(.runtime, "compose run failed: \(ours.errors.joined(separator: "; "))") }
            let seconds = SystemClock.shared.elapsed(since: t0)
            var mine: [UInt64: [Box]] = [:], subjects: [UInt64: String] = [:]
            for line in ((try? String(contentsOfFile: json, encoding: .utf8)) ?? "").split(separator: "\n") {
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let pts = (o["pts"] as? NSNumber)?.uint64Value,
                    let faces = o["faces"] as? [[String: Any]]
                else { continue }
                subjects[pts] = o["engine"] as? String ?? ""
                mine[pts] = faces.compactMap { f in
                    guard let x = f["x"] as? Double, let y = f["y"] as? Double, let w = f["width"] as? Double,
                        let h = f["height"] as? Double
                    else { return nil }
                    return Box(x: x, y: y, width: w, height: h)
                }
            }
            return (seconds, mine, subjects)
        }
        /// Frames where `mine` has the same faces as facedetect.
        func agreeing(_ mine: [UInt64: [Box]]) -> Int {
            theirs.filter { ts, a in
                let b = mine[ts] ?? []
                return a.count == b.count && a.allSatisfy { x in b.contains { $0.iou(x) >= 0.5 } }
            }.count
        }
        let (ourSeconds, mine, _) = try compose("engine=faces verify=false profiles=false rotations=false")
        var result = FacesResult(
            frames: theirs.count, facedetectFPS: Double(theirs.count) / peerSeconds, oursFPS: Double(mine.count) / ourSeconds,
            facedetectHits: theirs.values.reduce(0) { $0 + $1.count }, ourHits: mine.values.reduce(0) { $0 + $1.count },
            agreeingFrames: agreeing(mine))
        // People (HOG) on the same frames: with analysis-width 640 the 640x480 frames are searched at 960x720.
        let (peopleSeconds, _, people) = try compose("engine=people")
        result.people = .init(
            fps: Double(people.count) / peopleSeconds, frames: people.count,
            framesWithPeople: people.values.filter { $0 == "people" }.count)
        do throws(CNNFaceEngine.LoadError) { _ = try CNNFaceEngine() } catch {
            result.cnnMissing = error.description
            return result
        }
        let (cnnSeconds, cnn, _) = try compose("engine=cnn")
        result.cnn = .init(fps: Double(cnn.count) / cnnSeconds, hits: cnn.values.reduce(0) { $0 + $1.count }, agreeingFrames: agreeing(cnn))
        return result
    }

    /// Result of `bench chromakey`: frames per second of each, same source, one after the other.
    public struct ChromaKeyResult: Sendable {
        /// Frames per run.
        public var frames: Int
        /// GStreamer's `alpha method=custom` with the same key colour.
        public var alphaFPS: Double
        /// The chromakey stage.
        public var oursFPS: Double
        /// ours / alpha.
        public var ratio: Double { alphaFPS > 0 ? oursFPS / alphaFPS : 0 }
    }

    /// 1080p RGBA green-screen frames through `alpha method=custom` and through `chromakey`.
    public static func chromakey(frames: Int = 200) throws(HostError) -> ChromaKeyResult {
        let source =
            "videotestsrc pattern=ball background-color=0xff00c000 foreground-color=0xffd8a080 num-buffers=\(frames) ! video/x-raw,format=RGBA,width=1920,height=1080"
        func time(_ d: String) throws(HostError) -> Double {
            let s = try Session(description: d)
            let t0 = SystemClock.shared.now
            guard s.run() == 0 else { throw HostError(.runtime, "run failed: \(s.errors.joined(separator: "; "))") }
            return Double(frames) / SystemClock.shared.elapsed(since: t0)
        }
        let alpha = try time("\(source) ! alpha method=custom target-r=0 target-g=192 target-b=0 ! fakesink")
        let ours = try time("\(source) ! chromakey color=#00c000 ! fakesink")
        return ChromaKeyResult(frames: frames, alphaFPS: alpha, oursFPS: ours)
    }

    /// One real composite keyed by each keyer: matte IoU against the true mask.
    public struct KeyingMattes: Sendable {
        /// `PHOTO screen edges`, e.g. `2011_000006 #00ff00 hard`.
        public var name: String
        /// Keyer (its description fragment) and IoU, in the order run.
        public var ious: [(keyer: String, iou: Double)]
        /// The line `bench chromakey` prints.
        public var line: String {
            "  \(name): " + ious.map { String(format: "%@ %.4f", $0.keyer, $0.iou) }.joined(separator: ", ")
        }
    }

    /// `#rrggbb` of a screen.
    static func hex(_ s: KeyComposite.Screen) -> String { String(format: "#%02x%02x%02x", s.r, s.g, s.b) }

    /// The keyers compared on each composite: ours with the screen's colour (its defaults otherwise) and with pick=auto, GStreamer's `alpha`
    /// with `method=green` (its angle key on AYUV) and `method=custom` at the screen's colour.
    static func keyers(screen: KeyComposite.Screen) -> [(String, String)] {
        [
            ("chromakey color=", "chromakey color=\(hex(screen))"), ("chromakey pick=auto", "chromakey pick=auto"),
            ("alpha method=green", "videoconvert ! alpha method=green ! videoconvert"),
            (
                "alpha method=custom", "videoconvert ! alpha method=custom target-r=\(screen.r) target-g=\(screen.g) target-b=\(screen.b) ! videoconvert"
            ),
        ]
    }

    /// Real composites (launch/testdata's labelme photos, people pasted by their polygons) keyed through real
    /// pipelines (`filesrc ! rawvideoparse ! KEYER ! filesink`): on pure #00ff00 with hard and soft (sigma 1 px)
    /// edges, and on a ±15 % screen of #14be28.
    public static func chromakeyMattes(testdata: URL) throws(HostError) -> [KeyingMattes] {
        let dir = testdata.appendingPathComponent("keying")
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("vf-keying-\(getpid())")
        do { try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true) } catch {
            throw HostError(.runtime, "cannot create \(tmp.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: tmp) }
        var out: [KeyingMattes] = []
        for photo in ["2011_000003", "2011_000006"] {
            guard let ppm = FileManager.default.contents(atPath: dir.appendingPathComponent("\(photo).ppm").path),
                let json = FileManager.default.contents(atPath: dir.appendingPathComponent("\(photo).json").path)
            else { throw HostError(.usage, "\(dir.path)/\(photo).ppm or .json is missing: run launch/testdata") }
            let image: RGBImage, mask: [Bool]
            do {
                image = try RGBImage(ppm: [UInt8](ppm))
                mask = try LabelmePolygons(json: json).mask(label: "person")
            } catch { throw HostError(.usage, "\(photo): \(error)") }
            let varied = KeyComposite.Screen(r: 20, g: 190, b: 40, variation: 0.15, noise: 2)
            for (label, screen, soft) in [("#00ff00 hard", KeyComposite.Screen.pureGreen, 0.0), ("#00ff00 soft", .pureGreen, 1), ("#14be28 ±15% hard", varied, 0)] {
                let comp = KeyComposite(photo: image, mask: mask, screen: screen, softEdge: soft)
                let input = tmp.appendingPathComponent("in.rgba"), output = tmp.appendingPathComponent("out.rgba")
                guard FileManager.default.createFile(atPath: input.path, contents: Data(comp.rgba)) else {
                    throw HostError(.runtime, "cannot write \(input.path)")
                }
                var ious: [(String, Double)] = []
                for (name, keyer) in keyers(screen: screen) {
                    let s = try Session(
                        description:
                            "filesrc location=\(input.path) ! rawvideoparse width=\(comp.width) height=\(comp.height) format=rgba framerate=1/1 ! \(keyer) ! video/x-raw,format=RGBA ! filesink location=\(output.path)"
                    )
                    guard s.run() == 0 else { throw HostError(.runtime, "\(name) failed: \(s.errors.joined(separator: "; "))") }
                    guard let keyed = FileManager.default.contents(atPath: output.path), keyed.count == comp.rgba.count else {
                        throw HostError(.runtime, "\(name) wrote no full frame to \(output.path)")
                    }
                    ious.append((name, comp.iou(alpha: KeyComposite.alphaPlane([UInt8](keyed)))))
                }
                out.append(KeyingMattes(name: "\(photo) \(label)", ious: ious))
            }
        }
        return out
    }

    /// Result of `bench capture`.
    public struct CaptureResult: Sendable {
        /// Frames per run.
        public var frames: Int
        /// GStreamer alone taking the same photos (tee ! videorate ! jpegenc ! jifmux ! multifilesink), fps.
        public var peerFPS: Double
        /// capture taking them (photo, thumbnail, records.json), fps.
        public var oursFPS: Double
        /// Photos written by each.
        public var peerPhotos: Int, ourPhotos: Int
        /// Triggers capture refused as busy (more than max-pending photos saving: faster than real time).
        public var refused: Int
        /// The stage's time per frame on the video thread without saves and while saving (mean, p95 ms).
        public var quiet: (mean: Double, p95: Double), saving: (mean: Double, p95: Double)
        /// ours / peer.
        public var ratio: Double { peerFPS > 0 ? oursFPS / peerFPS : 0 }
    }

    /// 1080p: GStreamer's own photo branch at 5 photos/s vs `capture interval=0.2` (photo + thumbnail +
    /// index), and the stage's per-frame cost with and without saving.
    public static func capture(frames: Int = 300, rounds: Int = 3) throws(HostError) -> CaptureResult {
        let source = "videotestsrc num-buffers=\(frames) pattern=smpte ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
        let root = NSTemporaryDirectory() + "vf-bench-capture-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try? FileManager.default.createDirectory(atPath: root + "/peer", withIntermediateDirectories: true)
        func run(_ d: String) throws(HostError) -> (fps: Double, report: SessionReport?, refused: Int) {
            let s = try Session(description: d)
            let t0 = SystemClock.shared.now
            guard s.run() == 0 else { throw HostError(.runtime, "run failed: \(s.errors.joined(separator: "; "))") }
            return (
                Double(frames) / SystemClock.shared.elapsed(since: t0), s.report,
                s.elementMessages.filter { $0.description.contains("event=(string)refused") }.count
            )
        }
        func jpegs(_ d: String) -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []).filter { $0.hasPrefix("IMG_") && $0.hasSuffix(".jpg") }.count
        }
        // Alternating rounds, best of each side (the machine is shared: single runs vary by +-30 %).
        var peer: (fps: Double, report: SessionReport?, refused: Int) = (0, nil, 0)
        var ours = peer, quiet = peer
        for round in 1...max(1, rounds) {
            for d in [root + "/peer", root + "/ours", root + "/quiet"] { try? FileManager.default.removeItem(atPath: d) }
            try? FileManager.default.createDirectory(atPath: root + "/peer", withIntermediateDirectories: true)
            let p = try run(
                "\(source) ! tee name=t ! queue ! fakesink t. ! queue ! videorate drop-only=true max-rate=5 ! jpegenc ! jifmux ! multifilesink location=\(root)/peer/IMG_%05d.jpg"
            )
            let o = try run("\(source) ! capture auto=false overlay=false interval=0.2 max-pending=8 directory=\(root)/ours ! fakesink")
            let q = try run("\(source) ! capture auto=false overlay=false directory=\(root)/quiet ! fakesink")
            if p.fps > peer.fps { peer = p }
            if o.fps > ours.fps { ours = o }
            if quiet.report == nil || (q.report?.stages.first?.meanMs ?? .infinity) < (quiet.report?.stages.first?.meanMs ?? .infinity) {
                quiet = q
            }
            _ = round
        }
        func timing(_ r: SessionReport?) -> (Double, Double) {
            let t = r?.stages.first { $0.name == "capture0" }
            return (t?.meanMs ?? 0, t?.p95Ms ?? 0)
        }
        return CaptureResult(
            frames: frames, peerFPS: peer.fps, oursFPS: ours.fps, peerPhotos: jpegs(root + "/peer"),
            ourPhotos: jpegs(root + "/ours"), refused: ours.refused, quiet: timing(quiet.report), saving: timing(ours.report))
    }
}

extension Bench {
    /// Recall and false faces of every face engine on the labelled real-photo set (`FaceRecall`, photos at 640 px
    /// on the long side): the cascade without and with verification, the cnn (when installed) and `engine=auto`'s
    /// chain (cnn, then the verified cascade). `labels` is `face_labels.json`, `photos` the folder of `NAME.ppm`
    /// that `launch/testdata` fills; `limit`: the first that many photos only (`bench faces --photos`).
    public static func faceRecall(labels: URL, photos: URL, limit: Int? = nil) throws(HostError) -> [(
        engine: String, summary: FaceRecall.Summary
    )] {
        var set: FaceLabelSet
        do { set = try FaceLabelSet.load(labels) } catch {
            throw HostError(.usage, "bench faces: cannot read the labels '\(labels.path)': \(error)")
        }
        if let limit { set.photos = Array(set.photos.prefix(limit)) }
        let r = FaceRecall()
        let prepared: [(LabelledPhoto, RGBImage)]
        do {
            prepared = try r.prepare(set.photos) { p in
                let url = photos.appendingPathComponent("\(p.name).ppm")
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw HostError(.usage, "bench faces: photo '\(url.path)' is missing (run launch/testdata)")
                }
                return try RGBImage(ppm: [UInt8](data))
            }
        } catch let e as HostError { throw e } catch { throw HostError(.usage, "bench faces: \(error)") }
        do { return try r.evaluateEngines(prepared) } catch {
            throw HostError(.runtime, "bench faces: cannot load the cascades: \(error) (install opencv-data)")
        }
    }
}
