import FrameAnalysis
import GStreamerKit

/// `viewfinder/composition`: compose's verdict on one analysed frame, posted once per analysis.
///
/// Fields, in order: `pts` (guint64, G_MAXUINT64: none), `frame` (guint64), `rule` (string), `score`
/// (double), `well-composed`, `locked` (boolean), `x`, `y`, `width`, `height` (double: the drawn subject
/// box in input pixels; -1, -1, 0, 0 without a subject), `engine` (string, `none` when nothing was
/// found), `faces` (string: `x,y,w,h` per face in whole input pixels, joined by `;`), `face-count` (int),
/// `advice` (string), `analysis-ms` (double), then, only when exposure was measured (`rule=exposure`, or
/// `rule=auto` with a subject), `subject-luma`, `background-luma`, `clipped`, `exposure-stops` (double:
/// see `ExposureFigures`), then, when the faces were followed, `face-ids` (string: each face's track id, in the order of
/// `faces`, joined by `;`) and, when the subject is one face or person, `subject-id` (int): stable while it is followed.
/// A reader of an older message gets no ids.
public struct CompositionMessage: ViewfinderMessage {
    public static let structureName = "viewfinder/composition"

    /// The analysed frame's pts (nil: unknown).
    public var pts: UInt64?
    /// The analysed frame's index in the stream.
    public var frame: Int
    /// The rule that judged it.
    public var rule: String
    /// 0...1.
    public var score: Double
    /// Whether the frame follows the rule.
    public var wellComposed: Bool
    /// Whether it has been well composed long enough to count as locked.
    public var locked: Bool
    /// The drawn subject box in input pixels (nil: no subject).
    public var subject: Box?
    /// The engine that found the subject (`none`: nothing found).
    public var engine: String
    /// Face boxes in input pixels, written rounded to whole pixels.
    public var faces: [Box]
    /// The advice line.
    public var advice: String
    /// Time the analysis took, in milliseconds.
    public var analysisMs: Double
    /// The exposure figures (nil: not measured).
    public var exposure: ExposureFigures?
    /// The track id of each of `faces` (`ObjectTracker`), in order; empty: not followed.
    public var faceIDs: [Int] = []
    /// The subject's track id (nil: none, or a group or salient subject).
    public var subjectID: Int?

    /// Creates a message.
    public init(
        pts: UInt64?, frame: Int, rule: String, score: Double, wellComposed: Bool, locked: Bool, subject: Box?,
        engine: String, faces: [Box], advice: String, analysisMs: Double, exposure: ExposureFigures? = nil
    ) {
        self.pts = pts; self.frame = frame; self.rule = rule; self.score = score; self.wellComposed = wellComposed
        self.locked = locked; self.subject = subject; self.engine = engine; self.faces = faces; self.advice = advice
        self.analysisMs = analysisMs; self.exposure = exposure
    }

    /// The message for `guidance` of frame `frame`, with boxes in a `width` x `height` input frame.
    public init(_ g: Guidance, frame: Int, inputWidth w: Int, inputHeight h: Int) {
        let sx = Double(w) / Double(g.frameWidth), sy = Double(h) / Double(g.frameHeight)
        let found = g.detections(of: .face)
        self.init(
            pts: g.pts, frame: frame, rule: g.rule, score: g.score, wellComposed: g.wellComposed, locked: g.locked,
            subject: g.subjectBox(width: w, height: h), engine: g.engine ?? "none",
            faces: found.map { $0.box.scaled(sx, sy) },
            advice: g.advice, analysisMs: g.totalMs, exposure: g.exposure)
        if found.contains(where: { $0.id != nil }) { faceIDs = found.map { $0.id ?? 0 } }
        subjectID = g.subject?.id
    }

    /// `x,y,w,h;...` in whole pixels.
    public var facesText: String {
        faces.map { "\(Int($0.x.rounded())),\(Int($0.y.rounded())),\(Int($0.width.rounded())),\(Int($0.height.rounded()))" }
            .joined(separator: ";")
    }

    public var structure: MessageStructure {
        var fields: [(String, MessageStructure.Value)] = [
            ("pts", .uint64(pts ?? UInt64.max)), ("frame", .uint64(UInt64(max(0, frame)))), ("rule", .string(rule)),
            ("score", .double(score)), ("well-composed", .bool(wellComposed)), ("locked", .bool(locked)),
            ("x", .double(subject?.x ?? -1)), ("y", .double(subject?.y ?? -1)),
            ("width", .double(subject?.width ?? 0)), ("height", .double(subject?.height ?? 0)),
            ("engine", .string(engine)), ("faces", .string(facesText)), ("face-count", .int(Int32(clamping: faces.count))),
            ("advice", .string(advice)), ("analysis-ms", .double(analysisMs)),
        ]
        if let exposure { fields += Self.exposureFields(exposure) }
        if !faceIDs.isEmpty { fields.append(("face-ids", .string(faceIDs.map(String.init).joined(separator: ";")))) }
        if let subjectID { fields.append(("subject-id", .int(Int32(clamping: subjectID)))) }
        return MessageStructure(Self.structureName, fields)
    }

    /// The exposure fields, in order: `subject-luma`, `background-luma`, `clipped`, `exposure-stops`
    /// (shared with `CompositionMeta`).
    static func exposureFields(_ e: ExposureFigures) -> [(String, MessageStructure.Value)] {
        [
            ("subject-luma", .double(e.subjectLuma)), ("background-luma", .double(e.backgroundLuma)),
            ("clipped", .double(e.clipped)), ("exposure-stops", .double(e.stops)),
        ]
    }

    /// The exposure figures in `s`; nil unless all four fields are there.
    static func exposure(in s: MessageStructure) -> ExposureFigures? {
        guard let l = s.double("subject-luma"), let b = s.double("background-luma"), let c = s.double("clipped"),
            let e = s.double("exposure-stops")
        else { return nil }
        return ExposureFigures(subjectLuma: l, backgroundLuma: b, clipped: c, stops: e)
    }

    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let p = UInt64(bitPattern: try s.required(integer: "pts"))
        pts = p == UInt64.max ? nil : p
        frame = Int(try s.required(integer: "frame"))
        rule = try s.required(string: "rule")
        score = try s.required(double: "score")
        wellComposed = try s.required(bool: "well-composed")
        locked = try s.required(bool: "locked")
        let x = try s.required(double: "x"), y = try s.required(double: "y")
        let w = try s.required(double: "width"), h = try s.required(double: "height")
        subject = w > 0 && h > 0 ? Box(x: x, y: y, width: w, height: h) : nil
        engine = try s.required(string: "engine")
        let text = try s.required(string: "faces")
        var boxes: [Box] = []
        for item in text.split(separator: ";") {
            let n = item.split(separator: ",").compactMap { Double($0) }
            guard n.count == 4 else { throw MessageDecodingError("\(s.name): bad face '\(item)' in 'faces': expected x,y,w,h") }
            boxes.append(Box(x: n[0], y: n[1], width: n[2], height: n[3]))
        }
        faces = boxes
        let count = try s.required(integer: "face-count")
        guard count == Int64(boxes.count) else {
            throw MessageDecodingError("\(s.name): face-count \(count) does not match the \(boxes.count) faces listed")
        }
        advice = try s.required(string: "advice")
        analysisMs = try s.required(double: "analysis-ms")
        exposure = Self.exposure(in: s)
        if let text = s.string("face-ids") {
            let ids = text.split(separator: ";").map { Int($0) }
            guard ids.count == boxes.count, ids.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw MessageDecodingError("\(s.name): 'face-ids' '\(text.prefix(80))' is not one id (0 or more) per face listed")
            }
            faceIDs = ids.compactMap { $0 }
        }
        if let id = s.integer("subject-id") {
            guard id >= 0, let v = Int(exactly: id) else { throw MessageDecodingError("\(s.name): bad 'subject-id' \(id): expected 0 or more") }
            subjectID = v
        }
    }
}
