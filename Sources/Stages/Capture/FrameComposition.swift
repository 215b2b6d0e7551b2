import FrameAnalysis
import GStreamerKit

/// compose's verdict as `capture` reads it from a frame's `ViewfinderComposition` meta: one analysis,
/// of the frame whose pts is `analysisPts`. The schema is `CompositionMeta`'s (one place for compose,
/// capture and tests); capture adds only its crop helpers.
///
/// A value, read on the group's worker in `process`; no locks.
typealias FrameComposition = CompositionMeta.Analysis

extension CompositionMeta.Analysis {
    /// A crop window in frame pixels.
    typealias Window = (x: Int, y: Int, width: Int, height: Int)

    /// A box in frame pixels seen through a crop window: clipped to it and moved to its origin;
    /// nil when the subject is outside the window.
    static func map(_ b: Box, into w: Window) -> Box? {
        let x0 = max(b.x, Double(w.x)), y0 = max(b.y, Double(w.y))
        let x1 = min(b.x + b.width, Double(w.x + w.width)), y1 = min(b.y + b.height, Double(w.y + w.height))
        guard x1 > x0, y1 > y0 else { return nil }
        return Box(x: x0 - Double(w.x), y: y0 - Double(w.y), width: x1 - x0, height: y1 - y0)
    }

    /// Reads compose's meta from the frame: the latest analysis, and whether this frame is being analysed.
    /// `skipped`: the pts of an earlier frame whose analysis compose dropped (a newer frame replaced it).
    static func read(from frame: VideoFrame) -> (FrameComposition?, analysing: Bool, skipped: UInt64?) {
        guard let meta = CompositionMeta(frame: frame) else { return (nil, false, nil) }
        return (meta.analysis, meta.analysing, meta.skippedPts)
    }
}
