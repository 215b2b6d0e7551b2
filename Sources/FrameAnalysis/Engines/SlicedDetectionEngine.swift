/// An engine whose search can be cut into slices run on successive frames: `FallbackRotation` runs one slice per
/// turn and keeps the detections once every slice has run. Run on one image, the slices together give what
/// `detect(in:)` gives.
public protocol SlicedDetectionEngine: DetectionEngine {
    /// How many slices a whole search of a `width` x `height` image is cut into (1: not cut).
    func sliceCount(width: Int, height: Int) -> Int
    /// What slice `index` (of `sliceCount`) finds in `image`.
    func slice(_ index: Int, in image: RGBImage) -> SearchSlice
    /// The detections every slice's findings make together, for an image of that size.
    func detections(from slices: [SearchSlice], width: Int, height: Int) -> [Detection]
}

/// What one slice of a search found: raw detector windows still to be grouped (people: HOG pyramid levels), or
/// detections still to be merged with the other slices' (faces: one cascade pass each).
public struct SearchSlice: Sendable, Equatable {
    public var windows: [SearchWindow]
    public var detections: [Detection]

    public init(windows: [SearchWindow] = [], detections: [Detection] = []) {
        self.windows = windows; self.detections = detections
    }
}

/// A raw detector window before grouping, in the searched image's pixels, with its score.
public struct SearchWindow: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public var weight: Double
}
