/// The window an operator would want for one scene: zoomed so one face takes `subjectSize` of the height (or the
/// whole group fits with margins), placed by the rule, then moved or widened so no face is cut by an edge.
public enum FramingTarget {
    /// Where the subject's reference point goes in the output (0...1), and which point it is (box centre or eyes).
    static func placement(_ scene: FramingScene, rule: ReframeSettings.Rule, side: Double) -> (point: Point2D, eyes: Bool) {
        let r: ReframeSettings.Rule = rule == .auto ? (scene.isGroup ? .center : .portrait) : rule
        // Look room: a face looking right goes on the left third, and the other way round.
        var x = side
        if let look = scene.look, !scene.isGroup, abs(look) >= PortraitPlacement.lookThreshold { x = look > 0 ? 1.0 / 3 : 2.0 / 3 }
        switch r {
        case .center, .auto: return (Point2D(x: 0.5, y: 0.5), false)
        case .thirds: return (Point2D(x: scene.isGroup ? 0.5 : x, y: 1.0 / 3), false)
        case .lines:
            guard let lead = scene.lead, let s = scene.subject else { return (Point2D(x: scene.isGroup ? 0.5 : x, y: 1.0 / 3), false) }
            // The line comes from the left: the subject on the right third, the line across the frame into it.
            return (Point2D(x: lead.x < s.center.x ? 2.0 / 3 : 1.0 / 3, y: 1.0 / 3), false)
        case .portrait:
            let px = scene.look.map { abs($0) >= PortraitPlacement.lookThreshold } == true && !scene.isGroup ? x : 0.5
            return (Point2D(x: px, y: 1.0 / 3), true)
        }
    }

    /// The wanted window for `scene` in a `frameWidth` x `frameHeight` input; `current` keeps a thirds subject on
    /// the side it is on (no flip-flop between the two thirds lines) and a group cut down to fit on the same people.
    public static func window(
        for scene: FramingScene, settings s: ReframeSettings, frameWidth fw: Double, frameHeight fh: Double, current: CropWindow?
    ) -> CropWindow {
        plan(for: scene, settings: s, frameWidth: fw, frameHeight: fh, current: current).window
    }

    /// The wanted window and the faces it keeps wholly inside: the scene's required faces, or, when they do not fit
    /// together in the widest window with their margins, the run of them (left to right) that does: the most faces,
    /// then the most of those the current window holds (no hopping between two halves of a row), then the largest.
    /// A single face too big for any window (an extreme close-up) is centred and may be cut: there is no other way.
    public static func plan(
        for full: FramingScene, settings s: ReframeSettings, frameWidth fw: Double, frameHeight fh: Double, current: CropWindow?
    ) -> (window: CropWindow, required: [Box]) {
        let widest = CropWindow.widest(aspect: s.aspect, frameWidth: fw, frameHeight: fh)
        guard full.subject != nil else { return (widest, []) }
        let (scene, fits) = fitting(full, widest: widest, settings: s, current: current)
        guard let subject = scene.subject else { return (widest, []) }
        let minWidth = widest.width / max(1, s.maxZoom)
        // Zoom: one face at `subjectSize` of the height; at least the required faces with margins.
        var width = scene.faceHeight / max(0.01, s.subjectSize) * s.aspect
        if let need = needed(scene.required, settings: s) { width = max(width, need.width, need.height * s.aspect) }
        width = min(max(width, minWidth), widest.width)
        // The side for thirds: keep the current one, else the side of the frame the subject is on.
        let cur = current.map { $0.normalized(x: subject.center.x, y: subject.center.y).x }
        let leftSide: Bool = cur.map { $0 < 0.5 } ?? (subject.center.x < fw / 2)
        let side: Double = leftSide ? 1.0 / 3 : 2.0 / 3
        let (p, onEyes) = placement(scene, rule: s.rule, side: side)
        let ref = Point2D(x: subject.center.x, y: onEyes ? (scene.eyeLine ?? subject.center.y) : subject.center.y)
        let height = width / s.aspect
        var w = CropWindow(cx: ref.x - (p.x - 0.5) * width, cy: ref.y - (p.y - 0.5) * height, width: width, aspect: s.aspect)
        w = w.clamped(frameWidth: fw, frameHeight: fh)
        w = keepRequired(w, scene.required, margin: s.faceMargin, frameWidth: fw, frameHeight: fh)
        guard fits else { return (w, []) }
        return (uncut(w, faces: full.faces, required: scene.required, frameWidth: fw, frameHeight: fh), scene.required)
    }

    /// The box the required faces need: their union with `faceMargin` round it and `headroom` above.
    static func needed(_ required: [Box], settings s: ReframeSettings) -> (width: Double, height: Double)? {
        guard let u = union(required) else { return nil }
        let meanWidth: Double = required.map(\.width).reduce(0, +) / Double(required.count)
        let m: Double = s.faceMargin * meanWidth
        let topFace: Double = required.map(\.height).max() ?? 0
        return (u.width + 2 * m, u.height + s.headroom * topFace + m)
    }

    /// The scene cut down to the required faces that fit in `widest` (see `plan`), and whether they fit at all.
    static func fitting(_ scene: FramingScene, widest: CropWindow, settings s: ReframeSettings, current: CropWindow?) -> (FramingScene, Bool) {
        func fits(_ b: [Box]) -> Bool {
            guard let n = needed(b, settings: s) else { return true }
            return n.width <= widest.width + 0.5 && n.height <= widest.height + 0.5
        }
        guard !fits(scene.required) else { return (scene, true) }
        let row = scene.required.sorted { $0.center.x < $1.center.x }
        var best: (run: [Box], key: (Int, Int, Double))?
        for i in row.indices {
            for j in i..<row.count {
                let run = Array(row[i...j])
                guard fits(run) else { break }
                let held = current.map { c in run.filter { c.contains($0) }.count } ?? 0
                let key = (run.count, held, run.map(\.area).reduce(0, +))
                if best.map({ key > $0.key }) ?? true { best = (run, key) }
            }
        }
        var cut = scene
        guard let run = best?.run else {
            // Not even one face fits: the largest, centred.
            let face = scene.required.max { $0.area < $1.area } ?? scene.subject!
            cut.required = [face]; cut.subject = face; cut.isGroup = false
            return (cut, false)
        }
        cut.required = run
        cut.subject = run.count == 1 ? run[0] : union(run)
        cut.isGroup = run.count > 1
        if run.count > 1 { cut.eyes = nil; cut.look = nil }
        return (cut, true)
    }

    /// The union of boxes (nil for none).
    static func union(_ boxes: [Box]) -> Box? {
        guard let f = boxes.first else { return nil }
        var x0 = f.x, y0 = f.y, x1 = f.x + f.width, y1 = f.y + f.height
        for b in boxes.dropFirst() { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.x + b.width); y1 = max(y1, b.y + b.height) }
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `w` shifted (then widened, up to the frame) until every required face is inside with its margin.
    static func keepRequired(_ w: CropWindow, _ required: [Box], margin: Double, frameWidth fw: Double, frameHeight fh: Double) -> CropWindow {
        guard let u = union(required) else { return w }
        let m = margin * (required.map(\.width).max() ?? 0)
        let need = Box(x: u.x - m, y: u.y - m, width: u.width + 2 * m, height: u.height + 2 * m)
        var c = w
        if need.width > c.width || need.height > c.height { c.width = max(c.width, need.width, need.height * c.aspect) }
        c = c.clamped(frameWidth: fw, frameHeight: fh)
        // Shift the least that brings `need` in (as far as the frame allows).
        if need.x < c.left { c.cx -= c.left - need.x } else if need.x + need.width > c.right { c.cx += need.x + need.width - c.right }
        if need.y < c.top { c.cy -= c.top - need.y } else if need.y + need.height > c.bottom { c.cy += need.y + need.height - c.bottom }
        return c.clamped(frameWidth: fw, frameHeight: fh)
    }

    /// `w` moved so no face straddles an edge: per edge, the smaller shift that takes a cut face wholly in or
    /// wholly out, keeping the required faces in; when no shift works, widened to take it in.
    public static func uncut(_ w: CropWindow, faces: [Box], required: [Box], frameWidth fw: Double, frameHeight fh: Double) -> CropWindow {
        var c = w
        for _ in 0..<6 {
            guard let face = faces.first(where: { c.cuts($0) }) else { return c }
            var options: [CropWindow] = []
            let fr: Double = face.x + face.width, fb: Double = face.y + face.height
            let shifts: [(Double, Double)] = [
                (face.x - c.left, 0), (fr - c.left, 0), (fr - c.right, 0), (face.x - c.right, 0),
                (0, face.y - c.top), (0, fb - c.top), (0, fb - c.bottom), (0, face.y - c.bottom),
            ]
            for (dx, dy) in shifts {
                var o = c
                o.cx += dx; o.cy += dy
                let k = o.clamped(frameWidth: fw, frameHeight: fh)
                guard k == o, !faces.contains(where: { o.cuts($0) }), required.allSatisfy({ o.contains($0) }) else { continue }
                options.append(o)
            }
            func moved(_ o: CropWindow) -> Double { abs(o.cx - c.cx) + abs(o.cy - c.cy) }
            if let best = options.min(by: { moved($0) < moved($1) }) { return best }
            // No small shift clears every face: take this one in by widening round it, then try again; when the window
            // cannot widen (it is already the widest), settle for the best place that cuts nobody.
            guard let u = union([face] + required) else { return c }
            let widened = keepRequired(c, [u], margin: 0.05, frameWidth: fw, frameHeight: fh)
            if widened == c { return bestUncut(c, faces: faces, required: required, frameWidth: fw, frameHeight: fh) }
            c = widened
        }
        return c
    }

    /// Where the window (same size) keeps the most required faces and cuts the fewest others: every position with an
    /// edge on a face's edge is tried (and the window as it is); then the smallest move.
    static func bestUncut(_ w: CropWindow, faces: [Box], required: [Box], frameWidth fw: Double, frameHeight fh: Double) -> CropWindow {
        var candidates = [w]
        for f in faces {
            for x in [f.x, f.x + f.width] {
                var a = w, b = w
                a.cx = x + w.width / 2; b.cx = x - w.width / 2
                candidates += [a.clamped(frameWidth: fw, frameHeight: fh), b.clamped(frameWidth: fw, frameHeight: fh)]
            }
            for y in [f.y, f.y + f.height] {
                var a = w, b = w
                a.cy = y + w.height / 2; b.cy = y - w.height / 2
                candidates += [a.clamped(frameWidth: fw, frameHeight: fh), b.clamped(frameWidth: fw, frameHeight: fh)]
            }
        }
        func rank(_ o: CropWindow) -> (Int, Int, Double) {
            (-required.filter { o.contains($0) }.count, faces.filter { o.cuts($0) }.count, abs(o.cx - w.cx) + abs(o.cy - w.cy))
        }
        return candidates.min { rank($0) < rank($1) } ?? w
    }
}

/// Portrait placement's numbers, shared with compose's `portrait` rule.
public enum PortraitPlacement {
    /// |look| below this counts as looking at the camera (no look room: the face in the middle).
    public static let lookThreshold = PortraitRule().lookThreshold
}
