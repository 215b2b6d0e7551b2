import FrameAnalysis
import GStreamerKit
import Overlay

/// What `compose` draws: the guidance for a verdict (`drawing`), its sprites as one overlay, and the text
/// rows the frame gives the score block and the advice.
extension ComposeStage {
    /// The frame is the layout owner of the group's text: the score block takes the top row and the
    /// advice a bottom row, so a later stage's text (capture's state line) stacks beside them instead
    /// of over them. The advice is its own overlay, placed at the row the frame gives it.
    func placeText(_ drawing: GuidanceDrawing, on frame: VideoFrame, textScale: Double) {
        let w = frame.info.width, h = frame.info.height
        let key = AdviceKey(advice: drawing.advice, width: w, height: h, textScale: textScale)
        let (block, sprite) = state.withLock { st -> ((x: Int, y: Int, width: Int, height: Int), AdviceSprite?) in
            if st.scoreBlock == nil { st.scoreBlock = GuidanceRenderer.scoreBlock(drawing, width: w, height: h, textScale: textScale) }
            if st.advice == nil || st.advice!.key != key {
                let prepared = results.withLock { r -> AdviceSprite?? in
                    guard let p = r.prepared, p.drawing.advice == drawing.advice, p.width == w, p.height == h, p.textScale == textScale
                    else { return nil }
                    return .some(p.advice)
                }
                st.advice = (key, prepared ?? GuidanceRenderer.adviceSprite(drawing.advice, width: w, height: h, textScale: textScale))
            }
            return (st.scoreBlock!, st.advice!.sprite)
        }
        _ = frame.reserveTextRow(height: block.height, edge: .top, gap: block.y, x: block.x, width: block.width)
        guard let sprite else { return }
        let y = frame.reserveTextRow(height: sprite.image.height, edge: .bottom, gap: sprite.gap, x: sprite.x, width: sprite.image.width)
        let overlay = state.withLock { st -> OverlayComposition in
            if let o = st.adviceOverlay, o.key == key, o.y == y { return o.composition }
            let c = OverlayComposition(
                bgra: sprite.image.pixels, width: sprite.image.width, height: sprite.image.height,
                stride: sprite.image.stride, x: sprite.x, y: y)
            st.adviceOverlay = (key, y, c)
            return c
        }
        frame.addOverlay(overlay)
    }

    /// The guidance sprites as one overlay (cairo/pango drawing, cut to content).
    static func guidanceComposition(_ drawing: GuidanceDrawing, width w: Int, height h: Int, textScale: Double) -> OverlayComposition {
        let layers = GuidanceRenderer.sprites(drawing, width: w, height: h, textScale: textScale, advice: false).map {
            OverlayComposition.Layer(
                pixels: $0.image.pixels, width: $0.image.width, height: $0.image.height, stride: $0.image.stride, x: $0.x, y: $0.y)
        }
        return OverlayComposition(layers: layers)
    }

    /// What to draw for the latest guidance: the rule's marks come from `marks` (by the name of the rule
    /// that judged the frame, or of the stage's own rule before any verdict), so any registered rule is
    /// drawn without this stage knowing it.
    static func drawing(_ g: Guidance?, grid: [GridMark], rule: String, marks: [String: RuleMarks]) -> GuidanceDrawing {
        let ruleMarks = marks[g?.rule ?? rule] ?? .none
        let gridLines: [GridLine], guides: [GuideSegment]
        if grid == [.auto] {
            gridLines = []
            guides = ruleMarks.lines.map { GuideSegment(x0: $0.from.x, y0: $0.from.y, x1: $0.to.x, y1: $0.to.y) }
        } else {
            gridLines = grid.compactMap { GridLine(rawValue: $0.rawValue) }.filter { $0 != .none }
            guides = []
        }
        let points = grid.contains(.points) ? ruleMarks.points.map { ($0.x, $0.y) } : []
        guard let g else {
            return GuidanceDrawing(
                subject: nil, target: nil, advice: "", rule: rule, score: 0, wellComposed: false, locked: false,
                grid: gridLines, points: points, guides: guides)
        }
        let s = g.subjectNormalized
        return GuidanceDrawing(
            subject: s.map { ($0.x, $0.y, $0.width, $0.height) }, target: g.target.map { ($0.x, $0.y) },
            advice: g.advice, rule: g.rule, score: (g.score * 100).rounded() / 100,
            wellComposed: g.wellComposed, locked: g.locked, grid: gridLines, points: points, guides: guides)
    }
}
