/// What the analysis saw in one frame, in input pixels: the subject (one face, or a group's union), the faces
/// that must stay in the output (the subject's members, or the face itself), every other face seen, and where
/// the subject looks.
public struct FramingScene: Sendable, Equatable {
    /// The subject's box (nil: nobody).
    public var subject: Box?
    /// Faces that must be wholly inside the output: a group's members, or the subject itself.
    public var required: [Box]
    /// Every face found (the required ones included): none may be cut by the output's edge.
    public var faces: [Box]
    /// The subject's eyes (one face; nil for groups or engines without landmarks).
    public var eyes: Detection.Eyes?
    /// Where the subject looks, -1 (image left) ... 1 (image right); nil: unknown.
    public var look: Double?
    /// Whether the subject is a group.
    public var isGroup: Bool
    /// Where the leading line that runs to the subject comes from (its far end), when compose's `lines` found one.
    public var lead: Point2D?
    /// Whether the subject is a salient object, not a person (compose's saliency engine: nobody found). It is kept
    /// uncut like a face, but followed by pans: not cut after more often than `ReframeSettings.cutInterval`.
    public var salient = false

    /// Creates a scene.
    public init(subject: Box?, required: [Box] = [], faces: [Box] = [], eyes: Detection.Eyes? = nil, look: Double? = nil, isGroup: Bool = false,
        lead: Point2D? = nil
    ) {
        self.subject = subject
        self.required = required.isEmpty ? (subject.map { [$0] } ?? []) : required
        self.faces = faces.isEmpty ? self.required : faces
        self.eyes = eyes; self.look = look; self.isGroup = isGroup; self.lead = lead
    }

    /// Nobody.
    public static let empty = FramingScene(subject: nil)

    /// The height of the faces that set the zoom: the required faces' mean.
    var faceHeight: Double {
        required.isEmpty ? (subject?.height ?? 0) : required.map(\.height).reduce(0, +) / Double(required.count)
    }

    /// The eye line (y): the eyes', else 40 % down each required face, averaged.
    var eyeLine: Double? {
        if let e = eyes { return (e.left.y + e.right.y) / 2 }
        guard !required.isEmpty else { return subject.map { $0.y + 0.4 * $0.height } }
        return required.map { $0.y + 0.4 * $0.height }.reduce(0, +) / Double(required.count)
    }
}
