/// Compose's scores as the clip recorder keeps them: a per-second timeline for each clip, and the composition
/// trigger (the score at or above `threshold` for `hold` seconds of stream time while the camera is steady). Fed from
/// `viewfinder/composition` and capture's state messages; bounded (`keep` seconds of scores). Not thread-safe: its
/// owner holds a lock.
public struct ClipScores: Sendable {
    /// Seconds of scores kept.
    public let keep: Double
    /// The composition trigger's score (0: off) and how long it must hold (s).
    public let threshold: Double
    public let hold: Double
    /// (pts ns, score), oldest first.
    public private(set) var scores: [(pts: UInt64, score: Double)] = []
    /// Whether the camera is steady, as capture last said (nil: nothing said: no capture stage measures it).
    public private(set) var steady: Bool?
    /// When the score rose to the threshold while steady (ns), nil while it is below.
    private var above: UInt64?
    /// True once the trigger fired for the current stretch above the threshold (it fires again only after the score
    /// fell below it or the camera moved).
    private var fired = false

    public init(keep: Double, threshold: Double, hold: Double) {
        self.keep = keep
        self.threshold = threshold
        self.hold = hold
    }

    /// Capture's phase changed: steady is any phase past `waitingForStability` (looking for a subject, following the
    /// guide, ready, capturing, saving).
    public mutating func phase(_ name: String) {
        let steadyPhases: Set<String> = ["detectingRegion", "templateReady", "readyToCapture", "capturingPhoto", "savingPhoto"]
        steady = steadyPhases.contains(name)
        if steady == false { above = nil; fired = false }
    }

    /// One analysis; true when the composition trigger fires on it.
    public mutating func add(pts: UInt64, score: Double) -> Bool {
        if let last = scores.last, pts < last.pts {  // the stream started again: so does the hold
            scores.removeAll()
            above = nil
            fired = false
        }
        scores.append((pts, score))
        let horizon = pts > UInt64(keep * 1e9) ? pts - UInt64(keep * 1e9) : 0
        if let drop = scores.firstIndex(where: { $0.pts >= horizon }), drop > 0 { scores.removeFirst(drop) }
        guard threshold > 0 else { return false }
        guard score >= threshold, steady ?? true else {
            above = nil
            fired = false
            return false
        }
        let since = above ?? pts
        above = since
        guard !fired, Double(pts - since) / 1e9 >= hold else { return false }
        fired = true
        return true
    }

    /// The mean score of each second from `start` to `end` (ns), rounded to 3 decimals; nil for a second without an
    /// analysis.
    public func timeline(from start: UInt64, to end: UInt64) -> [Double?] {
        guard end > start else { return [] }
        let seconds = Int(((Double(end - start) / 1e9)).rounded(.up))
        var sums = [Double](repeating: 0, count: seconds), counts = [Int](repeating: 0, count: seconds)
        for s in scores where s.pts >= start && s.pts < end {
            let i = min(seconds - 1, Int((s.pts - start) / 1_000_000_000))
            sums[i] += s.score
            counts[i] += 1
        }
        return (0..<seconds).map { counts[$0] == 0 ? nil : (sums[$0] / Double(counts[$0]) * 1000).rounded() / 1000 }
    }
}
