import Foundation
import FrameAnalysis
import GStreamerKit
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
        for y in 0..<info.height { for x in 0..<info.width {
            b[y * stride + x * 4 + 3] = 255
            if (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r { for c in 0..<3 { b[y * stride + x * 4 + c] = 255 } }
        } }
        return b
    }

    /// Where the ball is in frame i: fast across the frame (22 px a frame), bouncing, and a little down.
    static func position(_ i: Int, width: Int) -> (Int, Int) {
        let span = width - 60, t = (22 * i) % (2 * span)
        return (30 + (t < span ? t : 2 * span - t), 60 + (i % 40) * 3)
    }

    /// A snapshot branch that writes what it is given as a JPEG (GStreamer's jpegenc, through ImageFile)
    /// and reports it the way multifilesink does.
    final class WritingBranch: StageContext, @unchecked Sendable {
        let stageName = "cap"
        weak var stage: CaptureStage?
        let directory: String
        var count = 0
        var messages: [MessageStructure] = []
        init(directory: String) { self.directory = directory }
        func push(_ frame: VideoFrame, on output: String) -> Bool {
            guard output == "snapshot", let stage else { return true }
            count += 1
            let file = directory + "/.partial/" + String(format: "IMG_%05d.jpg", count)
            guard let plane = try? frame.planeBytes(plane: 0),
                  (try? ImageFile.encodeBGRA(plane.bytes, width: frame.info.width, height: frame.info.height, stride: plane.rowBytes, to: file)) != nil else { return false }
            stage.busMessage(BusMessage(source: "cap_snapshot_files", structure: MessageStructure("GstMultiFileSink", [
                ("filename", .string(file)), ("index", .int(Int32(count))), ("timestamp", .uint64(frame.pts ?? 0))])))
            return true
        }
        func push(_ tags: TagList, on output: String) -> Bool { true }
        func push(event: MessageStructure, on output: String) -> Bool { true }
        func post(_ message: MessageStructure) { messages.append(message) }
    }

    /// The centroid of the bright pixels of a photo file, decoded by GStreamer.
    static func brightCentroid(_ path: String, width: Int, height: Int) throws -> (x: Double, y: Double, count: Int) {
        let d = try ImageFile.decodeBGRA(path, width: width, height: height)
        var sx = 0.0, sy = 0.0, n = 0
        for y in 0..<height { for x in 0..<width where d.pixels[y * d.stride + x * 4 + 1] > 128 { sx += Double(x); sy += Double(y); n += 1 } }
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
        let compose = try ComposeStage(name: "c", properties: try StageHarness.values(kind: "compose", name: "c",
            [("engine", "saliency"), ("warmup", "0"), ("analysis-fps", "6"), ("analysis-width", "160"), ("sync", synchronous ? "true" : "false"), ("overlay", "false")]))
        let capture = try CaptureStage(name: "cap", properties: try StageHarness.values(kind: "capture", name: "cap",
            [("directory", dir), ("auto", "false"), ("at", "24,37,50,63,76"), ("crop", "3:4"), ("thumbnails", "false"), ("overlay", "false")]),
            triggers: Triggers())
        capture.outputsPlanned(["snapshot": capture.defaultBranch(for: "snapshot").map { .defaultBranch($0) } ?? .unused])
        try compose.open()
        try capture.open()
        try compose.configure(info)
        try capture.configure(info)
        let branch = WritingBranch(directory: dir)
        branch.stage = capture
        let caps = try Caps(info.capsString)
        for i in 0..<90 {
            let (cx, cy) = Self.position(i, width: info.width)
            let b = Buffer(bytes: Self.ball(info, cx: cx, cy: cy))
            b.pts = UInt64(i) * Self.frameNs
            b.duration = Self.frameNs
            let frame = VideoFrame(buffer: b, info: info, caps: caps, segment: Segment(), index: i)
            try compose.process(frame, context: branch)
            try capture.process(frame, context: branch)
            // Each analysis ends before the next frame: its result travels on the next frame's meta.
            compose.finish(context: branch)
        }
        capture.close()
        let records = capture.records
        #expect(records.count == 5, "\(branch.messages.map(\.text))")
        for r in records {
            let file = dir + "/" + r.file
            let c = try Self.brightCentroid(file, width: r.width, height: r.height)
            #expect(c.count > 500, "\(r.file): the ball is in the photo (\(c.count) bright pixels)")
            let s = try #require(r.subject, "\(r.file) has no subject box")
            #expect(c.x >= s.x && c.x <= s.x + s.width && c.y >= s.y && c.y <= s.y + s.height,
                    "\(r.file): box \(s) misses the ball at (\(c.x), \(c.y))")
            #expect(s.x >= 0 && s.y >= 0 && s.x + s.width <= Double(r.width) + 0.5 && s.y + s.height <= Double(r.height) + 0.5, "box inside the photo")
            // The analysis is the photo's own frame's.
            #expect(r.analysisPts != nil && r.analysisPts == r.pts, "\(r.file): analysed \(r.analysisPts.map(String.init) ?? "-"), photo \(r.pts.map(String.init) ?? "-")")
            #expect(Self.agrees(rule: r.rule, advice: r.advice), "\(r.file): rule \(r.rule ?? "-") vs advice \(r.advice ?? "-")")
            #expect(r.width == 180 && r.height == 240)
        }
        #expect(capture.summary() == "cap: 5 photos saved in \(dir)")
    }

    /// 13: compose's score and advice and capture's state line and countdown on one frame, at several
    /// sizes: no two texts overlap, all inside the frame, each really drawn.
    @Test(arguments: [(320, 240), (640, 480), (1280, 720), (1920, 1080)])
    func composeAndCaptureTextsNeverOverlap(size: (Int, Int)) throws {
        let info = try VideoInfo(format: "BGRA", width: size.0, height: size.1, fpsN: 30, fpsD: 1)
        let compose = try ComposeStage(name: "c", properties: try StageHarness.values(kind: "compose", name: "c",
            [("engine", "saliency"), ("warmup", "0"), ("sync", "true"), ("grid", "none")]))
        let triggers = Triggers()
        let capture = try CaptureStage(name: "cap", properties: try StageHarness.values(kind: "capture", name: "cap",
            [("directory", NSTemporaryDirectory() + "vf-layout-\(UUID().uuidString)"), ("auto", "false"), ("timer", "3")]), triggers: triggers)
        try compose.configure(info)
        try capture.configure(info)
        let ctx = RecordingContext(stageName: "cap")
        let caps = try Caps(info.capsString)
        var last: VideoFrame?
        for i in 0..<3 {
            if i == 1 { triggers.fire() }
            let b = Buffer(bytes: Self.ball(info, cx: info.width / 5, cy: info.height / 2, r: info.height / 12))
            b.pts = UInt64(i) * Self.frameNs
            let frame = VideoFrame(buffer: b, info: info, caps: caps, segment: Segment(), index: i)
            try compose.process(frame, context: ctx)
            try capture.process(frame, context: ctx)
            last = frame
        }
        let frame = try #require(last)
        let boxes = frame.textBoxes
        // The score block, the advice, the state line and the countdown digit.
        #expect(boxes.count == 4, "\(boxes)")
        for (i, a) in boxes.enumerated() {
            #expect(a.width > 0 && a.height > 0 && a.x >= 0 && a.y >= 0 && a.x + a.width <= size.0 && a.y + a.height <= size.1, "\(a) outside \(size)")
            for b in boxes[(i + 1)...] {
                let overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
                #expect(!overlap, "\(a) overlaps \(b) at \(size)")
            }
        }
        // Drawn where they say: the background is black, each box gets light pixels (text or backdrop edge).
        let before = try frame.planeBytes(plane: 0)
        try frame.blendOverlays()
        let after = try frame.planeBytes(plane: 0)
        for a in boxes {
            var changed = 0
            for y in a.y..<(a.y + a.height) { for x in a.x..<(a.x + a.width) where after.bytes[y * after.rowBytes + x * 4 + 1] > 150 && before.bytes[y * before.rowBytes + x * 4 + 1] < 100 { changed += 1 } }
            #expect(changed > 10, "nothing drawn in \(a) at \(size)")
        }
    }
}
