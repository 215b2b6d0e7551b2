import FrameAnalysis

/// `bench reframe`'s measures of one framing (a window per frame) against the truth faces of each frame. Pure: no
/// clock, no pixels.
public enum ReframeMetrics {
    /// How far a face's box may be off, as a fraction of the face's width on each side: a detector's box and a
    /// labeller's differ by this much (3-6 px on 150 px faces), so a set of faces that fits a window only with less
    /// room than that is one no framing can be held to (the operator's own `FramingTarget.fitMargin`).
    public static let boxError = FramingTarget.fitMargin

    /// The faces that must be wholly inside: the largest set of `faces` whose union fits in a `width` x `height`
    /// window (the widest window of the output's shape) with `margin` (a fraction of the widest face's width) on each
    /// side, ties broken by the larger total face area. All of them when they fit together; for a row of six friends
    /// wider than a 9:16 window, the most neighbours that fit. A set of two or more that fits only within the boxes'
    /// error is not required (a window holding it still holds at least as many: `holdsLargestSet` counts); one face
    /// no larger than the window is (the caller leaves out the larger).
    public static func required(_ faces: [Box], width: Double, height: Double, margin: Double = boxError) -> [Box] {
        func room(_ set: [Box]) -> Double { set.count < 2 ? 0 : 2 * margin * (set.map(\.width).max() ?? 0) }
        if let u = union(faces), u.width + room(faces) <= width + 0.5, u.height + room(faces) <= height + 0.5 { return faces }
        // A set fitting a window has a leftmost and a topmost face: try every pair, taking the faces right of and below
        // them nearest first while the set still fits.
        var best: [Box] = [], bestArea = 0.0
        for left in faces {
            for top in faces {
                var set: [Box] = []
                for f in faces.filter({ $0.x >= left.x && $0.y >= top.y }).sorted(by: { $0.x + $0.width < $1.x + $1.width }) {
                    let grown = set + [f]
                    if let u = union(grown), u.width + room(grown) <= width + 0.5, u.height + room(grown) <= height + 0.5 { set = grown }
                }
                let area = set.reduce(0) { $0 + $1.area }
                if set.count > best.count || set.count == best.count && area > bestArea { best = set; bestArea = area }
            }
        }
        return best
    }

    /// The union of boxes (nil for none): the operator's own (`FramingTarget.union`).
    public static func union(_ boxes: [Box]) -> Box? { FramingTarget.union(boxes) }

    /// Whether the window frames a largest set: it holds wholly at least as many of `whole` (every face wholly in the
    /// frame) as `required` has (the most that fit together). When all faces fit, that is all of them; for a row wider
    /// than the window, any run of that many counts (which one is the framing's choice: compose's subject, say).
    public static func holdsLargestSet(_ required: [Box], of whole: [Box], _ window: CropWindow) -> Bool {
        whole.filter { window.contains($0) }.count >= required.count
    }

    /// Whether every box is wholly inside the window (half a pixel of slack, as `CropWindow.contains`).
    public static func allInside(_ boxes: [Box], _ window: CropWindow) -> Bool { boxes.allSatisfy { window.contains($0) } }

    /// Whether no box straddles an edge of the window.
    public static func noneCut(_ boxes: [Box], _ window: CropWindow) -> Bool { !boxes.contains { window.cuts($0) } }

    /// The rule compose would judge `subject` by: `thirds` or `center` (RuleRegistry); for `auto`, one face ->
    /// `portrait` when such a rule is registered, else `thirds`; a group -> `center`.
    public static func rule(named name: String, group: Bool) -> (any CompositionRule)? {
        guard name == "auto" else { return RuleRegistry.all.first { $0.name == name } }
        if group { return RuleRegistry.all.first { $0.name == "center" } }
        return RuleRegistry.all.first { $0.name == "portrait" } ?? RuleRegistry.all.first { $0.name == "thirds" }
    }

    /// The faces the window frames, for judging placement: the truth faces wholly inside it when they are at least as
    /// many as `required` (for a row wider than the window, the run it chose), else `required`.
    public static func framed(_ required: [Box], of whole: [Box], _ window: CropWindow) -> [Box] {
        let inside = whole.filter { window.contains($0) }
        return inside.count >= required.count && !inside.isEmpty ? inside : required
    }

    /// The rule's verdict on `faces` (the subject: one face, or a group's faces) in the window: the union box normalised
    /// to the window, anchored at the faces' size-weighted centre (as `SubjectGrouping` anchors a group), with the faces
    /// as members and the kind (`face`, or `group`) compose would give it.
    static func verdict(_ faces: [Box], in window: CropWindow, rule: any CompositionRule, outputWidth: Int) -> RuleResult? {
        guard let u = union(faces), u.width > 0, u.height > 0 else { return nil }
        let total = faces.reduce(0) { $0 + $1.area }
        guard total > 0 else { return nil }
        let cx = faces.reduce(0) { $0 + $1.area * $1.center.x } / total, cy = faces.reduce(0) { $0 + $1.area * $1.center.y } / total
        let anchor = Point2D(x: (cx - u.x) / u.width, y: (cy - u.y) / u.height)
        let height = Int((Double(outputWidth) / window.aspect).rounded())
        let input = RuleInput(
            subject: window.normalized(u), frameWidth: outputWidth, frameHeight: height, anchor: anchor,
            members: faces.count > 1 ? faces.map { window.normalized($0) } : [], kind: faces.count > 1 ? .group : .face)
        return rule.evaluate(input)
    }

    /// How near the best reachable placement a window must be to count as placed when the rule's own tolerance cannot
    /// be met at its size: 0.05 of the window (half the portrait rule's tolerance, a third of center's).
    public static let reachableSlack = 0.05

    /// Whether `faces` are placed by `rule` in the window, as well as the frame and the faces allow at the window's
    /// size: the rule's `wellComposed`; or, when the move the rule asks for cannot be made (the window would leave the
    /// `frameWidth` x `frameHeight` frame, or lose one of `faces`, as a full-height 9:16 window of a 16:9 frame cannot
    /// move up or down at all), the window within `reachableSlack` of the best window that can be reached and that
    /// best one not well composed either. Without a frame size, the rule's verdict alone.
    public static func placed(
        _ faces: [Box], in window: CropWindow, rule: any CompositionRule, frameWidth: Double? = nil, frameHeight: Double? = nil,
        outputWidth: Int = 1080
    ) -> Bool {
        guard let r = verdict(faces, in: window, rule: rule, outputWidth: outputWidth) else { return false }
        if r.wellComposed { return true }
        guard let fw = frameWidth, let fh = frameHeight, let u = union(faces) else { return false }
        // The subject moves by `direction` (window units) when the window moves the other way; how far the window may.
        func reach(_ start: Double, _ want: Double, size: Double, frame: Double, lo: Double, hi: Double) -> Double {
            let minimum = max(0, hi - size), maximum = min(frame - size, lo)
            guard minimum <= maximum else { return start }
            return min(max(start + want, minimum), maximum)
        }
        var best = window
        best.cx = reach(window.left, -r.direction.dx * window.width, size: window.width, frame: fw, lo: u.x, hi: u.x + u.width) + window.width / 2
        best.cy = reach(window.top, -r.direction.dy * window.height, size: window.height, frame: fh, lo: u.y, hi: u.y + u.height) + window.height / 2
        guard let b = verdict(faces, in: best, rule: rule, outputWidth: outputWidth), !b.wellComposed else { return false }
        return abs(best.cx - window.cx) <= reachableSlack * window.width && abs(best.cy - window.cy) <= reachableSlack * window.height
    }

    /// Jitter: the mean of |c[n+1] - 2 c[n] + c[n-1]| (the 2-D norm of the window centre's second difference), in
    /// output pixels per frame² (the three centres scaled by `outputWidth / width` of the middle frame's window), over
    /// every n whose two steps (n-1 -> n, n -> n+1) are not cuts; `cuts` holds the frames a cut landed on. 0 for
    /// fewer than three frames.
    public static func jitter(_ windows: [CropWindow], cuts: Set<Int>, outputWidth: Double = 1080) -> Double {
        guard windows.count >= 3 else { return 0 }
        var sum = 0.0, n = 0
        for i in 1..<(windows.count - 1) where !cuts.contains(i) && !cuts.contains(i + 1) {
            let s = outputWidth / windows[i].width
            let dx = (windows[i + 1].cx - 2 * windows[i].cx + windows[i - 1].cx) * s
            let dy = (windows[i + 1].cy - 2 * windows[i].cy + windows[i - 1].cy) * s
            sum += (dx * dx + dy * dy).squareRoot()
            n += 1
        }
        return n > 0 ? sum / Double(n) : 0
    }

    /// Steady frames: those whose truth (`truth[n]`, nil where a frame has none) has not moved for `hold` frames:
    /// every frame from n - hold to n has the same number of boxes, each within `tolerance` pixels (on every edge)
    /// of frame n's. The first `hold` frames are never steady (the framing has had less than `hold` to settle).
    public static func steady(_ truth: [[Box]?], hold: Int, tolerance: Double = 0.5) -> [Bool] {
        truth.indices.map { n in
            guard n >= hold, let now = truth[n] else { return false }
            for k in (n - hold)..<n {
                guard let then = truth[k] else { continue }
                guard then.count == now.count else { return false }
                for (a, b) in zip(then, now)
                where abs(a.x - b.x) > tolerance || abs(a.y - b.y) > tolerance || abs(a.width - b.width) > tolerance
                    || abs(a.height - b.height) > tolerance
                {
                    return false
                }
            }
            return true
        }
    }
}
