/// What `redact` covers on one frame: each tracked face or person's box, grown by the margin and by what it may have
/// done since a detection last saw it, or the whole frame when the detector is behind (it never fails open).
///
/// A track's cover is the union of where it was last seen and where its own motion has taken it since (both grown),
/// so a wrong guess of its speed leaves it covered where it was. The growth with age covers a face that turns, leans
/// or starts to move between analyses: `growth` of its size per second since it was last seen, on every side.
public struct RedactionPlan: Sendable, Equatable {
    /// What to cover.
    public enum Cover: Sendable, Equatable {
        /// These boxes (input pixels), clipped to the frame.
        case boxes([Box])
        /// Everything: the detector is behind or has not looked yet.
        case frame
    }

    /// What the detector's lag makes the stage do.
    public enum Starved: String, Sendable, CaseIterable {
        /// Cover the whole frame until an analysis is fresh again.
        case frame
        /// Keep covering the tracks, growing with their age (and the whole frame before the first analysis).
        case grow
    }

    /// Room round each box, a fraction of its width and height on each side.
    public var margin: Double
    /// Growth per second since a track was last seen, a fraction of its size on each side.
    public var growth: Double
    /// An analysis older than this (s) against the frame means the detector is behind.
    public var maxDelay: Double
    /// What to do then.
    public var starved: Starved

    /// A plan.
    public init(margin: Double = 0.25, growth: Double = 0.5, maxDelay: Double = 0.5, starved: Starved = .frame) {
        self.margin = margin; self.growth = growth; self.maxDelay = maxDelay; self.starved = starved
    }

    /// What to cover on the frame at `time` of a `width` x `height` input, given the tracks there (`ObjectTracker.
    /// tracks(at:)`, of the kinds redacted) and the time of the newest analysed frame (nil: none yet). `behind` is
    /// true when the detector is behind (the caller says so in a message).
    public func cover(
        _ tracks: [ObjectTracker.Track], last: [ObjectTracker.Track] = [], at time: Double, newestAnalysis: Double?, width: Double,
        height: Double
    ) -> (cover: Cover, behind: Bool) {
        guard let newest = newestAnalysis else { return (.frame, true) }
        let behind = time - newest > maxDelay
        if behind && starved == .frame { return (.frame, true) }
        var boxes: [Box] = []
        for t in tracks {
            let age = max(0, time - t.lastSeen)
            let gx = (margin + growth * age) * t.box.width, gy = (margin + growth * age) * t.box.height
            func grown(_ b: Box) -> Box { Box(x: b.x - gx, y: b.y - gy, width: b.width + 2 * gx, height: b.height + 2 * gy) }
            // Where it was last seen, too (`last`: the same track unmoved by its own speed).
            var u = grown(t.box)
            if let seen = last.first(where: { $0.id == t.id }) { u = Self.union(u, grown(seen.box)) }
            if let c = Self.clip(u, width: width, height: height) { boxes.append(c) }
        }
        return (.boxes(boxes), behind)
    }

    static func union(_ a: Box, _ b: Box) -> Box {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y), x1 = max(a.x + a.width, b.x + b.width), y1 = max(a.y + a.height, b.y + b.height)
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `b` within the frame, outwards to whole pixels; nil when nothing of it is in.
    static func clip(_ b: Box, width: Double, height: Double) -> Box? {
        let x0 = max(0, (b.x).rounded(.down)), y0 = max(0, (b.y).rounded(.down))
        let x1 = min(width, (b.x + b.width).rounded(.up)), y1 = min(height, (b.y + b.height).rounded(.up))
        guard x1 > x0, y1 > y0 else { return nil }
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
