/// Makes people who stand together one subject: faces (or bodies) of comparable size, side by side,
/// become a single `.group` detection whose box is their union.
///
/// The rule, for two detections `a` and `b` of the same family (faces with faces, profile faces
/// counting as faces; upper/full bodies with bodies; salient regions never group), with `w` the box
/// width, `h` its height and `c` its centre, all in pixels:
/// ```
/// comparable  = min(w) >= max(w) / sizeRatio                           sizeRatio = 1.6
/// side by side = max(0, |c.x(a) - c.x(b)| - (w(a) + w(b)) / 2) <= maxGap · max(w(a), w(b))   maxGap = 1.5
/// near rows   = |c.y(a) - c.y(b)| <= maxRowOffset · max(h(a), h(b))     maxRowOffset = 2.0
/// ```
/// Groups grow from the largest detection not yet grouped (the seed): any detection at least
/// `seed width / sizeRatio` wide that is side by side and in a near row with a member joins, until
/// none does; so every member is within `sizeRatio` of the group's largest, and a chain of ever
/// smaller faces cannot pull a small background face in. Two or more members make a group.
///
/// Why these numbers (a face box is about 16 cm wide and 20 cm high on an adult):
/// - `sizeRatio` 1.6: at one distance from the camera, face boxes differ by head size (an adult and
///   a school child: ~1.25), by the detector's scale step (1.1, one step either way: ~1.2) and by
///   half a step of depth at portrait distance (~1.1); the product is ~1.6. A stranger a few metres
///   behind the group is 2x or more smaller and stays out.
/// - `maxGap` 1.5 widths: shoulder breadth is ~40 cm, ~2.5 face widths, so two people standing
///   shoulder to shoulder have ~1.5 face widths between their face boxes; friends posing lean in
///   (less). Someone an arm's length away from the others (gap ~3-4 widths) is not in the group.
/// - `maxRowOffset` 2 face heights (~40 cm): a group photo has rows. Adult heights differ by less than
///   one face height for nearly every pair (standard deviation ~9 cm over men and women), and the back
///   row's faces sit 1-1.5 face heights above the front row's (one head up, shoulders overlapping):
///   on the labelled photos, multi_face's friend sitting higher on the rock is 1.3-1.5 heights above
///   his neighbours, and family's son, on the sofa between his parents, 1.1 heights below his mother.
///   A photographer frames
///   both rows, so both are the group; a third row joins through the middle one. (1 height, the first
///   choice, cut those friends out of the group on real photos.) Someone two heads off stays out.
///
/// The group's `look` is the mean of its members' known looks (nil when none is known): people who all watch
/// one side give the group that side, two who face each other cancel out (about 0: no side needs room); it has
/// no `eyes` (a rule estimates the eye line from the union box).
/// The group's box is the union of its members; its confidence the mean of theirs; its `members` the
/// member boxes (in the engine's order); its `anchor` the size-weighted centre, `Σ area·centre / Σ area`, expressed inside
/// the union box (0...1 on each axis), which the rules use as the subject's centre (a big face pulls
/// the centre towards itself; equal faces give the middle of the union).
public struct SubjectGrouping: Sendable, Equatable {
    /// Largest ratio of the group's largest width to a member's width.
    public var sizeRatio: Double
    /// Largest horizontal gap between neighbours, in widths of the larger of the two.
    public var maxGap: Double
    /// Largest vertical offset of neighbours' centres, in heights of the larger of the two.
    public var maxRowOffset: Double

    /// Creates the rule with the documented numbers (1.6, 1.5, 2.0).
    public init(sizeRatio: Double = 1.6, maxGap: Double = 1.5, maxRowOffset: Double = 2.0) {
        self.sizeRatio = sizeRatio; self.maxGap = maxGap; self.maxRowOffset = maxRowOffset
    }

    /// Which detections may group with which: 0 faces, 1 bodies, nil never (salient, groups).
    static func family(_ k: Detection.Kind) -> Int? {
        switch k {
        case .face, .profileFace: 0
        case .upperBody, .fullBody: 1
        case .salient, .group: nil
        }
    }

    /// Whether `a` and `b` stand together: same family, side by side, same row (sizes are checked
    /// against the group's seed by `groups`).
    public func adjacent(_ a: Detection, _ b: Detection) -> Bool {
        guard let fa = Self.family(a.kind), fa == Self.family(b.kind) else { return false }
        let (ca, cb) = (a.box.center, b.box.center)
        let gap = max(0, abs(ca.x - cb.x) - (a.box.width + b.box.width) / 2)
        guard gap <= maxGap * max(a.box.width, b.box.width) else { return false }
        return abs(ca.y - cb.y) <= maxRowOffset * max(a.box.height, b.box.height)
    }

    /// The groups among `detections`, as index lists (each sorted, two or more members), largest seed
    /// first; detections in no group are not listed.
    public func groups(_ detections: [Detection]) -> [[Int]] {
        let order = detections.indices.sorted { detections[$0].box.area > detections[$1].box.area }
        var taken = [Bool](repeating: false, count: detections.count)
        var out: [[Int]] = []
        for seed in order where !taken[seed] && Self.family(detections[seed].kind) != nil {
            let minWidth = detections[seed].box.width / sizeRatio
            var members = [seed]
            taken[seed] = true
            var grew = true
            while grew {
                grew = false
                for i in order where !taken[i] && detections[i].box.width >= minWidth {
                    if members.contains(where: { adjacent(detections[$0], detections[i]) }) {
                        members.append(i); taken[i] = true; grew = true
                    }
                }
            }
            // A seed left alone stays out: nobody of comparable size stands next to it, and a smaller seed
            // must not pull it into a group whose largest member it would be by more than `sizeRatio`.
            if members.count >= 2 { out.append(members.sorted()) }
        }
        return out
    }

    /// One `.group` detection for `members` (union box, mean confidence, member boxes, size-weighted anchor).
    public static func group(_ members: [Detection]) -> Detection {
        let x0 = members.map(\.box.x).min() ?? 0, y0 = members.map(\.box.y).min() ?? 0
        let x1 = members.map { $0.box.x + $0.box.width }.max() ?? 0, y1 = members.map { $0.box.y + $0.box.height }.max() ?? 0
        let union = Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let total = members.reduce(0) { $0 + $1.box.area }
        var cx = 0.0, cy = 0.0
        for m in members {
            let a = total > 0 ? m.box.area / total : 1 / Double(members.count)
            cx += a * m.box.center.x; cy += a * m.box.center.y
        }
        let anchor = Point2D(
            x: union.width > 0 ? (cx - x0) / union.width : 0.5, y: union.height > 0 ? (cy - y0) / union.height : 0.5)
        let conf = members.reduce(0) { $0 + $1.confidence } / Double(max(1, members.count))
        let looks = members.compactMap(\.look)
        let look = looks.isEmpty ? nil : looks.reduce(0, +) / Double(looks.count)
        return Detection(box: union, confidence: conf, kind: .group, members: members.map(\.box), anchor: anchor, look: look)
    }

    /// The candidates for the subject: every group as one `.group` detection (in `groups` order), then
    /// the detections in no group, in their original order. Members do not compete on their own.
    public func candidates(_ detections: [Detection]) -> [Detection] {
        let gs = groups(detections)
        guard !gs.isEmpty else { return detections }
        let grouped = Set(gs.joined())
        return gs.map { Self.group($0.map { detections[$0] }) } + detections.indices.filter { !grouped.contains($0) }.map { detections[$0] }
    }
}
