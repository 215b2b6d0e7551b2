/// `engine=auto` on a stream: its fallbacks spread over analyses, so an analysis of a frame without a face has a
/// bounded cost.
///
/// The chain `CompositionAnalyzer.chain` gives is `first, fallbacks..., last` (with the cnn library: cnn; the face
/// cascades, people (HOG), the upper-body cascade; saliency). Run whole, a frame without a face pays for every
/// fallback (issue 25: about 160 ms at 320x180, most of it HOG searched at 960x540), so seven 720p streams on two
/// cores got under one analysis a second each. With a rotation, each analysis runs
/// - `first`, always (a face found supplies the candidates, as before: nothing else runs);
/// - else, on every `every`-th analysis without a face, one turn: the next slot of a schedule where every fallback
///   has one slot per slice (a `SlicedDetectionEngine`: the face cascades one per pass, people one per part of the
///   HOG pyramid; any other engine one slot, its whole search); a fallback's result (found or empty) replaces what
///   it found last once its search is whole (for a sliced one: after its last slice, from all its slices);
/// - then takes the first fallback in chain order whose kept result is not empty and still stands;
/// - else runs `last` (saliency: a 64 px map).
///
/// A kept result stands for `hold(round:)` seconds of stream time after the frame that completed it: a whole
/// round (every slot once, `every` analyses a slot) until the same fallback completes again, plus one analysis,
/// at the analyses' pace, and at least `minimumHold`; so a person HOG found stays the subject until HOG has
/// searched again. The pace is the larger of `interval` (compose: 1 / analysis-fps) and the pts step between
/// analyses as measured (a loaded machine analyses less often than asked). Time is the frames' pts (stream time,
/// as every per-frame rule: ARCHITECTURE "Time"); frames without pts count analyses instead (a round plus one).
/// A pts going backwards (a seek) makes every kept result stale.
public struct FallbackRotation: Sendable {
    /// Stream seconds between two analyses (compose: 1 / analysis-fps).
    public var interval: Double
    /// The least a kept result stands, in seconds of stream time.
    public var minimumHold: Double
    /// A turn on every `every`-th analysis without a face (1: every one).
    public var every: Int
    /// The schedule's slot the next turn takes.
    public private(set) var next = 0
    /// The measured pts step between analyses (seconds, smoothed); nil until two analyses with pts.
    public private(set) var pace: Double?
    /// The engines the last analysis ran, in order (`first`, the fallback, `last` when it ran).
    public private(set) var lastRun: [String] = []
    /// The slice the last analysis' fallback ran (nil: a whole search, or no fallback ran).
    public private(set) var lastSlice: Int?
    /// The last analysis' turn: "people 2/6" (its fallback, slice and slices), "bodies"; nil when it took none.
    public private(set) var lastTurn: String?

    private struct Kept: Sendable {
        var pts: UInt64?
        var analysis: Int
        /// Analyses between two results of this fallback (a round of turns).
        var round: Int
        var detections: [Detection]
    }
    private struct Sweep: Sendable {
        var width: Int, height: Int, next = 0
        var parts: [SearchSlice] = []
    }
    /// Per fallback name: what it found when its search was last whole, and a sliced search under way.
    private var kept: [String: Kept] = [:]
    private var sweeps: [String: Sweep] = [:]
    /// Analyses made so far, and those without a face.
    private var analyses = 0, faceless = 0
    /// The pts of the last analysis that had one.
    private var lastPts: UInt64?
    /// A pts step longer than this is a pause (or a gap in the stream), not the analyses' pace.
    static let longestPace = 5.0

    /// A rotation for analyses `interval` seconds of stream time apart, a turn every `every` face-less analyses.
    public init(interval: Double = 0.1, minimumHold: Double = 1, every: Int = 1) {
        self.interval = max(0, interval); self.minimumHold = max(0, minimumHold); self.every = max(1, every)
    }

    /// Seconds a result stands when a round of turns takes `round` analyses.
    public func hold(round: Int) -> Double { max(minimumHold, Double(round + 1) * max(interval, pace ?? 0)) }

    /// Follows the analyses' pts step (a quarter of each new step; steps back or over `longestPace` are left out).
    private mutating func measure(_ pts: UInt64?) {
        guard let now = pts else { return }
        defer { lastPts = now }
        guard let last = lastPts, now > last else { return }
        let step = Double(now - last) / 1e9
        guard step <= Self.longestPace else { return }
        pace = pace.map { 0.75 * $0 + 0.25 * step } ?? step
    }

    /// Whether a kept result still stands at `pts`.
    private func stands(_ k: Kept, pts: UInt64?) -> Bool {
        guard !k.detections.isEmpty else { return false }
        if let now = pts, let then = k.pts {
            guard now >= then else { return false }
            return Double(now - then) / 1e9 <= hold(round: k.round)
        }
        return analyses - k.analysis <= k.round
    }

    /// One analysis' detections from `chain` (see the type): the detections and the engine that supplied them.
    /// A chain of two engines or fewer has no fallback to spread: it runs as `CompositionAnalyzer` runs it.
    public mutating func detect(_ chain: [any DetectionEngine], in image: RGBImage, pts: UInt64?) -> (
        detections: [Detection], engine: String?
    ) {
        analyses += 1
        lastRun = []
        lastSlice = nil
        lastTurn = nil
        measure(pts)
        guard chain.count > 2 else {
            for e in chain {
                lastRun.append(e.name)
                let d = e.detect(in: image)
                if !d.isEmpty { return (d, e.name) }
            }
            return ([], nil)
        }
        let first = chain[0], last = chain[chain.count - 1]
        let fallbacks = Array(chain[1..<(chain.count - 1)])
        lastRun.append(first.name)
        let faces = first.detect(in: image)
        if !faces.isEmpty { return (faces, first.name) }

        faceless += 1
        if (faceless - 1) % every == 0 {
            let slots = fallbacks.map { Self.slices($0, width: image.width, height: image.height) }
            let total = slots.reduce(0, +)
            var slot = next % total
            next = (slot + 1) % total
            for (f, n) in zip(fallbacks, slots) {
                if slot < n {
                    take(f, slices: n, round: total * every, image: image, pts: pts)
                    break
                }
                slot -= n
            }
        }

        for f in fallbacks {
            if let k = kept[f.name], stands(k, pts: pts) { return (k.detections, f.name) }
        }
        lastRun.append(last.name)
        let d = last.detect(in: image)
        return (d, d.isEmpty ? nil : last.name)
    }

    /// Slots `e` has in the schedule for a `width` x `height` image: its slices, or 1.
    private static func slices(_ e: any DetectionEngine, width: Int, height: Int) -> Int {
        guard let sliced = e as? any SlicedDetectionEngine else { return 1 }
        return max(1, sliced.sliceCount(width: width, height: height))
    }

    /// A fallback's turn: its whole search, or the next of its `slices` slices; its result, once whole, stands a
    /// `round` of analyses.
    private mutating func take(_ e: any DetectionEngine, slices count: Int, round: Int, image: RGBImage, pts: UInt64?) {
        lastRun.append(e.name)
        lastTurn = e.name
        let w = image.width, h = image.height
        guard let sliced = e as? any SlicedDetectionEngine, count > 1 else {
            kept[e.name] = Kept(pts: pts, analysis: analyses, round: round, detections: e.detect(in: image))
            return
        }
        var sweep = sweeps[e.name].flatMap { $0.width == w && $0.height == h ? $0 : nil } ?? Sweep(width: w, height: h)
        lastSlice = sweep.next
        lastTurn = "\(e.name) \(sweep.next)/\(count)"
        sweep.parts.append(sliced.slice(sweep.next, in: image))
        sweep.next += 1
        if sweep.next < count {
            sweeps[e.name] = sweep
        } else {
            sweeps[e.name] = nil
            kept[e.name] = Kept(pts: pts, analysis: analyses, round: round, detections: sliced.detections(from: sweep.parts, width: w, height: h))
        }
    }
}
