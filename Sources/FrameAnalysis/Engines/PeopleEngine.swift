import Diagnostics
import Foundation
import Synchronization

/// The "people" engine: persons seen whole, from behind or far away, with no face needed. OpenCV's HOG
/// people detector (Dalal & Triggs' linear SVM on a 64x128 window, `cv::HOGDescriptor::getDefaultPeopleDetector`,
/// Debian libopencv-objdetect 4.6) run through the `CPeopleHOG` shim on the analysis image's RGB (HOG takes the
/// strongest gradient of the three channels per pixel).
///
/// - Upscale rule: the window holds a person about 96 px tall, so a search at height `H` finds people down to
///   about 96 / H of the frame's height (smaller ones need more pixels than the analysis image has). Frames
///   shorter than `searchHeight` (720) are upscaled (bilinear, in the shim) to that height, at most `maxUpscale`
///   (3) times: the default 320x240 analysis image is searched at 960x720, people from ~1/7.5 of the frame's
///   height up (vtest.avi's walkers are 1/9-1/5 of it). Measured on four vtest frames (PeopleEngineTests), at
///   320 px wide with the weight floor below: searching at 480 px high found 2 of 23 walkers, at 576 8, at 720
///   16 (0 false boxes), for about 130, 195 and 310 ms per analysis (loaded 2-core machine).
/// - Search: window step `winStride` 8 px, padding 16 px, pyramid step `scale` 1.05, `hitThreshold` 0 (OpenCV's
///   defaults), raw windows grouped by OpenCV (`groupThreshold` 2: a box needs 3 windows).
/// - Confidence: the group's SVM score `w` (distance from the hyperplane; clear walkers score 1-4, a pair of
///   people or a chessboard corner 0.4-1) mapped to `1 - exp(-w)` (0.5 -> 0.39, 1 -> 0.63, 2 -> 0.86, 4 -> 0.98):
///   monotone, 0...1, and ranks the same as the score. Boxes scoring below `minWeight` (1.0) are dropped: on
///   opencv-doc's 13 chessboard photos HOG scores office clutter 0.5-0.95 (5 false boxes without the floor, 0
///   with it); the floor costs 3 of 19 vtest walkers found (16 of 23 remain).
/// - Box: the window, cut to the image and shrunk to the person inside it (the window's margins: an eighth of
///   its width each side, a sixteenth of its height above and below).
/// - Merge: `FaceEngine.merge` (IoU > 0.3 or 60 % of the smaller box covered -> keep the more confident): OpenCV's
///   grouping leaves big boxes around two or three walkers (a weaker score than the walkers' own boxes), which
///   this drops.
/// - Kind: `.fullBody`, as the bodies engine's full-body cascade.
///
/// Thread-safe and stateless: the shim builds its detector once per process and only reads it afterwards;
/// every call allocates its own buffers and frees them before returning. A failure inside OpenCV (reported by
/// the shim as an error code, never an exception) yields no detection, reported once (`Log.analysis`).
public struct PeopleEngine: DetectionEngine {
    /// "people".
    public var name: String { "people" }
    /// Frames shorter than this are upscaled to it (see the upscale rule).
    public var searchHeight: Int
    /// The most a frame is upscaled.
    public var maxUpscale: Double
    /// Pyramid step (> 1).
    public var scale: Double
    /// Window step in pixels.
    public var winStride: Int
    /// SVM score a window needs.
    public var hitThreshold: Double
    /// Grouped boxes scoring below this are dropped.
    public var minWeight: Double
    /// Parts a search is cut into when `FallbackRotation` runs it one part per turn (`SlicedDetectionEngine`: the
    /// pyramid's levels in slices of about equal cost); `detect(in:)` always searches whole. 1: not cut.
    public var slices: Int

    /// Creates the engine (cheap: the OpenCV detector is built on first use).
    public init(
        searchHeight: Int = 720, maxUpscale: Double = 3, scale: Double = 1.05, winStride: Int = 8, hitThreshold: Double = 0,
        minWeight: Double = 1.0, slices: Int = 1
    ) {
        self.searchHeight = searchHeight; self.maxUpscale = max(1, maxUpscale); self.scale = max(1.01, scale)
        self.winStride = max(1, winStride); self.hitThreshold = hitThreshold; self.minWeight = minWeight
        self.slices = max(1, slices)
    }

    /// The factor an image `height` px tall is searched at: `searchHeight / height`, kept within 1...`maxUpscale`.
    public func upscale(forHeight height: Int) -> Double {
        min(maxUpscale, max(1, Double(searchHeight) / Double(max(1, height))))
    }

    /// `1 - exp(-w)` for an SVM score `w` (0 for `w <= 0`).
    public static func confidence(weight w: Double) -> Double { w > 0 ? 1 - exp(-w) : 0 }

    /// People in `image`, most confident first.
    public func detect(in image: RGBImage) -> [Detection] {
        let w = image.width, h = image.height
        guard w > 0, h > 0 else { return [] }
        let result = PeopleHOG.detect(
            pixels: image.pixels, width: w, height: h, channels: 3, hitThreshold: hitThreshold, winStride: winStride, padding: 16,
            scale: scale, groupThreshold: 2, upscale: upscale(forHeight: h))
        switch result {
        case .failure(let f):
            Self.reportOnce(f)
            return []
        case .success(let hits): return detections(from: hits, width: w, height: h)
        }
    }

    /// People from grouped hits in a `width` x `height` image: the weight floor, the person inside each window, the merge.
    func detections(from hits: [PeopleHOG.Hit], width w: Int, height h: Int) -> [Detection] {
        let found = hits.compactMap { hit -> Detection? in
            guard hit.weight >= minWeight else { return nil }
            let window = Box(x: Double(hit.x), y: Double(hit.y), width: Double(hit.width), height: Double(hit.height))
            guard let box = FaceEngine.clamp(Self.person(in: window), width: w, height: h) else { return nil }
            return Detection(box: box, confidence: Self.confidence(weight: hit.weight), kind: .fullBody)
        }
        return FaceEngine.merge(found)
    }

    /// The person inside a detection window: an eighth of the width off each side, a sixteenth of the height
    /// off the top and the bottom.
    static func person(in window: Box) -> Box {
        Box(x: window.x + window.width / 8, y: window.y + window.height / 16, width: window.width * 3 / 4, height: window.height * 7 / 8)
    }

    private static let reported = Mutex<Bool>(false)

    /// Reports the first OpenCV failure of the process (`Log.analysis`: the CLI's stderr; later ones are dropped: one
    /// per frame would flood).
    static func reportOnce(_ failure: PeopleHOG.Failure) {
        let first = reported.withLock { r in
            defer { r = true }
            return !r
        }
        if first { Log.analysis.say(.error, "people engine: \(failure)") }
    }
}
