/// Faces and people followed from frame to frame between detections, each with an id that stays with it: a detector
/// runs a few times a second on a thread of its own, its results arrive a frame or more after the frame it looked at,
/// and what follows them (a redaction, a capture that follows one person) needs a box on every frame.
///
/// - `detected(_:at:)`: one analysis (of the frame at `time`, maybe older than the newest frame). Its boxes are first
///   carried forward by the camera's motion since that frame (as `Reframer` carries its scene), then matched to the
///   tracks of the same kind, the pairs with the largest overlap first (IoU, or for boxes that moved off each other,
///   centres within `matchDistance` of the track's width, nearest first). A matched track takes the box and measures
///   its speed (smoothed); a detection left over starts a track with a new id; a track not seen for `hold` seconds ends.
/// - `cameraMoved(_:at:)`: every frame, the camera's motion (`CameraMotionEstimator`) moves every track with the picture.
/// - `tracks(at:)`: every track where it is now: its last box, moved on by its own speed for at most `horizon` seconds.
/// An analysis older than a track's last sighting (one that was under way when a newer one came) still matches and
/// keeps it alive, but does not move it back.
///
/// Ids count up from 1 for the tracker's life and are never reused. Time is stream time in seconds; no clock is read.
/// Not thread-safe (one owner).
public struct ObjectTracker: Sendable {
    /// What a track follows.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case face, person
    }

    /// One followed face or person.
    public struct Track: Sendable, Equatable {
        /// Stable for the track's life.
        public let id: Int
        /// What it follows.
        public let kind: Kind
        /// Its box when a detection last saw it (`lastSeen`), in the newest frame's pixels (carried with the camera).
        public var box: Box
        /// Its own motion in the picture (px/s), the camera's taken out; zero until two detections measure it.
        public var velocity: Vector2D
        /// The time of the frame in which a detection last saw it.
        public var lastSeen: Double
        /// The time of the frame in which it was first seen.
        public let firstSeen: Double
        /// Detections that matched it.
        public var hits: Int
        /// Where its centre was in the latest detections (the newest frame's pixels), for its speed.
        var path: [Sighting] = []
    }

    /// A track's centre in one detection.
    struct Sighting: Sendable, Equatable {
        var time: Double, x: Double, y: Double
    }

    /// The input size (the camera's motion is about its centre).
    public let frameWidth: Double
    /// See `frameWidth`.
    public let frameHeight: Double
    /// Seconds a track is kept after the last detection that saw it.
    public var hold: Double
    /// The longest a track is moved on by its own speed past its last detection (s).
    public var horizon = 0.5
    /// Boxes of one kind that overlap by at least this much are the same object.
    public var matchIoU = 0.2
    /// Failing that, centres nearer than this many of the track's widths are (a face crossing the frame in 2 s moves
    /// most of its width between two analyses 0.2 s apart).
    public var matchDistance = 1.0
    /// The speed is the least-squares slope of the centres seen within this many seconds (a pair of noisy boxes 0.2 s
    /// apart would make a still face race).
    public var speedWindow = 1.0

    public private(set) var tracks: [Track] = []
    private var nextID = 1
    /// The camera's motion into each of the latest frames, newest last (for carrying a late detection forward).
    private var cameraHistory = CameraHistory()

    /// A tracker for a `frameWidth` x `frameHeight` input; tracks end `hold` seconds after their last detection.
    public init(frameWidth: Int, frameHeight: Int, hold: Double = 1) {
        self.frameWidth = Double(frameWidth); self.frameHeight = Double(frameHeight)
        self.hold = hold
    }

    /// The camera moved from the previous frame to the one at `time` by `m` (input pixels): every track moves with the
    /// picture.
    public mutating func cameraMoved(_ m: CameraMotion, at time: Double) {
        cameraHistory.record(m, at: time)
        guard m != .identity else { return }
        for i in tracks.indices {
            tracks[i].box = m.apply(tracks[i].box, width: frameWidth, height: frameHeight)
            tracks[i].path = tracks[i].path.map { p in
                let q = m.apply(Point2D(x: p.x, y: p.y), width: frameWidth, height: frameHeight)
                return Sighting(time: p.time, x: q.x, y: q.y)
            }
            tracks[i].velocity = Vector2D(dx: tracks[i].velocity.dx * m.scale, dy: tracks[i].velocity.dy * m.scale)
        }
    }

    /// A new shot (a scene change): the camera's motion before it says nothing about frames after it.
    public mutating func sceneChanged() { cameraHistory.clear() }

    /// One analysis of the frame at `time`: every box it found, of `kind`. Returns the ids given to the detections, in
    /// their order.
    @discardableResult
    public mutating func detected(_ found: [(box: Box, kind: Kind)], at time: Double) -> [Int] {
        // Where the camera has taken those boxes since the analysed frame: the tracks' coordinates.
        let since = cameraHistory.since(time)
        let boxes = found.map { f in since.reduce(f.box) { $1.apply($0, width: frameWidth, height: frameHeight) } }
        // Each track where its own motion would have it at the analysed frame.
        let predicted = tracks.map { moved($0, to: time).box }
        // Candidate pairs, the best first: overlap, then nearness.
        var pairs: [(track: Int, detection: Int, score: Double)] = []
        for (d, b) in boxes.enumerated() {
            for (t, p) in predicted.enumerated() where tracks[t].kind == found[d].kind {
                let reach = matchDistance * max(p.width, b.width)
                let distance = hypot(p.center.x - b.center.x, p.center.y - b.center.y)
                let iou = p.iou(b)
                if iou >= matchIoU {
                    pairs.append((t, d, 1 + iou))
                } else if distance < reach {
                    pairs.append((t, d, 1 - distance / reach))
                }
            }
        }
        pairs.sort { $0.score > $1.score }
        var taken = Set<Int>(), ids = [Int](repeating: 0, count: found.count)
        for p in pairs where !taken.contains(p.track) && ids[p.detection] == 0 {
            taken.insert(p.track)
            var t = tracks[p.track]
            ids[p.detection] = t.id
            let b = boxes[p.detection]
            if time >= t.lastSeen {
                t.box = b; t.lastSeen = time
                t.path.append(Sighting(time: time, x: b.center.x, y: b.center.y))
                t.path.removeAll { time - $0.time > speedWindow }
                t.velocity = Self.speed(of: t.path, width: b.width)
            }
            t.hits += 1
            tracks[p.track] = t
        }
        for d in found.indices where ids[d] == 0 {
            ids[d] = nextID
            let c = boxes[d].center
            tracks.append(
                Track(
                    id: nextID, kind: found[d].kind, box: boxes[d], velocity: .zero, lastSeen: time, firstSeen: time, hits: 1,
                    path: [Sighting(time: time, x: c.x, y: c.y)]))
            nextID += 1
        }
        let now = max(time, cameraHistory.newestTime ?? time)
        tracks.removeAll { now - $0.lastSeen > hold }
        return ids
    }

    /// Every track where it is at `time`: its last box moved on by its own speed (for at most `horizon` seconds past
    /// its last detection); the tracks not seen for `hold` seconds are gone.
    public mutating func tracks(at time: Double) -> [Track] {
        tracks.removeAll { time - $0.lastSeen > hold }
        return tracks.map { moved($0, to: time) }
    }

    /// The least-squares slope of `path` (px/s) over at least 0.15 s; slower than a tenth of the box's `width` a second is
    /// still (box noise).
    static func speed(of path: [Sighting], width: Double) -> Vector2D {
        guard path.count >= 2, let first = path.first, let last = path.last, last.time - first.time >= 0.15 else { return .zero }
        let n = Double(path.count)
        let mt = path.map(\.time).reduce(0, +) / n, mx = path.map(\.x).reduce(0, +) / n, my = path.map(\.y).reduce(0, +) / n
        var stt = 0.0, stx = 0.0, sty = 0.0
        for p in path { stt += (p.time - mt) * (p.time - mt); stx += (p.time - mt) * (p.x - mx); sty += (p.time - mt) * (p.y - my) }
        let v = Vector2D(dx: stx / stt, dy: sty / stt)
        return hypot(v.dx, v.dy) < 0.1 * width ? .zero : v
    }

    /// `t` moved on by its own speed from its last detection to `time` (at most `horizon` seconds of it).
    func moved(_ t: Track, to time: Double) -> Track {
        let dt = min(max(time - t.lastSeen, 0), horizon)
        guard dt > 0, t.velocity != .zero else { return t }
        var m = t
        m.box = Box(x: t.box.x + t.velocity.dx * dt, y: t.box.y + t.velocity.dy * dt, width: t.box.width, height: t.box.height)
        return m
    }
}

@inline(__always) private func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }
