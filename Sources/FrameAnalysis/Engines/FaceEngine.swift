import Foundation

/// The "faces" engine: OpenCV's trained cascades run by `CascadeClassifier`, with a second stage that
/// removes the cascade's false faces.
///
/// Passes over the luma, each `detectMultiScale` at scale step 1.1, min neighbours 5, min size
/// `minFace` (the settings GStreamer's `facedetect` is compared at):
/// 1. `haarcascade_frontalface_default` on the image;
/// 2. `haarcascade_profileface` on the image and on its mirror image (the cascade knows one side only;
///    mirrored boxes map back with `x' = W - x - w`) — when `profiles`;
/// 3. the frontal cascade on the image rotated by +20 and -20 degrees (bilinear), boxes mapped back by
///    rotating their centres (size kept) — when `rotations`; this finds faces tilted in-plane by about
///    10...30 degrees, which upright cascades miss.
///
/// With `verify`, every hit goes through `FaceVerifier` in the frame it was found in (see there for the
/// cues, the accept rule and the confidence formula); without it, confidence is `min(1, n / 24)` for
/// `n` neighbours. Hits of all passes are then merged greedily, frontal hits before profile hits, most
/// confident first: a hit is dropped when its IoU with a kept one exceeds 0.3 or their intersection
/// covers over 60 % of the smaller box.
///
/// Cost: one full cascade pass per enabled pass (five by default) plus a few small crops per hit for
/// the verifier; `rotations: false, profiles: false` is a single frontal pass.
public struct FaceEngine: DetectionEngine {
    /// "faces".
    public var name: String { "faces" }
    /// Smallest face side searched, in pixels of the analysed image.
    public let minFace: Int
    /// Whether the second stage (`FaceVerifier`) filters the cascade hits.
    public let verify: Bool
    /// Whether the +-20 degree passes run.
    public let rotations: Bool
    /// Whether the profile passes run.
    public let profiles: Bool
    /// Angles of the extra in-plane passes, degrees counter-clockwise.
    public static let rotationAngles: [Double] = [20, -20]
    /// Where Debian's `opencv-data` installs the cascades (with `haarcascades/` and `lbpcascades/`).
    public static let defaultCascadeDirectory = URL(fileURLWithPath: "/usr/share/opencv4")

    let frontal: CascadeClassifier
    let profile: CascadeClassifier?
    let verifier: FaceVerifier?

    /// Loads the cascades from `cascadeDirectory` (its `haarcascades/`, `lbpcascades/` or itself).
    /// - Throws: `CascadeError` naming the missing or malformed file.
    public init(
        cascadeDirectory: URL = FaceEngine.defaultCascadeDirectory, minFace: Int = 24, verify: Bool = true,
        rotations: Bool = true, profiles: Bool = true
    ) throws {
        self.minFace = minFace; self.verify = verify; self.rotations = rotations; self.profiles = profiles
        frontal = try CascadeClassifier(named: "haarcascade_frontalface_default.xml", in: cascadeDirectory)
        profile = profiles ? try CascadeClassifier(named: "haarcascade_profileface.xml", in: cascadeDirectory) : nil
        verifier =
            verify
            ? FaceVerifier(
                frontal: try CascadeClassifier(named: "haarcascade_frontalface_alt2.xml", in: cascadeDirectory),
                profile: try CascadeClassifier(named: "lbpcascade_profileface.xml", in: cascadeDirectory),
                eye: try CascadeClassifier(named: "haarcascade_eye.xml", in: cascadeDirectory)) : nil
    }

    /// Faces in `image`, most confident first; skin colour joins the confidence when the image has colour.
    public func detect(in image: RGBImage) -> [Detection] {
        faces(gray: image.gray, color: verify && FaceVerifier.isColourful(image) ? image : nil)
    }

    /// Faces in a luma image (no colour cue), most confident first.
    public func detect(luma: GrayImage) -> [Detection] { faces(gray: luma, color: nil) }

    /// One search: a frame, the cascade run on it, and the way back to image coordinates.
    struct Pass {
        var frame: GrayImage
        var cascade: CascadeClassifier
        var kind: Detection.Kind
        var toImage: (Box) -> Box
    }

    /// Passes a search makes: frontal, the two profile passes with `profiles`, the rotated ones with `rotations`.
    var passCount: Int { 1 + (profile != nil ? 2 : 0) + (rotations ? Self.rotationAngles.count : 0) }

    /// Pass `index` (of `passCount`) over `gray`: only its own frame is made (mirrored or rotated).
    func pass(_ index: Int, of gray: GrayImage) -> Pass {
        let w = Double(gray.width)
        var i = index
        if i == 0 { return Pass(frame: gray, cascade: frontal, kind: .face, toImage: { $0 }) }
        i -= 1
        if let profile {
            if i == 0 { return Pass(frame: gray, cascade: profile, kind: .profileFace, toImage: { $0 }) }
            if i == 1 {
                return Pass(
                    frame: gray.flippedLeftRight(), cascade: profile, kind: .profileFace,
                    toImage: { Box(x: w - $0.x - $0.width, y: $0.y, width: $0.width, height: $0.height) })
            }
            i -= 2
        }
        let angle = Self.rotationAngles[i]
        let r = Rotation(degrees: angle, width: gray.width, height: gray.height)
        return Pass(frame: gray.rotated(degrees: angle), cascade: frontal, kind: .face, toImage: { r.inverse($0) })
    }

    func passes(_ gray: GrayImage) -> [Pass] { (0..<passCount).map { pass($0, of: gray) } }

    /// One pass's cascade hits, before the verifier judges them.
    struct Searched {
        var pass: Pass
        var hits: [CascadeDetection]
    }

    /// Every pass's cascade run on `gray`.
    func search(_ gray: GrayImage) -> [Searched] {
        passes(gray).map { pass in
            Searched(pass: pass, hits: pass.cascade.detections(in: pass.frame, scaleFactor: 1.1, minNeighbors: 5, minSize: minFace))
        }
    }

    func faces(gray: GrayImage, color: RGBImage?) -> [Detection] {
        judge(search(gray), width: gray.width, height: gray.height, color: color)
    }

    /// The hits of `search` on a `width` x `height` luma, through this engine's verifier (when `verify`), merged.
    func judge(_ searched: [Searched], width: Int, height: Int, color: RGBImage?) -> [Detection] {
        var found: [Detection] = []
        for s in searched {
            let pass = s.pass
            for hit in s.hits {
                guard let box = Self.clamp(pass.toImage(hit.box), width: width, height: height) else { continue }
                var evidence: FaceVerifier.Evidence?
                if let verifier {
                    var e = verifier.evidence(frame: pass.frame, box: hit.box)
                    if let color { e.skin = FaceVerifier.skinFraction(color, box: box) }
                    guard FaceVerifier.accepts(e, neighbors: hit.neighbors, profileHit: pass.kind == .profileFace, width: hit.box.width)
                    else { continue }
                    evidence = e
                }
                found.append(
                    Detection(
                        box: box, confidence: FaceVerifier.confidence(neighbors: hit.neighbors, evidence: evidence),
                        kind: pass.kind))
            }
        }
        return Self.merge(found)
    }

    /// What `detect(in:)` of this engine and of `other` return, with the cascade passes run once for both: `other`
    /// must differ from this engine in `verify` only (the same passes, cascade files and `minFace`), as
    /// `FaceRecall`'s "cascade" and "cascade+verify" do. The passes are the costly part; the verifier only judges
    /// their hits.
    func detect(in image: RGBImage, alsoAs other: FaceEngine) -> (mine: [Detection], other: [Detection]) {
        precondition(other.minFace == minFace && other.rotations == rotations && other.profiles == profiles)
        let gray = image.gray
        let searched = search(gray)
        let colourful = (verify || other.verify) && FaceVerifier.isColourful(image)
        return (
            judge(searched, width: gray.width, height: gray.height, color: verify && colourful ? image : nil),
            other.judge(searched, width: gray.width, height: gray.height, color: other.verify && colourful ? image : nil)
        )
    }

    /// The box cut to the image, nil when nothing is left.
    static func clamp(_ b: Box, width: Int, height: Int) -> Box? {
        let x0 = max(0, b.x), y0 = max(0, b.y)
        let x1 = min(Double(width), b.x + b.width), y1 = min(Double(height), b.y + b.height)
        guard x1 - x0 >= 1, y1 - y0 >= 1 else { return nil }
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Greedy suppression, profile faces after every other kind, then most confident first (ties:
    /// top-left first): drop a detection whose IoU with a kept one exceeds 0.3 or whose intersection
    /// with it covers more than 60 % of the smaller of the two. Returns the kept ones, most confident first.
    static func merge(_ detections: [Detection]) -> [Detection] {
        func rank(_ k: Detection.Kind) -> Int { k == .profileFace ? 1 : 0 }
        let sorted = detections.sorted {
            (-rank($0.kind), $0.confidence, -$0.box.y, -$0.box.x) > (-rank($1.kind), $1.confidence, -$1.box.y, -$1.box.x)
        }
        var kept: [Detection] = []
        for d in sorted {
            let clash = kept.contains { k in
                let ix = max(0, min(k.box.x + k.box.width, d.box.x + d.box.width) - max(k.box.x, d.box.x))
                let iy = max(0, min(k.box.y + k.box.height, d.box.y + d.box.height) - max(k.box.y, d.box.y))
                return k.box.iou(d.box) > 0.3 || ix * iy > 0.6 * min(k.box.area, d.box.area)
            }
            if !clash { kept.append(d) }
        }
        return kept.sorted { ($0.confidence, -$0.box.y, -$0.box.x) > ($1.confidence, -$1.box.y, -$1.box.x) }
    }
}

extension CascadeClassifier {
    /// Loads `file` from `directory/haarcascades`, `directory/lbpcascades` or `directory` itself.
    convenience init(named file: String, in directory: URL) throws {
        let candidates = ["haarcascades", "lbpcascades", ""].map {
            $0.isEmpty ? directory.appendingPathComponent(file) : directory.appendingPathComponent($0).appendingPathComponent(file)
        }
        guard let url = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw CascadeError(
                file: candidates[file.hasPrefix("lbp") ? 1 : 0].path,
                reason: "expected the trained cascade here (Debian package opencv-data), found no file")
        }
        try self.init(contentsOf: url)
    }
}

extension GrayImage {
    /// The image flipped left to right.
    fileprivate func flippedLeftRight() -> GrayImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            let row = y * width
            for x in 0..<width { out[row + x] = pixels[row + width - 1 - x] }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}
