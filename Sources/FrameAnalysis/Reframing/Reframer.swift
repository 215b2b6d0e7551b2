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
///
/// Time is stream time in seconds (the frames' running time): no clock is read. Not thread-safe (the video thread).
public struct Reframer: Sendable {
    /// The settings.
    public var settings: ReframeSettings
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
    private var lastSubjectTime: Double?
    private var changeAt: Double?
    /// Cuts made so far.
    public private(set) var cuts = 0
    /// Whether the latest frame was a cut.
    public private(set) var didCut = false

    /// A reframer for a `frameWidth` x `frameHeight` input, starting on the default window.
    public init(settings: ReframeSettings, frameWidth: Int, frameHeight: Int) {
        self.settings = settings
        self.frameWidth = Double(frameWidth); self.frameHeight = Double(frameHeight)
        window = CropWindow.widest(aspect: settings.aspect, frameWidth: Double(frameWidth), frameHeight: Double(frameHeight))
        goal = window
    }

    /// The scene the window follows now.
    public var latestScene: FramingScene { scene }

    /// Marks a scene change at `time`: the next subject seen in an analysis of a later frame is cut to.
    public mutating func sceneChanged(at time: Double) { changeAt = time }

    /// A new analysis (of the frame at `time`, maybe earlier than the current frame).
    public mutating func observe(_ new: FramingScene, at time: Double) {
        scene = new
        guard new.subject != nil else {
            if let c = changeAt, time >= c { changeAt = nil; cut(to: defaultWindow) }
            return
        }
        lastSubjectTime = max(lastSubjectTime ?? time, time)
        let (wanted, required) = FramingTarget.plan(
            for: new, settings: settings, frameWidth: frameWidth, frameHeight: frameHeight, current: window)
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
        if far || cutsNow || !required.allSatisfy({ window.contains($0) }) || sweeps(from: window, to: wanted, faces: new.faces) {
            cut(to: wanted)
        } else {
            goal = wanted
        }
    }

    /// Whether moving in a straight line from `a` to `b` would cut a face that neither cuts.
    func sweeps(from a: CropWindow, to b: CropWindow, faces: [Box]) -> Bool {
        let candidates = faces.filter { !a.cuts($0) && !b.cuts($0) }
        guard !candidates.isEmpty else { return false }
        for k in 1..<8 {
            let t = Double(k) / 8
            let w = CropWindow(cx: a.cx + (b.cx - a.cx) * t, cy: a.cy + (b.cy - a.cy) * t, width: a.width + (b.width - a.width) * t, aspect: a.aspect)
            if candidates.contains(where: { w.cuts($0) }) { return true }
        }
        return false
    }

    /// The widest centred window.
    public var defaultWindow: CropWindow { CropWindow.widest(aspect: settings.aspect, frameWidth: frameWidth, frameHeight: frameHeight) }

    private mutating func cut(to w: CropWindow) {
        window = w; goal = w
        velocity = (0, 0, 0)
        cuts += 1
        didCut = true
    }

    /// The window for the frame at `time` (seconds, increasing).
    public mutating func advance(to time: Double) -> CropWindow {
        let dt = lastTime.map { min(max(time - $0, 0), 0.1) } ?? 0
        lastTime = time
        if didCut { didCut = false; return window }
        if scene.subject == nil, let seen = lastSubjectTime, time - seen > settings.hold { goal = defaultWindow; lastSubjectTime = nil }
        if let c = changeAt, time - c > 1, scene.subject == nil { changeAt = nil; cut(to: defaultWindow); didCut = false; return window }
        if dt > 0 { move(dt) }
        let safe = FramingTarget.uncut(window, faces: scene.faces, required: [], frameWidth: frameWidth, frameHeight: frameHeight)
        // Small steps only (a face drifting onto the edge between analyses): a big one would be a jump on screen.
        if safe != window, abs(safe.cx - window.cx) + abs(safe.cy - window.cy) + abs(safe.width - window.width) <= 0.06 * window.width {
            // A face would be cut: the window steps aside, and the goal moves with it so the spring does not pull back.
            goal.cx += safe.cx - window.cx; goal.cy += safe.cy - window.cy; goal.width += safe.width - window.width
            goal = goal.clamped(frameWidth: frameWidth, frameHeight: frameHeight)
            window = safe
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
    /// Whether the two boxes share any area.
    public func overlaps(_ o: Box) -> Bool { x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height }
}

@inline(__always) private func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }
