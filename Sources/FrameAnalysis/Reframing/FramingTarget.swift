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
        case .thirds: return (Point2D(x: x, y: 1.0 / 3), false)
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
    /// What a crop of the frame cannot hold (a face or a group wider than the frame's height allows a 9:16 window) is
    /// held by a window reaching past the frame, up to `pad` of the output as bars, just wide enough for those faces with
    /// the minimum margin.
    public static func plan(
        for full: FramingScene, settings s: ReframeSettings, frameWidth fw: Double, frameHeight fh: Double, current: CropWindow?
    ) -> (window: CropWindow, required: [Box]) {
        let widest = CropWindow.widest(aspect: s.aspect, frameWidth: fw, frameHeight: fh, pad: s.pad)
        let padded = widest.padded(frameWidth: fw, frameHeight: fh)
        guard full.subject != nil else { return (widest, []) }
        // A face no window of the shape can clear (an extreme close-up) is no face to keep out or in: only the subject.
        var full = full
        full.faces = full.faces.filter { clearable($0, in: padded) }
        let (scene, fits) = fitting(full, widest: widest, padded: padded, frameWidth: fw, settings: s, current: current)
        guard let subject = scene.subject else { return (widest, []) }
        let minWidth = widest.width / max(1, s.maxZoom)
        // Zoom: one face at `subjectSize` of the height; at least the required faces with margins.
        var width = scene.faceHeight / max(0.01, s.subjectSize) * s.aspect
        if let need = needed(scene.required, settings: s) { width = max(width, need.width, need.height * s.aspect) }
        width = min(max(width, minWidth), widest.width)
        // Past the frame only for what no crop of it holds: the faces to keep, with the minimum margin.
        if let bare = bareWidth(scene.required, aspect: s.aspect, margin: minimumMargin), bare > widest.width { width = min(bare, padded.width) }
        // The side for thirds: keep the current one, else the side of the frame the subject is on.
        let cur = current.map { $0.normalized(x: subject.center.x, y: subject.center.y).x }
        let leftSide: Bool = cur.map { $0 < 0.5 } ?? (subject.center.x < fw / 2)
        let side: Double = leftSide ? 1.0 / 3 : 2.0 / 3
        let (p, onEyes) = placement(scene, rule: s.rule, side: side)
        let ref = Point2D(x: subject.center.x, y: onEyes ? (scene.eyeLine ?? subject.center.y) : subject.center.y)
        let height = width / s.aspect
        var w = CropWindow(cx: ref.x - (p.x - 0.5) * width, cy: ref.y - (p.y - 0.5) * height, width: width, aspect: s.aspect, pad: s.pad)
        w = w.clamped(frameWidth: fw, frameHeight: fh)
        w = keepRequired(w, scene.required, margin: s.faceMargin, frameWidth: fw, frameHeight: fh)
        guard fits else { return (w, []) }
        let u = uncut(w, faces: full.faces, required: scene.required, frameWidth: fw, frameHeight: fh)
        return (balanced(u, faces: full.faces, frameWidth: fw, frameHeight: fh), scene.required)
    }

    /// `w` moved (same size) so that each edge lying in a gap between faces keeps clear of both sides: the same faces
    /// inside and outside, none cut, and each edge at least the minimum margin from the nearest face where the gaps
    /// allow it, else in the middle of what room there is (a detector's box is off by a few pixels: an edge one pixel
    /// from a face cuts it as often as not). A window with room to spare does not move.
    public static func balanced(_ w: CropWindow, faces: [Box], frameWidth fw: Double, frameHeight fh: Double) -> CropWindow {
        guard !faces.isEmpty, !faces.contains(where: { w.cuts($0) }) else { return w }
        // Per axis, the range the faces leave the window's low edge without changing what is inside (the frame's own
        // edges need no margin: `clamped` keeps the window in), and the margin wanted.
        func range(_ lo: (Box) -> Double, _ size: (Box) -> Double, across: (Box) -> Bool, start: Double, length: Double) -> (Double, Double, Double) {
            var low = -Double.infinity, high = Double.infinity, margin = 0.0
            for f in faces where across(f) {
                let a = lo(f), b = a + size(f)
                margin = max(margin, minimumMargin * f.width)
                if b <= start + 0.5 { low = max(low, b) }  // wholly before the window
                else if a >= start + length - 0.5 { high = min(high, a - length) }  // wholly after it
                else { low = max(low, b - length); high = min(high, a) }  // inside: keep it so
            }
            return (low, high, margin)
        }
        func placed(_ start: Double, _ r: (low: Double, high: Double, margin: Double)) -> Double {
            guard r.low <= r.high else { return start }
            let m = r.high - r.low < .infinity ? min(r.margin, (r.high - r.low) / 2) : r.margin
            return min(max(start, r.low + m), r.high - m)
        }
        var c = w
        let x = range(\.x, \.width, across: { $0.y < w.bottom && $0.y + $0.height > w.top }, start: w.left, length: w.width)
        c.cx = placed(w.left, x) + w.width / 2
        let y = range(\.y, \.height, across: { $0.x < w.right && $0.x + $0.width > w.left }, start: w.top, length: w.height)
        c.cy = placed(w.top, y) + w.height / 2
        return c.clamped(frameWidth: fw, frameHeight: fh)
    }

    /// Whether some window of `widest`'s size can hold `b` with the minimum margin round it.
    public static func clearable(_ b: Box, in widest: CropWindow) -> Bool {
        let m = minimumMargin * b.width
        return b.width + 2 * m <= widest.width && b.height + 2 * m <= widest.height
    }

    /// Room kept round a face the window clears or takes in (a fraction of its width, each side).
    public static let minimumMargin = 0.1
    /// Room the faces kept together must leave (a fraction of the widest face's width, each side): the detector's error.
    /// Less than `minimumMargin`: three friends who fit a 9:16 window with 4 % to spare are framed together, not two.
    public static let fitMargin = 0.04

    /// The width of the smallest window holding `faces` with `margin` (a fraction of the widest face's width) round them.
    static func bareWidth(_ faces: [Box], aspect: Double, margin: Double) -> Double? {
        guard let u = union(faces) else { return nil }
        let m = margin * (faces.map(\.width).max() ?? 0)
        return max(u.width + 2 * m, (u.height + 2 * m) * aspect)
    }

    /// The box the required faces need: their union with `faceMargin` round it and `headroom` above.
    static func needed(_ required: [Box], settings s: ReframeSettings) -> (width: Double, height: Double)? {
        guard let u = union(required) else { return nil }
        let meanWidth: Double = required.map(\.width).reduce(0, +) / Double(required.count)
        let m: Double = s.faceMargin * meanWidth
        let topFace: Double = required.map(\.height).max() ?? 0
        return (u.width + 2 * m, u.height + s.headroom * topFace + m)
    }

    /// The faces the window keeps (see `plan`), and whether they fit at all. Every face wholly in the frame is a
    /// candidate, not only compose's group: when they fit together (bare boxes; the margins are kept where there is
    /// room) in `padded` (the widest window with bars: the whole group, with bars when no crop holds it), all of them;
    /// else the run (one a crop of the frame holds, the boxes' error given in its favour: a run the detector's boxes
    /// make a few pixels too wide may be one a crop holds, and is framed whole with thin bars rather than a face dropped;
    /// with no bars allowed, a run must fit a crop with that error against it) (left to right) with the most faces, then one a window can hold without cutting
    /// a neighbour, then the one the current window holds whole when it cuts nobody, then the one holding the subject's centre, then the most of those the current window holds, then the
    /// largest.
    static func fitting(
        _ scene: FramingScene, widest: CropWindow, padded: CropWindow, frameWidth: Double, settings s: ReframeSettings, current: CropWindow?
    ) -> (FramingScene, Bool) {
        // A detector's box is off by a few percent of the face (3-6 px on 150 px faces): that much room on each side.
        func fits(_ b: [Box], in w: CropWindow) -> Bool {
            guard let u = union(b) else { return true }
            let m = Self.fitMargin * (b.map(\.width).max() ?? 0)
            return u.width + 2 * m <= w.width && u.height + 2 * m <= w.height
        }
        func couldFit(_ b: [Box]) -> Bool {
            guard let u = union(b) else { return true }
            let m = Self.fitMargin * (b.map(\.width).max() ?? 0)
            return u.width - 2 * m <= widest.width && u.height - 2 * m <= widest.height && fits(b, in: padded)
        }
        var all = scene.required
        for f in scene.faces where !all.contains(where: { $0.iou(f) > 0.5 }) { all.append(f) }
        var cut = scene
        if fits(all, in: padded) {
            cut.required = all
            if all.count > scene.required.count { cut.subject = union(all); cut.isGroup = true; cut.eyes = nil; cut.look = nil }
            return (cut, true)
        }
        let row = all.sorted { $0.center.x < $1.center.x }
        let centre = scene.subject.map { Point2D(x: $0.center.x, y: $0.center.y) }
        let clean = current.map { c in !all.contains { c.cuts($0) } } ?? false
        var best: (run: [Box], key: (Int, Int, Int, Int, Int, Double))?
        for i in row.indices {
            for j in i..<row.count {
                let run = Array(row[i...j])
                guard couldFit(run) else { break }
                let holdsSubject = centre.map { c in union(run).map { $0.x <= c.x && c.x <= $0.x + $0.width } ?? false } == true ? 1 : 0
                let held = current.map { c in run.filter { c.contains($0) }.count } ?? 0
                // A run the current window holds whole, cutting nobody, is kept (no hopping along a row as compose's
                // subject wanders).
                let key = (
                    run.count, framable(run, among: all, widest: widest, frameWidth: frameWidth) ? 1 : 0, held == run.count && clean ? 1 : 0, holdsSubject, held,
                    run.map(\.area).reduce(0, +)
                )
                if best.map({ key > $0.key }) ?? true { best = (run, key) }
            }
        }
        guard let run = best?.run else {
            // Not even one face fits: the subject (or the largest face), centred.
            let face = scene.subject ?? all.max { $0.area < $1.area } ?? Box(x: 0, y: 0, width: 1, height: 1)
            cut.required = [face]; cut.subject = face; cut.isGroup = false
            return (cut, false)
        }
        cut.required = run
        cut.subject = run.count == 1 ? run[0] : union(run)
        cut.isGroup = run.count > 1
        if run.count > 1 || !run.contains(where: { b in scene.subject.map { $0.iou(b) > 0.5 } ?? false }) { cut.eyes = nil; cut.look = nil }
        return (cut, true)
    }

    /// Whether a window of `widest`'s size, moved sideways within a `frameWidth` wide frame, holds every face of `run`
    /// and cuts none of `all`: its left edge tried against each face's edges, the run's ends and the frame's (a window
    /// wider than the frame has one place: centred).
    static func framable(_ run: [Box], among all: [Box], widest: CropWindow, frameWidth: Double) -> Bool {
        guard let u = union(run) else { return true }
        if widest.width > frameWidth {
            var w = widest
            w.cx = frameWidth / 2
            return run.allSatisfy { w.contains($0) } && !all.contains { w.cuts($0) }
        }
        var edges = [u.x, u.x + u.width - widest.width, 0, frameWidth - widest.width]
        for f in all { edges += [f.x + f.width, f.x - widest.width] }
        return edges.contains { left in
            guard left >= 0, left + widest.width <= frameWidth + 0.5 else { return false }
            var w = widest
            w.cx = left + w.width / 2
            return run.allSatisfy { w.contains($0) } && !all.contains { w.cuts($0) }
        }
    }

    /// The union of boxes (nil for none).
    public static func union(_ boxes: [Box]) -> Box? {
        guard let f = boxes.first else { return nil }
        var x0 = f.x, y0 = f.y, x1 = f.x + f.width, y1 = f.y + f.height
        for b in boxes.dropFirst() { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.x + b.width); y1 = max(y1, b.y + b.height) }
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `w` shifted (then widened, up to the frame) until every required face is inside with its margin. With `bars`,
    /// faces a crop of the frame cannot hold widen it past the frame (up to its `pad`), for the bare faces and at most
    /// the minimum margin; without, a window already past the frame keeps its width and any other stops at the frame.
    static func keepRequired(
        _ w: CropWindow, _ required: [Box], margin: Double, frameWidth fw: Double, frameHeight fh: Double, bars: Bool = true
    ) -> CropWindow {
        guard let u = union(required) else { return w }
        let m = margin * (required.map(\.width).max() ?? 0)
        var need = Box(x: u.x - m, y: u.y - m, width: u.width + 2 * m, height: u.height + 2 * m)
        var c = w
        let inside = max(c.width, min(fw, fh * c.aspect))
        if need.width > c.width || need.height > c.height { c.width = min(max(c.width, need.width, need.height * c.aspect), inside) }
        if bars, let bare = bareWidth(required, aspect: c.aspect, margin: min(margin, minimumMargin)), bare > c.width { c.width = bare }
        c = c.clamped(frameWidth: fw, frameHeight: fh)
        // No room for the margins: the bare faces, with what margin there is shared on both sides.
        if need.width > c.width { need.x = u.x - (c.width - u.width) / 2; need.width = c.width }
        if need.height > c.height { need.y = u.y - (c.height - u.height) / 2; need.height = c.height }
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
            // Each edge clear of the face by the minimum margin, on the inside or the outside.
            if let best = leastShift(c, edgeShifts(c, face, margin: minimumMargin * face.width), faces: faces, required: required, frameWidth: fw, frameHeight: fh) {
                return best
            }
            // No small shift clears every face: take this one in by widening round it, then try again; when the window
            // cannot widen (it is already the widest), settle for the best place that cuts nobody.
            guard let u = union([face] + required) else { return c }
            let widened = keepRequired(c, [u], margin: 0.05, frameWidth: fw, frameHeight: fh, bars: false)
            // (Not wider: only moved onto the face, which cuts the required ones' side instead.)
            if widened.width <= c.width { return bestUncut(c, faces: faces, required: required, frameWidth: fw, frameHeight: fh) }
            c = widened
        }
        return c
    }

    /// The least shift of `w` (one axis) that cuts no face, keeps the required ones in and stays where `clamped` keeps it:
    /// an edge put on a face's edge, the face wholly in or out (no margin); nil when none does.
    public static func nudged(_ w: CropWindow, faces: [Box], required: [Box], frameWidth fw: Double, frameHeight fh: Double) -> CropWindow? {
        leastShift(w, faces.filter { w.cuts($0) }.flatMap { edgeShifts(w, $0, margin: 0) }, faces: faces, required: required, frameWidth: fw, frameHeight: fh)
    }

    /// The shifts (dx or dy) that put each edge of `w` `margin` clear of `f`'s edges, on either side.
    static func edgeShifts(_ w: CropWindow, _ f: Box, margin m: Double) -> [(Double, Double)] {
        let x0 = f.x - m, x1 = f.x + f.width + m, y0 = f.y - m, y1 = f.y + f.height + m
        return [
            (x0 - w.left, 0), (x1 - w.left, 0), (x1 - w.right, 0), (x0 - w.right, 0),
            (0, y0 - w.top), (0, y1 - w.top), (0, y1 - w.bottom), (0, y0 - w.bottom),
        ]
    }

    /// `w` moved by the least of `shifts` (the first of equals) that stays where `clamped` keeps it, cuts none of
    /// `faces` and keeps every required face in; nil when none does.
    static func leastShift(
        _ w: CropWindow, _ shifts: [(Double, Double)], faces: [Box], required: [Box], frameWidth fw: Double, frameHeight fh: Double
    ) -> CropWindow? {
        let options = shifts.compactMap { dx, dy -> CropWindow? in
            var o = w
            o.cx += dx; o.cy += dy
            guard o.clamped(frameWidth: fw, frameHeight: fh) == o, !faces.contains(where: { o.cuts($0) }), required.allSatisfy({ o.contains($0) })
            else { return nil }
            return o
        }
        func moved(_ o: CropWindow) -> Double { abs(o.cx - w.cx) + abs(o.cy - w.cy) }
        return options.min { moved($0) < moved($1) }
    }

    /// Where the window (same size) keeps the most required faces and cuts the fewest others: every position with an
    /// edge on a face's edge is tried (and the window as it is); then the smallest move.
    static func bestUncut(_ w: CropWindow, faces: [Box], required: [Box], frameWidth fw: Double, frameHeight fh: Double) -> CropWindow {
        var candidates = [w]
        for f in faces {
            let m = minimumMargin * f.width
            // Each edge on the face's edge, and clear of it by the margin, and by half of it.
            for x in [f.x - m, f.x - m / 2, f.x, f.x + f.width, f.x + f.width + m / 2, f.x + f.width + m] {
                var a = w, b = w
                a.cx = x + w.width / 2; b.cx = x - w.width / 2
                candidates += [a.clamped(frameWidth: fw, frameHeight: fh), b.clamped(frameWidth: fw, frameHeight: fh)]
            }
            for y in [f.y - m, f.y - m / 2, f.y, f.y + f.height, f.y + f.height + m / 2, f.y + f.height + m] {
                var a = w, b = w
                a.cy = y + w.height / 2; b.cy = y - w.height / 2
                candidates += [a.clamped(frameWidth: fw, frameHeight: fh), b.clamped(frameWidth: fw, frameHeight: fh)]
            }
        }
        // The required faces first (wholly in, else their centres in), then faces really cut, then faces crowded.
        func rank(_ o: CropWindow) -> (Int, Int, Int, Int, Double) {
            (
                -required.filter { o.contains($0) }.count, -required.filter { o.box.contains(point: $0.center) }.count,
                faces.filter { o.cuts($0) }.count, faces.filter { o.crowds($0) }.count, abs(o.cx - w.cx) + abs(o.cy - w.cy)
            )
        }
        return candidates.min { rank($0) < rank($1) } ?? w
    }
}

/// Portrait placement's numbers, shared with compose's `portrait` rule.
public enum PortraitPlacement {
    /// |look| below this counts as looking at the camera (no look room: the face in the middle).
    public static let lookThreshold = PortraitRule().lookThreshold
}
