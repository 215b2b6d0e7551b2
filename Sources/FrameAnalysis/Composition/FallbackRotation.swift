/// `engine=auto` on a stream: its fallbacks spread over analyses, so an analysis of a frame without a face has a
/// bounded cost.
///
/// The chain `CompositionAnalyzer.chain` gives is `first, fallbacks..., last` (with the cnn library: cnn; the face
/// cascades, people (HOG), the upper-body cascade; saliency). Run whole, a frame without a face pays for every
/// fallback (issue 25: about 200 ms at 320x180, most of it HOG searched at 960x540 and the Swift cascades), so
/// seven 720p streams on two cores got under one analysis a second each. With a rotation, each analysis runs
/// - `first`, always (a face found supplies the candidates, as before: nothing else runs);
/// - else exactly one fallback, the next in turn, whose result (found or empty) replaces what that fallback
///   found last;
/// - then takes the first fallback in chain order whose kept result is not empty and not older than `hold`
///   seconds of stream time (its detections, possibly from an earlier frame: the smoother follows the box);
/// - else runs `last` (saliency: a 64 px map, about a millisecond).
///
/// So an analysis runs at most three engines, one of them a fallback, and a person HOG finds is the subject
/// from the analysis HOG runs on until `hold` after it, re-found every `fallbacks` face-less analyses. Time is
/// the frames' pts (stream time, as every per-frame rule: ARCHITECTURE "Time"); a frame without pts counts
/// as one `cycle` of analyses instead. A pts going backwards (a seek) makes every kept result stale.
public struct FallbackRotation: Sendable {
    /// Seconds of stream time a fallback's result stands for after the frame it was found on.
    public var hold: Double
    /// The fallback (index among the chain's fallbacks) the next face-less analysis runs.
    public private(set) var next = 0
    /// The engines the last analysis ran, in order (`first`, the fallback, `last` when it ran).
    public private(set) var lastRun: [String] = []

    private struct Kept: Sendable {
        var pts: UInt64?
        var analysis: Int
        var detections: [Detection]
    }
    /// Per fallback name: what it found when it last ran.
    private var kept: [String: Kept] = [:]
    /// Analyses made so far.
    private var analyses = 0

    /// A rotation keeping each fallback's result `hold` seconds of stream time (compose: at least 1 s, and at
    /// least a whole turn of the fallbacks at its analysis rate).
    public init(hold: Double = 1) { self.hold = max(0, hold) }

    /// The hold compose uses at `fps` analyses a second for `fallbacks` fallbacks: a turn of them plus one
    /// analysis, at least 1 s, so a person found once is still held when HOG's next turn comes.
    public static func hold(fps: Double, fallbacks: Int) -> Double {
        max(1, Double(fallbacks + 1) / max(0.01, fps))
    }

    /// Whether a kept result still stands at `pts` (analysis `analysis`), for `cycle` fallbacks.
    private func stands(_ k: Kept, pts: UInt64?, cycle: Int) -> Bool {
        guard !k.detections.isEmpty else { return false }
        if let now = pts, let then = k.pts {
            guard now >= then else { return false }
            return Double(now - then) / 1e9 <= hold
        }
        return analyses - k.analysis < cycle
    }

    /// One analysis' detections from `chain` (see the type): the detections and the engine that supplied them.
    /// A chain of two engines or fewer has no fallback to spread: it runs as `CompositionAnalyzer` runs it.
    public mutating func detect(_ chain: [any DetectionEngine], in image: RGBImage, pts: UInt64?) -> (
        detections: [Detection], engine: String?
    ) {
        analyses += 1
        lastRun = []
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
        let runNow = fallbacks[turn]
        lastRun.append(runNow.name)
        kept[runNow.name] = Kept(pts: pts, analysis: analyses, detections: runNow.detect(in: image))

        for f in fallbacks {
            if let k = kept[f.name], stands(k, pts: pts, cycle: fallbacks.count) { return (k.detections, f.name) }
        }
        lastRun.append(last.name)
        let d = last.detect(in: image)
        return (d, d.isEmpty ? nil : last.name)
    }
}
