import FrameAnalysis
import GStreamerKit

/// The `ViewfinderComposition` custom meta compose attaches to every frame: the one place its fields
/// are named, written and read.
///
/// Fields, in the order written (boxes in pixels of an `input-width` x `input-height` frame):
/// ```
/// analysis-pts (guint64, G_MAXUINT64: unknown), rule (string), score (double), well-composed, locked (boolean),
/// x, y, width, height (double: the drawn, smoothed subject box; -1, -1, 0, 0 without a subject),
/// measured-x, measured-y, measured-width, measured-height (double: the subject as detected; same convention),
/// eye-left-x, eye-left-y, eye-right-x, eye-right-y (double: the subject's eyes, image left first; only when
/// the engine located them: engine=cnn), input-width, input-height (int), advice (string),
/// faces (string: every face the analysis found, "x,y,w,h" boxes joined by ";", at most 64; only when there is
/// one), members (string, same format: a group subject's members), look (double, -1 image left ... 1 image right:
/// where the subject's face looks, only when the engine knows), lead-x, lead-y (double: where the leading line that
/// runs to the subject comes from — its far end — when the rule that judged was `lines` and found one),
/// subject-luma, background-luma, clipped, exposure-stops (double, only when exposure was measured: see
/// `ExposureFigures`; `rule=exposure` and `rule=auto` with a subject), subject-kind (string),
/// face-ids, member-ids (string: the track id of each of `faces` and `members`, in their order, joined by ";"; 0: none),
/// persons (string: every person found, upper or full body, boxes as `faces`), person-ids (string, as face-ids),
/// subject-id (int: the subject's track id, only when it has one: a face or a person, not a group),
/// analysing (boolean, only when true), skipped-pts (guint64, only when set)
/// ```
/// The first group is present once compose has finished an analysis (`analysis` non-nil); a frame
/// before that carries only `analysing`/`skipped-pts`, and a frame with nothing to say carries no meta.
public struct CompositionMeta: Sendable, Equatable {
    /// The meta's registered name (also the structure name).
    public static let name = "ViewfinderComposition"

    /// compose's verdict on one analysed frame: what capture reads (`FrameComposition` is this type), plus `locked`.
    public struct Analysis: Sendable, Equatable {
        /// The rule that judged the frame (`auto` reports the placement rule it chose).
        public var rule: String
        /// 0...1, higher is better.
        public var score: Double
        /// Whether the frame follows the rule (`well-composed`).
        public var composed: Bool
        /// Whether it has been well composed long enough to count as locked.
        public var locked: Bool
        /// The advice line shown.
        public var advice: String
        /// The drawn (smoothed) subject box, in pixels of an `inputWidth` x `inputHeight` frame.
        public var subject: Box?
        /// The subject as detected in the analysed frame (nil: none, or only the drawn box is known).
        public var measured: Box?
        /// The measured subject's eyes, same pixels (nil: the engine does not locate eyes).
        public var eyes: Detection.Eyes?
        /// The pts of the analysed frame (nil: unknown).
        public var analysisPts: UInt64?
        /// The frame size the boxes are in (0: the frame's own).
        public var inputWidth: Int
        /// See `inputWidth`.
        public var inputHeight: Int
        /// The exposure figures, when the rule measured them.
        public var exposure: ExposureFigures?
        /// Every face the analysis found (same pixels as `subject`), for stages that must not cut one (reframe).
        public var faces: [Box] = []
        /// A group subject's members (same pixels); empty for one face.
        public var members: [Box] = []
        /// Where the subject looks, -1 (image left) ... 1 (image right); nil: unknown.
        public var look: Double?
        /// The far end of the leading line that runs to the subject (same pixels; `lines` only).
        public var lead: Point2D?
        /// What the subject is (a face, a body, a salient object, a group; as the JSON lines' `subject_kind`); nil:
        /// not said (a writer older than the field).
        public var kind: Detection.Kind?
        /// The track id of each of `faces`, in order (`ObjectTracker`: stable while the face is followed, never reused
        /// in the stream; 0: none); empty: not said.
        public var faceIDs: [Int] = []
        /// Every person (upper or full body) the analysis found (same pixels as `faces`).
        public var persons: [Box] = []
        /// The track id of each of `persons`, as `faceIDs`.
        public var personIDs: [Int] = []
        /// The track id of each of `members`, as `faceIDs`.
        public var memberIDs: [Int] = []
        /// The subject's track id (a face or a person; nil for a group, a salient object, or not said).
        public var subjectID: Int?

        /// Creates a verdict.
        public init(
            rule: String, score: Double, composed: Bool, locked: Bool = false, advice: String, subject: Box? = nil,
            measured: Box? = nil, eyes: Detection.Eyes? = nil, analysisPts: UInt64? = nil, inputWidth: Int = 0, inputHeight: Int = 0,
            exposure: ExposureFigures? = nil
        ) {
            self.rule = rule; self.score = score; self.composed = composed; self.locked = locked; self.advice = advice
            self.subject = subject; self.measured = measured; self.eyes = eyes; self.analysisPts = analysisPts
            self.inputWidth = inputWidth; self.inputHeight = inputHeight; self.exposure = exposure
        }

        /// The verdict of `guidance`, with its boxes mapped to a `width` x `height` input frame.
        public init(_ guidance: Guidance, inputWidth width: Int, inputHeight height: Int) {
            self.init(
                rule: guidance.rule, score: guidance.score, composed: guidance.wellComposed, locked: guidance.locked,
                advice: guidance.advice, subject: guidance.subjectBox(width: width, height: height),
                measured: guidance.measuredNormalized.map { $0.scaled(Double(width), Double(height)) },
                eyes: guidance.subject?.eyes?.scaled(
                    Double(width) / Double(max(1, guidance.frameWidth)), Double(height) / Double(max(1, guidance.frameHeight))),
                analysisPts: guidance.pts, inputWidth: width, inputHeight: height, exposure: guidance.exposure)
            let sx = Double(width) / Double(max(1, guidance.frameWidth)), sy = Double(height) / Double(max(1, guidance.frameHeight))
            let found = guidance.detections(of: .face).prefix(Self.maxBoxes)
            faces = found.map { $0.box.scaled(sx, sy) }
            let people = guidance.detections(of: .person).prefix(Self.maxBoxes)
            persons = people.map { $0.box.scaled(sx, sy) }
            let memberBoxes = (guidance.subject?.members ?? []).prefix(Self.maxBoxes)
            members = memberBoxes.map { $0.scaled(sx, sy) }
            if guidance.detections.contains(where: { $0.id != nil }) {
                faceIDs = found.map { $0.id ?? 0 }
                personIDs = people.map { $0.id ?? 0 }
                memberIDs = memberBoxes.map { ObjectTracker.id(of: $0, in: guidance.detections) ?? 0 }
            }
            subjectID = guidance.subject?.id
            look = guidance.subject?.look
            kind = guidance.subject?.kind
            lead = Self.lead(guidance.details, rule: guidance.rule).map { Point2D(x: $0.x * Double(width), y: $0.y * Double(height)) }
        }

        /// The far end (normalised) of `LinesRule`'s best leading line, from its details (`best`, `line<i>.x1...`), and
        /// the subject's centre is the other end's side; nil when the rule was not `lines` or found no leading line.
        static func lead(_ d: [String: Double], rule: String) -> Point2D? {
            guard rule == "lines", let b = d["best"], b >= 0, b < 64 else { return nil }
            let i = Int(b)
            guard let x1 = d["line\(i).x1"], let y1 = d["line\(i).y1"], let x2 = d["line\(i).x2"], let y2 = d["line\(i).y2"],
                let tx = d["targetX"], let ty = d["targetY"]
            else { return nil }
            // The end farther from where the subject belongs on the line.
            let d1 = (x1 - tx) * (x1 - tx) + (y1 - ty) * (y1 - ty), d2 = (x2 - tx) * (x2 - tx) + (y2 - ty) * (y2 - ty)
            return d1 >= d2 ? Point2D(x: x1, y: y1) : Point2D(x: x2, y: y2)
        }

        /// At most this many boxes in `faces` and `members`.
        public static let maxBoxes = 64

        /// Boxes as the meta's text: "x,y,w,h" joined by ";", one decimal.
        static func text(_ boxes: [Box]) -> String {
            boxes.map { String(format: "%.1f,%.1f,%.1f,%.1f", $0.x, $0.y, $0.width, $0.height) }.joined(separator: ";")
        }

        /// Ids as the meta's text: joined by ";".
        static func text(_ ids: [Int]) -> String { ids.map(String.init).joined(separator: ";") }

        /// Ids read from the meta's text, for `count` boxes: empty unless there are exactly `count` ids, each 0 or more.
        static func ids(_ text: String?, count: Int) -> [Int] {
            guard let text, count > 0, text.utf8.count <= maxBoxes * 21 else { return [] }
            let ids = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
            guard ids.count == count, ids.allSatisfy({ ($0 ?? -1) >= 0 }) else { return [] }
            return ids.compactMap { $0 }
        }

        /// Boxes read from the meta's text: at most `maxBoxes`; an entry that is not four finite numbers with a
        /// positive size is skipped.
        static func boxes(_ text: String?) -> [Box] {
            guard let text, text.utf8.count <= maxBoxes * 64 else { return [] }
            return text.split(separator: ";").prefix(maxBoxes).compactMap { entry -> Box? in
                let v = entry.split(separator: ",").compactMap { Double($0) }
                guard v.count == 4, v.allSatisfy(\.isFinite), v[2] > 0, v[3] > 0 else { return nil }
                return Box(x: v[0], y: v[1], width: v[2], height: v[3])
            }
        }

        /// Where the subject is in the analysed frame's pixels (the measured box, else the drawn one),
        /// scaled to a `width` x `height` frame.
        public func box(width: Int, height: Int) -> Box? {
            guard let b = measured ?? subject else { return nil }
            guard inputWidth > 0, inputHeight > 0, inputWidth != width || inputHeight != height else { return b }
            return b.scaled(Double(width) / Double(inputWidth), Double(height) / Double(inputHeight))
        }
    }

    /// The latest finished analysis (of the frame at `analysis.analysisPts`, usually an earlier one).
    public var analysis: Analysis?
    /// This frame went to the analysis thread: its verdict comes with a later frame's meta.
    public var analysing: Bool
    /// The pts of an earlier frame whose queued analysis this frame's replaced (it will get no verdict).
    public var skippedPts: UInt64?

    /// Creates a meta.
    public init(analysis: Analysis?, analysing: Bool = false, skippedPts: UInt64? = nil) {
        self.analysis = analysis; self.analysing = analysing; self.skippedPts = skippedPts
    }

    /// Whether there is nothing to attach (no verdict yet, nothing being analysed or skipped).
    public var isEmpty: Bool { analysis == nil && !analysing && skippedPts == nil }

    /// The meta's structure, fields in the documented order.
    public var structure: MessageStructure {
        var fields: [(String, MessageStructure.Value)] = []
        if let a = analysis {
            func box(_ prefix: String, _ b: Box?) -> [(String, MessageStructure.Value)] {
                [
                    ("\(prefix)x", .double(b?.x ?? -1)), ("\(prefix)y", .double(b?.y ?? -1)),
                    ("\(prefix)width", .double(b?.width ?? 0)), ("\(prefix)height", .double(b?.height ?? 0)),
                ]
            }
            fields = [
                ("analysis-pts", .uint64(a.analysisPts ?? UInt64.max)), ("rule", .string(a.rule)), ("score", .double(a.score)),
                ("well-composed", .bool(a.composed)), ("locked", .bool(a.locked)),
            ]
            fields += box("", a.subject) + box("measured-", a.measured)
            if let e = a.eyes {
                fields += [
                    ("eye-left-x", .double(e.left.x)), ("eye-left-y", .double(e.left.y)),
                    ("eye-right-x", .double(e.right.x)), ("eye-right-y", .double(e.right.y)),
                ]
            }
            fields += [
                ("input-width", .int(Int32(clamping: a.inputWidth))), ("input-height", .int(Int32(clamping: a.inputHeight))),
                ("advice", .string(a.advice)),
            ]
            if let e = a.exposure { fields += CompositionMessage.exposureFields(e) }
            if !a.faces.isEmpty { fields.append(("faces", .string(Analysis.text(a.faces)))) }
            if !a.members.isEmpty { fields.append(("members", .string(Analysis.text(a.members)))) }
            if let l = a.look { fields.append(("look", .double(l))) }
            if let p = a.lead { fields += [("lead-x", .double(p.x)), ("lead-y", .double(p.y))] }
            if let k = a.kind { fields.append(("subject-kind", .string(k.rawValue))) }
            if !a.faceIDs.isEmpty, a.faceIDs.count == a.faces.count { fields.append(("face-ids", .string(Analysis.text(a.faceIDs)))) }
            if !a.memberIDs.isEmpty, a.memberIDs.count == a.members.count {
                fields.append(("member-ids", .string(Analysis.text(a.memberIDs))))
            }
            if !a.persons.isEmpty { fields.append(("persons", .string(Analysis.text(a.persons)))) }
            if !a.personIDs.isEmpty, a.personIDs.count == a.persons.count {
                fields.append(("person-ids", .string(Analysis.text(a.personIDs))))
            }
            if let id = a.subjectID { fields.append(("subject-id", .int(Int32(clamping: id)))) }
        }
        if analysing { fields.append(("analysing", .bool(true))) }
        if let skippedPts { fields.append(("skipped-pts", .uint64(skippedPts))) }
        return MessageStructure(Self.name, fields)
    }

    /// Reads a meta structure; nil when it is another structure. Lenient, as readers have always been:
    /// the verdict is there when `score` is; a missing field takes its "unknown" value ("" for text,
    /// false, nil boxes, 0 sizes); a box with no positive width and height is no box.
    public init?(structure m: MessageStructure) {
        guard m.name == Self.name else { return nil }
        analysing = m.bool("analysing") ?? false
        skippedPts = m.integer("skipped-pts").map { UInt64(bitPattern: $0) }
        guard let score = m.double("score") else { analysis = nil; return }
        func box(_ prefix: String) -> Box? {
            guard let w = m.double("\(prefix)width"), let h = m.double("\(prefix)height"), w > 0, h > 0,
                let x = m.double("\(prefix)x"), let y = m.double("\(prefix)y")
            else { return nil }
            return Box(x: x, y: y, width: w, height: h)
        }
        let pts = m.integer("analysis-pts").map { UInt64(bitPattern: $0) }
        var eyes: Detection.Eyes?
        if let lx = m.double("eye-left-x"), let ly = m.double("eye-left-y"), let rx = m.double("eye-right-x"),
            let ry = m.double("eye-right-y")
        {
            eyes = Detection.Eyes(left: Point2D(x: lx, y: ly), right: Point2D(x: rx, y: ry))
        }
        analysis = Analysis(
            rule: m.string("rule") ?? "", score: score, composed: m.bool("well-composed") ?? false,
            locked: m.bool("locked") ?? false, advice: m.string("advice") ?? "",
            subject: box(""), measured: box("measured-"), eyes: eyes, analysisPts: pts == UInt64.max ? nil : pts,
            inputWidth: m.integer("input-width").map { Int($0) } ?? 0,
            inputHeight: m.integer("input-height").map { Int($0) } ?? 0,
            exposure: CompositionMessage.exposure(in: m))
        analysis?.faces = Analysis.boxes(m.string("faces"))
        analysis?.members = Analysis.boxes(m.string("members"))
        analysis?.look = m.double("look").flatMap { $0.isFinite ? min(1, max(-1, $0)) : nil }
        if let x = m.double("lead-x"), let y = m.double("lead-y"), x.isFinite, y.isFinite { analysis?.lead = Point2D(x: x, y: y) }
        analysis?.kind = m.string("subject-kind").flatMap(Detection.Kind.init(rawValue:))
        if var a = analysis {
            a.faceIDs = Analysis.ids(m.string("face-ids"), count: a.faces.count)
            a.memberIDs = Analysis.ids(m.string("member-ids"), count: a.members.count)
            a.persons = Analysis.boxes(m.string("persons"))
            a.personIDs = Analysis.ids(m.string("person-ids"), count: a.persons.count)
            a.subjectID = m.integer("subject-id").flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
            analysis = a
        }
    }

    /// The meta on `frame`; nil when the frame carries none (or it does not parse).
    public init?(frame: VideoFrame) {
        guard let text = frame.buffer.customMetaText(Self.name), let m = MessageStructure(parsing: text) else { return nil }
        self.init(structure: m)
    }

    /// Attaches the meta to `frame`, replacing an earlier one; an empty meta (`isEmpty`) is not attached.
    public func attach(to frame: VideoFrame) {
        guard !isEmpty else { return }
        frame.buffer.setCustomMeta(structure)
    }
}
