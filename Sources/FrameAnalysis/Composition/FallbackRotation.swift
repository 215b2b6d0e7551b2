/// `engine=auto` on a stream: its fallbacks spread over analyses, so an analysis of a frame without a face has a
/// bounded cost.
///
/// The chain `CompositionAnalyzer.chain` gives is `first, fallbacks..., last` (with the cnn library: cnn; the face
/// cascades, people (HOG), the upper-body cascade; saliency). Run whole, a frame without a face pays for every
/// fallback (issue 25: about 200 ms at 320x180, most of it HOG searched at 960x540), so seven 720p streams on two
/// cores got under one analysis a second each. With a rotation, each analysis runs
/// - `first`, always (a face found supplies the candidates, as before: nothing else runs);
/// - else one fallback's turn, the next in order: a whole search, or for a `SlicedDetectionEngine` (people) the
///   next slice of its search; a fallback's result (found or empty) replaces what it found last once its search
///   is whole (for a sliced one: after its last slice, from the windows of all its slices);
/// - then takes the first fallback in chain order whose kept result is not empty and still stands;
/// - else runs `last` (saliency: a 64 px map).
///
/// A kept result stands for `hold(slices:)` seconds of stream time after the frame that completed it: a whole
/// round of turns until the same fallback completes again, plus one analysis, at `interval` seconds per analysis,
/// and at least `minimumHold`; so a person HOG found stays the subject until HOG has searched again. Time is the
/// frames' pts (stream time, as every per-frame rule: ARCHITECTURE "Time"); frames without pts count analyses
/// instead (a round plus one). A pts going backwards (a seek) makes every kept result stale.
public struct FallbackRotation: Sendable {
    /// Stream seconds between two analyses (compose: 1 / analysis-fps).
    public var interval: Double
    /// The least a kept result stands, in seconds of stream time.
    public var minimumHold: Double
    /// The turn (index among the chain's fallbacks) the next face-less analysis takes.
    public private(set) var next = 0
    /// The engines the last analysis ran, in order (`first`, the fallback, `last` when it ran).
    public private(set) var lastRun: [String] = []
    /// The slice the last analysis' fallback ran (nil: a whole search, or no fallback ran).
    public private(set) var lastSlice: Int?

    private struct Kept: Sendable {
        var pts: UInt64?
        var analysis: Int
        /// Analyses between two results of this fallback (a round of turns).
        var round: Int
        var detections: [Detection]
    }
    private struct Sweep: Sendable {
        var width: Int, height: Int, next = 0
        var windows: [SearchWindow] = []
    }
    /// Per fallback name: what it found when its search was last whole, and a sliced search under way.
    private var kept: [String: Kept] = [:]
    private var sweeps: [String: Sweep] = [:]
    /// Analyses made so far.
    private var analyses = 0

    /// A rotation for analyses `interval` seconds of stream time apart.
    public init(interval: Double = 0.1, minimumHold: Double = 1) {
        self.interval = max(0, interval); self.minimumHold = max(0, minimumHold)
    }

    /// Seconds a result stands when a round of turns takes `round` analyses.
    public func hold(round: Int) -> Double { max(minimumHold, Double(round + 1) * interval) }

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

        let turn = next % fallbacks.count
        next = (turn + 1) % fallbacks.count
        take(fallbacks[turn], turns: fallbacks.count, image: image, pts: pts)

        for f in fallbacks {
            if let k = kept[f.name], stands(k, pts: pts) { return (k.detections, f.name) }
        }
        lastRun.append(last.name)
        let d = last.detect(in: image)
        return (d, d.isEmpty ? nil : last.name)
    }

    /// A fallback's turn: its whole search, or the next slice of a sliced one.
    private mutating func take(_ e: any DetectionEngine, turns: Int, image: RGBImage, pts: UInt64?) {
        lastRun.append(e.name)
        let w = image.width, h = image.height
        guard let sliced = e as? any SlicedDetectionEngine, case let count = sliced.sliceCount(width: w, height: h), count > 1 else {
            kept[e.name] = Kept(pts: pts, analysis: analyses, round: turns, detections: e.detect(in: image))
            return
        }
        var sweep = sweeps[e.name].flatMap { $0.width == w && $0.height == h ? $0 : nil } ?? Sweep(width: w, height: h)
        lastSlice = sweep.next
        sweep.windows += sliced.windows(slice: sweep.next, in: image)
        sweep.next += 1
        if sweep.next < count {
            sweeps[e.name] = sweep
        } else {
            sweeps[e.name] = nil
            kept[e.name] = Kept(
                pts: pts, analysis: analyses, round: turns * count, detections: sliced.detections(from: sweep.windows, width: w, height: h))
        }
    }
}
