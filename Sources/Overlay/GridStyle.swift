/// What `GridRenderer` draws: which lines, in which colour, how thick.
public struct GridStyle: Sendable, Equatable {
    /// The line families to draw, in order.
    public var lines: [GridLine]
    /// Colour of every line.
    public var color: RGBAColor
    /// Line width in pixels for a 1080-pixel-high frame; scaled with the frame height.
    public var width: Double

    /// A style; by default rule-of-thirds lines in white at 75% opacity, 2 px at 1080p.
    public init(lines: [GridLine] = [.thirds], color: RGBAColor = RGBAColor.white.withAlpha(0.75), width: Double = 2) {
        self.lines = lines
        self.color = color
        self.width = width
    }

    /// The line width in whole pixels for a frame `h` pixels high: `max(1, (width * h / 1080).rounded())`.
    public func lineWidth(forHeight h: Int) -> Double {
        max(1, (width * Double(h) / 1080).rounded())
    }
}
