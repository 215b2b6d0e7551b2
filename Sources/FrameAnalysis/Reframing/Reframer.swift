/// The operator: turns the analyses (`FramingScene`s, a few per second) into one window per frame that moves like
/// a camera someone is working.
///
/// - A goal window (`FramingTarget.window`) is taken only when it is off the current goal by more than the dead
///   zone (centre, `deadZone` of the window; width, `zoomDeadZone`): a face nodding or a noisy box moves nothing.
/// - The window follows the goal as a critically damped spring (`stiffness`) on (centre x, centre y, width) with
///   one speed limit for the whole vector (scaled together, so every edge moves monotonically from the start
///   window to the goal: a face inside both stays inside on the way); pan at most `maxPan` input heights per
///   second, zoom `maxZoomSpeed` widths per second.
/// - A cut instead of a pan when the goal is more than `cutDistance` windows away, when the subject is not in the
///   current window at all, or on the first subject after a scene change (`sceneChanged`).
/// - Nobody: the last framing is held `hold` seconds, then the window eases to the widest centred one (the default).
/// - Every frame, the window is moved so no face of the latest scene straddles an edge.
/// - Faces no crop of the frame holds (`FramingTarget.plan`) are held by a window reaching past it (bars, at most
///   `ReframeSettings.pad`); the default window and every window that fits are crops.
/// - The camera's own motion (`cameraMoved`, measured from the frames by `CameraMotionEstimator`) carries the latest
///   analysis's faces, the goal and the window with the picture: a pan or a zoom of the camera does not leave the output
///   behind until the next analysis, and an analysis of an earlier frame is carried forward by the motion since.
///
/// Time is stream time in seconds (the frames' running time): no clock is read. Not thread-safe (the video thread).
public struct Reframer: Sendable {
    /// The settings (a new `pad` holds for the window at once: a narrower allowance shrinks it on the next frame).
    public var settings: ReframeSettings {
        didSet {
            guard settings.pad != oldValue.pad else { return }
            window.pad = settings.pad; goal.pad = settings.pad
        }
    }
    /// The input size.
    public let frameWidth: Double
    /// See `frameWidth`.
    public let frameHeight: Double
    /// The window of the latest frame.
    public private(set) var window: CropWindow
    /// The window it moves to.
    public private(set) var goal: CropWindow
    private var velocity = (x: 0.0, y: 0.0, w: 0.0)
    private var lastTime: Double?
    private var scene = FramingScene.empty
    /// When `scene` was analysed, and each of its faces' motion (px/s, matched to the previous analysis's faces).
    private var sceneTime = 0.0
    private var motion: [Vector2D] = []
    /// Each face's measured motion before confirmation (`motion` keeps only what two analyses in a row agree on).
    private var measured: [Vector2D] = []
    /// The faces the latest plan keeps wholly in (none for an oversized face).
    private var keep: [Box] = []
    private var lastSubjectTime: Double?
    /// The camera's motion into each of the latest frames.
    private var cameraHistory = CameraHistory()
    private var changeAt: Double?
    /// When the latest cut was made (the newest frame's time then).
    private var lastCut: Double?
    /// Cuts made so far.
    public private(set) var cuts = 0
    /// Whether the latest frame was a cut.
    public private(set) var didCut = false

    /// A reframer for a `frameWidth` x `frameHeight` input, starting on the default window.
    public init(settings: ReframeSettings, frameWidth: Int, frameHeight: Int) {
        self.settings = settings
        self.frameWidth = Double(frameWidth); self.frameHeight = Double(frameHeight)
        window = CropWindow.widest(aspect: settings.aspect, frameWidth: Double(frameWidth), frameHeight: Double(frameHeight), pad: settings.pad)
        goal = window
    }

    /// The scene the window follows now.
    public var latestScene: FramingScene { scene }

    /// Marks a scene change at `time`: the next subject seen in an analysis of a later frame is cut to.
    public mutating func sceneChanged(at time: Double) { changeAt = time; cameraHistory.clear() }

    /// The camera moved from the previous frame to the one at `time` by `m` (input pixels): the latest analysis's faces,
    /// the faces kept, the goal and the window move with the picture.
    public mutating func cameraMoved(_ m: CameraMotion, at time: Double) {
        cameraHistory.record(m, at: time)
        guard m != .identity else { return }
        scene = carried(scene, by: m)
        keep = keep.map { m.apply($0, width: frameWidth, height: frameHeight) }
        goal = carried(goal, by: m)
        window = carried(window, by: m)
    }

    /// `s` with every box and point moved by the camera's motion `m`.
    func carried(_ s: FramingScene, by m: CameraMotion) -> FramingScene {
        func b(_ x: Box) -> Box { m.apply(x, width: frameWidth, height: frameHeight) }
        func p(_ x: Point2D) -> Point2D { m.apply(x, width: frameWidth, height: frameHeight) }
        var c = s
        c.subject = s.subject.map(b); c.required = s.required.map(b); c.faces = s.faces.map(b)
        c.eyes = s.eyes.map { Detection.Eyes(left: p($0.left), right: p($0.right)) }
        c.lead = s.lead.map(p)
        return c
    }

    /// `w` moved with the picture, and widened when the camera zooms in (up to the widest crop; a window with bars keeps
    /// its width); a zoom out leaves its size (the faces only get more room; the next analysis's plan tightens it, past
    /// the dead zone).
    func carried(_ w: CropWindow, by m: CameraMotion) -> CropWindow {
        let c = m.apply(Point2D(x: w.cx, y: w.cy), width: frameWidth, height: frameHeight)
        let width = min(w.width * max(1, m.scale), max(w.width, defaultWindow.width))
        return CropWindow(cx: c.x, cy: c.y, width: width, aspect: w.aspect, pad: w.pad).clamped(frameWidth: frameWidth, frameHeight: frameHeight)
    }

    /// A new analysis (of the frame at `time`, maybe earlier than the current frame).
    public mutating func observe(_ analysed: FramingScene, at time: Double) {
        // An analysis of an earlier frame than the one already taken (one under way when a cut was looked at at once) is
        // stale; a much earlier one means the stream's time started again.
        if time < sceneTime && sceneTime - time < 2 { return }
        // Where the camera has taken those faces since the analysed frame.
        let previous = scene.subject
        let observed = cameraHistory.since(time).reduce(analysed) { carried($0, by: $1) }
        let now = Self.motion(of: observed.faces, from: scene.faces, over: time - sceneTime)
        // A face's motion counts once two analyses in a row agree on it (a new scene whose faces happen to land near the
        // old ones is not a movement).
        motion = now.enumerated().map { i, v in
            guard v != .zero, let j = Self.match(observed.faces[i], in: scene.faces), j < measured.count else { return .zero }
            let d = Vector2D(dx: v.dx - measured[j].dx, dy: v.dy - measured[j].dy)
            return d.length < 0.5 * v.length ? v : .zero
        }
        measured = now
        scene = observed; sceneTime = time
        // The analysis is of an earlier frame: plan for where the faces will be a little after the newest frame.
        let new = predicted(at: max(time, lastTime ?? time) + Self.lead)
        guard new.subject != nil else {
            if let c = changeAt, time >= c { changeAt = nil; cut(to: defaultWindow) }
            return
        }
        lastSubjectTime = max(lastSubjectTime ?? time, time)
        let (wanted, required) = FramingTarget.plan(
            for: new, settings: settings, frameWidth: frameWidth, frameHeight: frameHeight, current: window)
        keep = required
        if let c = changeAt, time >= c {
            changeAt = nil
            cut(to: wanted)
            return
        }
        let dz = settings.deadZone
        let moved =
            abs(wanted.cx - goal.cx) > dz * goal.width || abs(wanted.cy - goal.cy) > dz * goal.height
            || abs(wanted.width / goal.width - 1) > settings.zoomDeadZone || !required.allSatisfy({ goal.contains($0) })
            || new.faces.contains(where: { goal.cuts($0) })
        guard moved else { return }
        // A cut when the faces to keep are not in the picture now (a pan would show them cut or missing for seconds),
        // when the goal is far, or when panning there would sweep an edge across a face.
        let far = hypot(wanted.cx - window.cx, wanted.cy - window.cy) > settings.cutDistance * window.width
        let cutsNow = new.faces.contains { window.cuts($0) } && abs(wanted.cx - window.cx) + abs(wanted.cy - window.cy) > 0.06 * window.width
        // A salient object (no person) that moved on from where the last analysis had it (within 1.5 of its size), within
        // `cutInterval` of the last cut: a pan (a ball is followed, not jumped after); another one is still cut to.
        let movedOn = zip(previous.map { [$0] } ?? [], new.subject.map { [$0] } ?? []).contains { a, b in
            hypot(a.center.x - b.center.x, a.center.y - b.center.y) < 1.5 * max(a.width, a.height, b.width, b.height)
        }
        if new.salient, movedOn, let last = lastCut, let now = lastTime, now - last < settings.cutInterval {
            goal = wanted
            return
        }
        if far || cutsNow || !required.allSatisfy({ window.contains($0) }) || sweeps(from: window, to: wanted, faces: new.faces) {
            cut(to: wanted)
        } else {
            goal = wanted
        }
    }

    /// How far ahead of the newest frame a new analysis is planned for (s): the window moves where the faces go.
    static let lead = 0.2
    /// The longest a face's motion is carried forward (s).
    static let horizon = 0.5

    /// Each face's motion (px/s): matched to the nearest face of the previous analysis within 3/4 of its width, over
    /// `dt` seconds (0.05...1, else no motion); slower than a tenth of a face per second is still (box noise).
    static func motion(of faces: [Box], from previous: [Box], over dt: Double) -> [Vector2D] {
        guard dt >= 0.05, dt <= 1 else { return faces.map { _ in .zero } }
        return faces.map { f in
            guard let j = match(f, in: previous) else { return .zero }
            let p = previous[j]
            let v = Vector2D(dx: (f.center.x - p.center.x) / dt, dy: (f.center.y - p.center.y) / dt)
            return v.length < 0.1 * f.width ? .zero : v
        }
    }

    /// The index of the face of `previous` nearest to `f`, within 3/4 of its width.
    static func match(_ f: Box, in previous: [Box]) -> Int? {
        guard let j = previous.indices.min(by: { distance(previous[$0], f) < distance(previous[$1], f) }),
            distance(previous[j], f) < 0.75 * f.width
        else { return nil }
        return j
    }

    private static func distance(_ a: Box, _ b: Box) -> Double { hypot(a.center.x - b.center.x, a.center.y - b.center.y) }

    /// The latest scene with every face (and the subject and required faces that are faces of it) moved on by its
    /// motion to `time` (at most `horizon` ahead of the analysis).
    func predicted(at time: Double) -> FramingScene {
        let dt = min(max(time - sceneTime, 0), Self.horizon)
        guard dt > 0, motion.contains(where: { $0 != .zero }) else { return scene }
        func moved(_ b: Box) -> Box {
            guard let i = scene.faces.firstIndex(where: { $0.iou(b) > 0.5 }), i < motion.count else { return b }
            return Box(x: b.x + motion[i].dx * dt, y: b.y + motion[i].dy * dt, width: b.width, height: b.height)
        }
        var p = scene
        p.faces = scene.faces.map(moved)
        p.required = scene.required.map(moved)
        if let s = scene.subject { p.subject = scene.isGroup ? (FramingTarget.union(p.required) ?? s) : moved(s) }
        if let e = scene.eyes, let s = scene.subject {
            let m = moved(s)
            p.eyes = Detection.Eyes(
                left: Point2D(x: e.left.x + m.x - s.x, y: e.left.y + m.y - s.y), right: Point2D(x: e.right.x + m.x - s.x, y: e.right.y + m.y - s.y))
        }
        return p
    }

    /// Whether moving in a straight line from `a` to `b` would cut a face that neither cuts.
    func sweeps(from a: CropWindow, to b: CropWindow, faces: [Box]) -> Bool {
        let candidates = faces.filter { !a.cuts($0) && !b.cuts($0) }
        guard !candidates.isEmpty else { return false }
        for k in 1..<8 {
            let t = Double(k) / 8
            let w = CropWindow(cx: a.cx + (b.cx - a.cx) * t, cy: a.cy + (b.cy - a.cy) * t, width: a.width + (b.width - a.width) * t, aspect: a.aspect, pad: a.pad)
            if candidates.contains(where: { w.cuts($0) }) { return true }
        }
        return false
    }

    /// The widest centred crop (no bars).
    public var defaultWindow: CropWindow {
        CropWindow.widest(aspect: settings.aspect, frameWidth: frameWidth, frameHeight: frameHeight, pad: settings.pad)
    }

    private mutating func cut(to w: CropWindow) {
        window = w; goal = w
        velocity = (0, 0, 0)
        cuts += 1
        didCut = true
        lastCut = lastTime
    }

    /// The window for the frame at `time` (seconds, increasing).
    public mutating func advance(to time: Double) -> CropWindow {
        let dt = lastTime.map { min(max(time - $0, 0), 0.1) } ?? 0
        lastTime = time
        if didCut { didCut = false; return window }
        if scene.subject == nil, let seen = lastSubjectTime, time - seen > settings.hold { goal = defaultWindow; lastSubjectTime = nil }
        if let c = changeAt, time - c > 1, scene.subject == nil { changeAt = nil; cut(to: defaultWindow); didCut = false; return window }
        if dt > 0 { move(dt) }
        let now = predicted(at: time), widest = defaultWindow.padded(frameWidth: frameWidth, frameHeight: frameHeight)
        let kept = keep.map { k in now.faces.first { $0.iou(k) > 0.3 } ?? k }
        let clear = now.faces.filter { FramingTarget.clearable($0, in: widest) }
        let safe = FramingTarget.balanced(
            FramingTarget.uncut(window, faces: clear, required: kept, frameWidth: frameWidth, frameHeight: frameHeight), faces: clear,
            frameWidth: frameWidth, frameHeight: frameHeight)
        // A face drifting onto an edge between analyses: the goal moves aside (the spring takes the window there
        // smoothly); the window itself snaps only by a step too small to see (1 % of its width) and only when a face is
        // really cut now. A bigger correction waits for the next analysis's plan (a pan or a cut).
        let step = abs(safe.cx - window.cx) + abs(safe.cy - window.cy) + abs(safe.width - window.width)
        if safe != window, step <= 0.06 * window.width {
            goal.cx += safe.cx - window.cx; goal.cy += safe.cy - window.cy; goal.width += safe.width - window.width
            goal = goal.clamped(frameWidth: frameWidth, frameHeight: frameHeight)
            if step <= 0.01 * window.width, now.faces.contains(where: { window.cuts($0) }) { window = safe }
        }
        // Still cut (the margin-clear correction is too big to snap): the least shift that leaves the face wholly in or
        // out, when that is as small (the carried window of a zoom out creeping onto a neighbour a pixel a frame).
        if clear.contains(where: { window.cuts($0) }),
            let n = FramingTarget.nudged(window, faces: clear, required: kept, frameWidth: frameWidth, frameHeight: frameHeight),
            abs(n.cx - window.cx) + abs(n.cy - window.cy) <= 0.01 * window.width
        {
            window = n
        }
        return window
    }

    /// One step of the spring towards the goal, `dt` seconds.
    private mutating func move(_ dt: Double) {
        let k = settings.stiffness
        func accel(_ x: Double, _ g: Double, _ v: Double) -> Double { k * k * (g - x) - 2 * k * v }
        var v = (
            x: velocity.x + accel(window.cx, goal.cx, velocity.x) * dt, y: velocity.y + accel(window.cy, goal.cy, velocity.y) * dt,
            w: velocity.w + accel(window.width, goal.width, velocity.w) * dt
        )
        // One limit for the whole vector: the components keep their proportions, so the edges move monotonically.
        let pan = hypot(v.x, v.y), maxPan = settings.maxPan * frameHeight, maxZoom = settings.maxZoomSpeed * window.width
        var scale = 1.0
        if pan > maxPan { scale = min(scale, maxPan / pan) }
        if abs(v.w) > maxZoom { scale = min(scale, maxZoom / abs(v.w)) }
        v = (v.x * scale, v.y * scale, v.w * scale)
        velocity = v
        window.cx += v.x * dt; window.cy += v.y * dt; window.width += v.w * dt
        // Settled: snap (the critically damped tail would creep sub-pixel for seconds; the snap is under half a pixel).
        if abs(goal.cx - window.cx) < 0.5 && abs(goal.cy - window.cy) < 0.5 && abs(goal.width - window.width) < 0.5
            && hypot(v.x, v.y) < 3 && abs(v.w) < 3
        {
            window = goal; velocity = (0, 0, 0)
        }
        window = window.clamped(frameWidth: frameWidth, frameHeight: frameHeight)
    }
}

extension Box {
    /// Whether `p` lies inside (edges included).
    public func contains(point p: (x: Double, y: Double)) -> Bool { p.x >= x && p.x <= x + width && p.y >= y && p.y <= y + height }

    /// Whether the two boxes share any area.
    public func overlaps(_ o: Box) -> Bool { x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height }
}

@inline(__always) private func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }
