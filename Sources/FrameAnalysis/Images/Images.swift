/// An 8-bit single-channel image (luma), row-major, no padding.
public struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` samples, row by row.
    public var pixels: [UInt8]

    /// Wraps samples; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "GrayImage: \(pixels.count) samples for \(width)x\(height)")
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// A uniform image.
    public init(width: Int, height: Int, value: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height))
    }

    /// Copies rows out of a padded plane (`stride` bytes per row).
    public init(width: Int, height: Int, stride: Int, plane: [UInt8]) {
        var p = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { p[y * width + x] = plane[y * stride + x] } }
        self.init(width: width, height: height, pixels: p)
    }

    /// The sample at (x, y).
    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Bilinear resize (pixel centres aligned, as OpenCV's INTER_LINEAR).
    public func resized(width w: Int, height h: Int) -> GrayImage {
        guard w != width || h != height else { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        for y in 0..<h {
            let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
            let y0 = min(height - 1, Int(fy)), y1 = min(height - 1, y0 + 1)
            let wy = fy - Double(y0)
            for x in 0..<w {
                let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                let x0 = min(width - 1, Int(fx)), x1 = min(width - 1, x0 + 1)
                let wx = fx - Double(x0)
                let a = Double(pixels[y0 * width + x0]), b = Double(pixels[y0 * width + x1])
                let c = Double(pixels[y1 * width + x0]), d = Double(pixels[y1 * width + x1])
                let v = (a * (1 - wx) + b * wx) * (1 - wy) + (c * (1 - wx) + d * wx) * wy
                out[y * w + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}

/// An 8-bit RGB image, interleaved R,G,B, row-major, no padding.
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes.
    public var pixels: [UInt8]

    /// Wraps bytes; `pixels.count` must be `width * height * 3`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGBImage: \(pixels.count) bytes for \(width)x\(height)")
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// (r, g, b) at (x, y).
    @inlinable public func rgb(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// Luma exactly as OpenCV 4.6's RGB2GRAY (0.299, 0.587, 0.114 in 15-bit fixed point, rounded).
    public var gray: GrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let r = Int(pixels[i * 3]), g = Int(pixels[i * 3 + 1]), b = Int(pixels[i * 3 + 2])
            // Fixed point as OpenCV: (R*9798 + G*19235 + B*3735 + 16384) >> 15.
            out[i] = UInt8((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15)
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

/// An axis-aligned rectangle in pixels (or normalised units, by context).
public struct Box: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double
    /// Creates a box.
    public init(x: Double, y: Double, width: Double, height: Double) { self.x = x; self.y = y; self.width = width; self.height = height }
    /// Centre point.
    public var center: (x: Double, y: Double) { (x + width / 2, y + height / 2) }
    /// Area.
    public var area: Double { max(0, width) * max(0, height) }
    /// Intersection over union with another box (0 when disjoint).
    public func iou(_ o: Box) -> Double {
        let ix = max(0, min(x + width, o.x + o.width) - max(x, o.x))
        let iy = max(0, min(y + height, o.y + o.height) - max(y, o.y))
        let inter = ix * iy
        let union = area + o.area - inter
        return union > 0 ? inter / union : 0
    }
    /// The box scaled by (sx, sy) about the origin (e.g. analysis pixels -> input pixels).
    public func scaled(_ sx: Double, _ sy: Double) -> Box { Box(x: x * sx, y: y * sy, width: width * sx, height: height * sy) }
    /// "x,y wxh".
    public var description: String { "\(Int(x.rounded())),\(Int(y.rounded())) \(Int(width.rounded()))x\(Int(height.rounded()))" }
}

/// What a detection engine found.
public struct Detection: Sendable, Equatable {
    /// The kind of subject.
    public enum Kind: String, Sendable, Codable {
        case face
        case profileFace = "profile-face"
        case upperBody = "upper-body"
        case fullBody = "full-body"
        case salient
        /// Several faces or bodies standing together (see `SubjectGrouping`): the box is their union.
        case group
    }
    /// Where, in the analysed image's pixels.
    public var box: Box
    /// Confidence in 0...1 (engine-specific calibration, documented by the engine).
    public var confidence: Double
    /// What it is.
    public var kind: Kind
    /// For a `.group`: the members' boxes (same pixels as `box`); empty otherwise.
    public var members: [Box]
    /// Where the subject's centre lies inside `box`, 0...1 on each axis (a group's size-weighted centre);
    /// nil: the middle of the box. Relative, so it survives smoothing and scaling of the box.
    public var anchor: Point2D?
    /// The eyes, when the engine locates them (`cnn`), in the same pixels as `box`.
    public var eyes: Eyes?
    /// Where the face looks in the image, -1...1: negative towards the image's left, positive towards its
    /// right, about 0 for a frontal face; nil when unknown (engines without landmarks). `cnn` measures it
    /// from the nose tip (`CNNFaceEngine.look`); a group carries its members' mean (`SubjectGrouping.group`).
    public var look: Double?
    /// The id of the track that follows it from frame to frame (`ObjectTracker.identify`); nil: not tracked.
    public var id: Int?
    /// Creates a detection.
    public init(
        box: Box, confidence: Double, kind: Kind, members: [Box] = [], anchor: Point2D? = nil, eyes: Eyes? = nil,
        look: Double? = nil
    ) {
        self.box = box; self.confidence = confidence; self.kind = kind; self.members = members; self.anchor = anchor
        self.eyes = eyes; self.look = look
    }

    /// Two eye centres. `left` is the one on the image's left (the subject's right eye for a frontal face).
    public struct Eyes: Sendable, Equatable, Hashable, Codable {
        /// The eye on the image's left.
        public var left: Point2D
        /// The eye on the image's right.
        public var right: Point2D
        /// Creates the pair.
        public init(left: Point2D, right: Point2D) { self.left = left; self.right = right }
        /// Both points scaled by (sx, sy) about the origin.
        public func scaled(_ sx: Double, _ sy: Double) -> Eyes {
            Eyes(left: Point2D(x: left.x * sx, y: left.y * sy), right: Point2D(x: right.x * sx, y: right.y * sy))
        }
    }
}

/// A swappable detector (strategy): faces (cascades or the cnn), bodies, people (HOG), saliency, or results from upstream.
public protocol DetectionEngine: Sendable {
    /// Engine name as used by `engine=` (faces, cnn, bodies, people, saliency, upstream).
    var name: String { get }
    /// Detections in the image's pixel coordinates, best first.
    func detect(in image: RGBImage) -> [Detection]
}
