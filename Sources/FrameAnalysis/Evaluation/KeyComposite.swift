import Foundation

/// Green-screen test frames made from real photos of people: the people (hand-drawn polygons from a
/// labelme annotation file) pasted onto a screen colour, so the true matte is known by construction.
///
/// - `screen`: a flat colour, or a colour whose brightness varies by up to `±variation` over the frame
///   (a smooth 2-D cosine: light falling off across a real screen) with deterministic noise.
/// - `softEdge`: the mask blurred by a Gaussian of this sigma (pixels) before pasting, so the outline
///   (hair, sleeves) mixes subject and screen as a camera's optics do; the true matte is then
///   "alpha >= 0.5". 0: hard edges.
public struct KeyComposite: Sendable {
    /// The screen behind the subject.
    public struct Screen: Sendable, Equatable {
        /// Screen colour (bytes).
        public var r: UInt8, g: UInt8, b: UInt8
        /// Brightness varies by up to this share either way (0.15: ±15 %).
        public var variation: Double
        /// Standard deviation of the per-channel noise, in 8-bit steps.
        public var noise: Double
        /// Creates a screen.
        public init(r: UInt8, g: UInt8, b: UInt8, variation: Double = 0, noise: Double = 0) {
            self.r = r; self.g = g; self.b = b; self.variation = variation; self.noise = noise
        }
        /// Pure `#00ff00`, flat.
        public static let pureGreen = Screen(r: 0, g: 255, b: 0)
    }

    /// Width and height.
    public let width: Int, height: Int
    /// The frame, RGBA (alpha 255).
    public var rgba: [UInt8]
    /// The true matte: true where the subject covers at least half the pixel.
    public var truth: [Bool]

    /// Pastes `photo`'s pixels under `mask` (true: subject) onto `screen`.
    public init(photo: RGBImage, mask: [Bool], screen: Screen, softEdge: Double = 0) {
        width = photo.width; height = photo.height
        let alpha = softEdge > 0 ? SaliencyEngine.gaussianBlur(mask.map { $0 ? 1.0 : 0.0 }, width: width, height: height, sigma: softEdge)
            : mask.map { $0 ? 1.0 : 0.0 }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {  // sum of 4 uniforms: near-Gaussian, deterministic
            var s = 0.0
            for _ in 0..<4 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                s += Double(seed >> 11) / Double(1 << 53) - 0.5
            }
            return s * 1.732  // unit variance: 4 * 1/12 = 1/3
        }
        for y in 0..<height {
            for x in 0..<width {
                let f =
                    1 + screen.variation * cos(2 * Double.pi * Double(x) / Double(width) * 1.3)
                    * cos(2 * Double.pi * Double(y) / Double(height) * 0.8)
                let bg = [screen.r, screen.g, screen.b].map { Double($0) * f }
                let p = photo.rgb(x: x, y: y)
                let fg = [Double(p.r), Double(p.g), Double(p.b)]
                let a = alpha[y * width + x]
                let i = (y * width + x) * 4
                for c in 0..<3 {
                    let v = a * fg[c] + (1 - a) * (bg[c] + (screen.noise > 0 ? noise() * screen.noise : 0))
                    rgba[i + c] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        self.rgba = rgba
        truth = alpha.map { $0 >= 0.5 }
    }

    /// Intersection over union of a matte (alpha >= 128: kept) with the truth.
    public func iou(alpha: [UInt8]) -> Double {
        var inter = 0, union = 0
        for i in truth.indices {
            let kept = alpha[i] >= 128
            if kept && truth[i] { inter += 1 }
            if kept || truth[i] { union += 1 }
        }
        return union == 0 ? 1 : Double(inter) / Double(union)
    }

    /// The alpha bytes of an RGBA buffer.
    public static func alphaPlane(_ rgba: [UInt8]) -> [UInt8] { stride(from: 3, to: rgba.count, by: 4).map { rgba[$0] } }
}

/// The polygons of a labelme annotation file (`shapes[].label`, `points`, `shape_type` "polygon"),
/// rasterised: a pixel is inside when its centre is (even-odd rule), as labelme's own PNG export does
/// up to its anti-aliasing.
public struct LabelmePolygons: Sendable {
    /// One labelled polygon.
    public struct Shape: Sendable, Decodable {
        /// The label (`person`, `bottle`, `__ignore__`, ...).
        public var label: String
        /// Vertices in pixels (x, y).
        public var points: [[Double]]
        /// `polygon` (other shape types are not rasterised).
        public var shapeType: String?
        enum CodingKeys: String, CodingKey { case label, points, shapeType = "shape_type" }
    }
    struct File: Decodable {
        var shapes: [Shape]
        var imageWidth: Int
        var imageHeight: Int
    }

    /// Every shape.
    public var shapes: [Shape]
    /// The photo's size the points refer to.
    public var width: Int, height: Int

    /// Reads a labelme JSON file.
    public init(json: Data) throws {
        let f = try JSONDecoder().decode(File.self, from: json)
        shapes = f.shapes; width = f.imageWidth; height = f.imageHeight
    }

    /// The mask of every polygon with this label.
    public func mask(label: String) -> [Bool] {
        var mask = [Bool](repeating: false, count: width * height)
        for s in shapes where s.label == label && (s.shapeType ?? "polygon") == "polygon" && s.points.count >= 3 {
            let pts = s.points.compactMap { $0.count >= 2 ? ($0[0], $0[1]) : nil }
            for y in 0..<height {
                let py = Double(y) + 0.5
                // Crossings of this scan line, left to right; pixels between odd and even crossings are inside (each
                // polygon alone: the label's mask is their union).
                var xs: [Double] = []
                for i in pts.indices {
                    let (x1, y1) = pts[i], (x2, y2) = pts[(i + 1) % pts.count]
                    guard (y1 > py) != (y2 > py) else { continue }
                    xs.append(x1 + (py - y1) * (x2 - x1) / (y2 - y1))
                }
                xs.sort()
                var k = 0
                while k + 1 < xs.count {
                    let from = max(0, Int((xs[k] - 0.5).rounded(.up))), to = min(width - 1, Int((xs[k + 1] - 0.5).rounded(.up)) - 1)
                    if from <= to { for x in from...to { mask[y * width + x] = true } }
                    k += 2
                }
            }
        }
        return mask
    }
}
