/// Stable ids for what an analysis found: `identify` gives each face and person of a `Guidance` the id of the track
/// that follows it (`ObjectTracker`), and the subject the id of the detection it was chosen from.
extension ObjectTracker {
    /// The track kind of a detection kind: faces (frontal or profile) and people (upper or full body); nil for a
    /// salient object or a group (a group's members carry their own ids).
    public static func kind(of k: Detection.Kind) -> Kind? {
        switch k {
        case .face, .profileFace: .face
        case .upperBody, .fullBody: .person
        case .salient, .group: nil
        }
    }

    /// Follows the faces and people of `g` (an analysis of the frame at `time`, in the tracker's pixels) and writes
    /// their track ids into `g.detections[i].id`; the subject takes the id of the detection its measured box is (the
    /// one with the largest overlap, at least half: the subject is chosen from the detections); a group has none.
    public mutating func identify(_ g: inout Guidance, at time: Double) {
        var found: [(box: Box, kind: Kind)] = [], index: [Int] = []
        for (i, d) in g.detections.enumerated() {
            guard let k = Self.kind(of: d.kind) else { continue }
            found.append((d.box, k)); index.append(i)
        }
        let ids = detected(found, at: time)
        for (i, id) in zip(index, ids) { g.detections[i].id = id }
        g.subject?.id = nil
        guard let s = g.subject, s.kind != .group, let m = g.measuredBox else { return }
        g.subject?.id = Self.id(of: m, in: g.detections.filter { Self.kind(of: $0.kind) == Self.kind(of: s.kind) })
    }

    /// The id of the detection in `detections` that is `box` (overlap at least half, the largest); nil: none is.
    public static func id(of box: Box, in detections: [Detection]) -> Int? {
        guard let best = detections.filter({ $0.id != nil }).max(by: { $0.box.iou(box) < $1.box.iou(box) }),
            best.box.iou(box) >= 0.5
        else { return nil }
        return best.id
    }
}

extension Guidance {
    /// The detections a tracker follows as `kind`: faces (frontal or profile) or people (upper or full body), in order.
    public func detections(of kind: ObjectTracker.Kind) -> [Detection] {
        detections.filter { ObjectTracker.kind(of: $0.kind) == kind }
    }
}
