/// An output window over the input frame (input pixels): its centre and width; the height follows the output's
/// aspect ratio (`width / aspect`).
///
/// A window may reach past the frame when `pad` allows it: a group or a face too wide for any crop of the frame's
/// shape is shown whole with bars (letterbox or pillarbox, as AutoFlip pads), at most `pad` of the output's height and
/// of its width. On an axis where it is larger than the frame it is centred on the frame (even bars); on an axis where
/// it fits, it stays inside. The default window (`widest`) never has bars.
public struct CropWindow: Sendable, Equatable, CustomStringConvertible {
    /// Centre, input pixels.
    public var cx: Double
    /// See `cx`.
    public var cy: Double
    /// Width, input pixels.
    public var width: Double
    /// Output width / height.
    public var aspect: Double
    /// The most of the output (a fraction of its width, and of its height) that may lie past the frame: 0...0.5.
    public var pad: Double

    /// Creates a window.
    public init(cx: Double, cy: Double, width: Double, aspect: Double, pad: Double = 0) {
        self.cx = cx; self.cy = cy; self.width = width; self.aspect = aspect; self.pad = min(max(pad, 0), 0.5)
    }

    /// Height, input pixels.
    public var height: Double { width / aspect }
    /// Left edge.
    public var left: Double { cx - width / 2 }
    /// Top edge.
    public var top: Double { cy - height / 2 }
    /// Right edge.
    public var right: Double { cx + width / 2 }
    /// Bottom edge.
    public var bottom: Double { cy + height / 2 }
    /// The window as a box.
    public var box: Box { Box(x: left, y: top, width: width, height: height) }

    /// The largest window of `aspect` inside a `frameWidth` x `frameHeight` frame, centred (no bars).
    public static func widest(aspect: Double, frameWidth: Double, frameHeight: Double, pad: Double = 0) -> CropWindow {
        let w = min(frameWidth, frameHeight * aspect)
        return CropWindow(cx: frameWidth / 2, cy: frameHeight / 2, width: w, aspect: aspect, pad: pad)
    }

    /// The widest this window may be over a `frameWidth` x `frameHeight` frame: the widest inside it, or with `pad` bars
    /// of the output on the axis the frame is too small on (on both, when the frame is too small on both).
    public func maxWidth(frameWidth: Double, frameHeight: Double) -> Double {
        min(frameWidth, frameHeight * aspect) / (1 - pad)
    }

    /// The widest window this one may become (`maxWidth`), centred on the frame.
    public func padded(frameWidth: Double, frameHeight: Double) -> CropWindow {
        var c = self
        c.width = maxWidth(frameWidth: frameWidth, frameHeight: frameHeight)
        c.cx = frameWidth / 2; c.cy = frameHeight / 2
        return c
    }

    /// Whether part of the window lies past the frame (the output has bars).
    public func hasBars(frameWidth: Double, frameHeight: Double) -> Bool {
        left < -0.5 || top < -0.5 || right > frameWidth + 0.5 || bottom > frameHeight + 0.5
    }

    /// The window moved (not resized) to lie inside the frame on each axis it fits on, centred on the frame on an axis
    /// it is larger than; a window wider than `maxWidth` is first shrunk to it.
    public func clamped(frameWidth: Double, frameHeight: Double) -> CropWindow {
        var c = self
        c.width = min(c.width, maxWidth(frameWidth: frameWidth, frameHeight: frameHeight))
        c.cx = c.width > frameWidth ? frameWidth / 2 : min(max(c.cx, c.width / 2), frameWidth - c.width / 2)
        c.cy = c.height > frameHeight ? frameHeight / 2 : min(max(c.cy, c.height / 2), frameHeight - c.height / 2)
        return c
    }

    /// Where input point (x, y) lands in the window, 0...1 on each axis.
    public func normalized(x: Double, y: Double) -> Point2D { Point2D(x: (x - left) / width, y: (y - top) / height) }

    /// `b` in the window's own normalised coordinates (0...1 inside).
    public func normalized(_ b: Box) -> Box {
        Box(x: (b.x - left) / width, y: (b.y - top) / height, width: b.width / width, height: b.height / height)
    }

    /// Whether `b` lies wholly inside (with `slack` pixels of tolerance).
    public func contains(_ b: Box, slack: Double = 0.5) -> Bool {
        b.x >= left - slack && b.y >= top - slack && b.x + b.width <= right + slack && b.y + b.height <= bottom + slack
    }

    /// Whether `b` is cut by an edge: partly inside, partly outside.
    public func cuts(_ b: Box, slack: Double = 0.5) -> Bool {
        let outside = b.x + b.width <= left + slack || b.x >= right - slack || b.y + b.height <= top + slack || b.y >= bottom - slack
        return !outside && !contains(b, slack: slack)
    }

    /// Whether an edge runs within `FramingTarget.minimumMargin` of the face's width of `b`'s sides, inside or out:
    /// a detector's box is that uncertain, so a face the plan leaves in (or out) by less may still be cut.
    public func crowds(_ b: Box) -> Bool {
        let m = FramingTarget.minimumMargin * b.width
        let e = Box(x: b.x - m, y: b.y - m, width: b.width + 2 * m, height: b.height + 2 * m)
        let outside = e.x + e.width <= left || e.x >= right || e.y + e.height <= top || e.y >= bottom
        return !outside && !contains(e, slack: 0)
    }

    /// "cx,cy w" rounded.
    public var description: String { "\(Int(cx.rounded())),\(Int(cy.rounded())) \(Int(width.rounded()))x\(Int(height.rounded()))" }
}
