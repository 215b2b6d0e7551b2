/// A straight guide line in normalised frame coordinates (0...1 on both axes), e.g. one a composition
/// rule asks for. Drawn by `GridRenderer` after the `GridLine` families.
public struct GuideSegment: Sendable, Equatable, Hashable {
    /// Start, from the left edge.
    public var x0: Double
    /// Start, from the top edge.
    public var y0: Double
    /// End, from the left edge.
    public var x1: Double
    /// End, from the top edge.
    public var y1: Double
    /// A segment from (x0, y0) to (x1, y1).
    public init(x0: Double, y0: Double, x1: Double, y1: Double) { self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1 }

    /// A vertical line across the whole frame height (drawn crisp, like the thirds lines).
    public var isFullVertical: Bool { x0 == x1 && min(y0, y1) <= 0 && max(y0, y1) >= 1 }
    /// A horizontal line across the whole frame width (drawn crisp).
    public var isFullHorizontal: Bool { y0 == y1 && min(x0, x1) <= 0 && max(x0, x1) >= 1 }
}

/// What `GridRenderer` draws: which lines, in which colour, how thick.
public struct GridStyle: Sendable, Equatable {
    /// The line families to draw, in order.
    public var lines: [GridLine]
    /// Further straight lines (a rule's own), drawn after `lines`.
    public var guides: [GuideSegment] = []
    /// Colour of every line.
    public var color: RGBAColor
    /// Line width in pixels for a 1080-pixel-high frame; scaled with the frame height.
    public var width: Double

    /// A style; by default rule-of-thirds lines in white at 75% opacity, 2 px at 1080p.
    public init(
        lines: [GridLine] = [.thirds], guides: [GuideSegment] = [], color: RGBAColor = RGBAColor.white.withAlpha(0.75), width: Double = 2
    ) {
        self.lines = lines
        self.guides = guides
        self.color = color
        self.width = width
    }

    /// The line width in whole pixels for a frame `h` pixels high: `max(1, (width * h / 1080).rounded())`.
    public func lineWidth(forHeight h: Int) -> Double {
        max(1, (width * Double(h) / 1080).rounded())
    }
}
