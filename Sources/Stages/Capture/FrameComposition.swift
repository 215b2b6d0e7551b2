import FrameAnalysis
import GStreamerKit

/// compose's verdict as `capture` reads it from a frame's `ViewfinderComposition` meta: one analysis,
/// of the frame whose pts is `analysisPts`.
///
/// A value, read on the group's worker in `process`; no locks.
struct FrameComposition: Sendable {
    var rule: String, score: Double, composed: Bool, advice: String
    /// The drawn (smoothed) subject box, in pixels of an `inputWidth` x `inputHeight` frame.
    var subject: Box?
    /// The subject as detected in the analysed frame (nil: the meta has only the drawn box).
    var measured: Box?
    /// The pts of the analysed frame (nil: unknown).
    var analysisPts: UInt64?
    /// The frame size the boxes are in (0: the frame's own).
    var inputWidth = 0, inputHeight = 0

    /// A crop window in frame pixels.
    typealias Window = (x: Int, y: Int, width: Int, height: Int)

    /// Where the subject is in the analysed frame's pixels, scaled to a `width` x `height` frame.
    func box(width: Int, height: Int) -> Box? {
        guard let b = measured ?? subject else { return nil }
        guard inputWidth > 0, inputHeight > 0, inputWidth != width || inputHeight != height else { return b }
        return b.scaled(Double(width) / Double(inputWidth), Double(height) / Double(inputHeight))
    }

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
        guard let text = frame.buffer.customMetaText(ComposeStage.metaName), let m = MessageStructure(parsing: text) else { return (nil, false, nil) }
        let analysing = m.bool("analysing") ?? false
        let skipped = m.integer("skipped-pts").map { UInt64(bitPattern: $0) }
        guard let score = m.double("score") else { return (nil, analysing, skipped) }
        var box: Box?
        if let w = m.double("width"), let h = m.double("height"), w > 0, h > 0, let x = m.double("x"), let y = m.double("y") {
            box = Box(x: x, y: y, width: w, height: h)
        }
        var measured: Box?
        if let w = m.double("measured-width"), let h = m.double("measured-height"), w > 0, h > 0,
           let x = m.double("measured-x"), let y = m.double("measured-y") {
            measured = Box(x: x, y: y, width: w, height: h)
        }
        let apts = m.integer("analysis-pts").map { UInt64(bitPattern: $0) }
        return (FrameComposition(rule: m.string("rule") ?? "", score: score, composed: m.bool("well-composed") ?? false,
                                 advice: m.string("advice") ?? "", subject: box, measured: measured,
                                 analysisPts: apts == UInt64.max ? nil : apts,
                                 inputWidth: m.integer("input-width").map { Int($0) } ?? 0,
                                 inputHeight: m.integer("input-height").map { Int($0) } ?? 0), analysing, skipped)
    }
}
