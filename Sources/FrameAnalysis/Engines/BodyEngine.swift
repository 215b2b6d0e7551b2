import Foundation

/// The "bodies" engine (`engine=bodies`; `engine=auto` runs its upper-body cascade alone, behind the people
/// engine: see `ComposeEngines`): OpenCV's `haarcascade_upperbody` (22x18
/// window, tilted Haar features) and `haarcascade_fullbody` (14x28) run by `CascadeClassifier`.
///
/// Both cascades run on the luma at `scaleFactor` (default 1.1) with `minNeighbors` (default 3) and
/// `minSize`. Confidence is `min(1, n / 12)` for `n` neighbours (a clear pedestrian collects about 10
/// hits at step 1.1). Hits are merged as the faces engine does (IoU > 0.3 or 60 % of the smaller box
/// covered -> keep the more confident), so an upper body inside a full body of the same person counts
/// once. On opencv-doc's vtest.avi a step of 1.05 finds the same people but also a stone and a tripod
/// leg, at twice the cost.
public struct BodyEngine: DetectionEngine {
    /// "bodies".
    public var name: String { "bodies" }
    /// Pyramid step.
    public let scaleFactor: Double
    /// Neighbours a box needs (more than this many raw hits).
    public let minNeighbors: Int
    /// Smallest box side searched, in pixels.
    public let minSize: Int

    let upper: CascadeClassifier
    /// nil: upper bodies only (`engine=auto` behind the people engine, see `ComposeEngines`).
    let full: CascadeClassifier?
    /// Whether the full-body cascade runs (false: upper bodies only).
    public var fullBody: Bool { full != nil }

    /// Loads the cascades from `cascadeDirectory` (its `haarcascades/` or itself): the upper-body one, and the
    /// full-body one unless `fullBody` is false.
    /// - Throws: `CascadeError` naming the missing or malformed file.
    public init(
        cascadeDirectory: URL = FaceEngine.defaultCascadeDirectory, scaleFactor: Double = 1.1,
        minNeighbors: Int = 3, minSize: Int = 0, fullBody: Bool = true
    ) throws {
        self.scaleFactor = scaleFactor; self.minNeighbors = minNeighbors; self.minSize = minSize
        upper = try CascadeClassifier(named: "haarcascade_upperbody.xml", in: cascadeDirectory)
        full = fullBody ? try CascadeClassifier(named: "haarcascade_fullbody.xml", in: cascadeDirectory) : nil
    }

    /// People in `image`, most confident first.
    public func detect(in image: RGBImage) -> [Detection] { detect(luma: image.gray) }

    /// People in a luma image, most confident first.
    public func detect(luma: GrayImage) -> [Detection] {
        var found: [Detection] = []
        let cascades = [(upper, Detection.Kind.upperBody)] + (full.map { [($0, .fullBody)] } ?? [])
        for (cascade, kind) in cascades {
            for hit in cascade.detections(in: luma, scaleFactor: scaleFactor, minNeighbors: minNeighbors, minSize: minSize) {
                found.append(Detection(box: hit.box, confidence: min(1, Double(hit.neighbors) / 12), kind: kind))
            }
        }
        return FaceEngine.merge(found)
    }
}
