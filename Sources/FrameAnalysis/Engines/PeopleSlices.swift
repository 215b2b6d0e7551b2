import Foundation

/// The people engine's search cut into `slices` parts of about equal cost: the HOG pyramid's levels (each level
/// costs about its area, `1 / scale²` of the first), run part by part, the raw windows of all grouped at the end
/// as `detectMultiScale` groups them. On one image the parts together give what `detect(in:)` gives.
extension PeopleEngine: SlicedDetectionEngine {
    /// The pyramid levels searched for a `width` x `height` image.
    public func levels(width: Int, height: Int) -> Int {
        PeopleHOG.levels(width: width, height: height, scale: scale, upscale: upscale(forHeight: height))
    }

    /// The level ranges of the slices, each about the same share of the search's cost.
    public func sliceLevels(width: Int, height: Int) -> [Range<Int>] {
        let n = levels(width: width, height: height), parts = max(1, min(slices, n))
        let cost = (0..<n).map { pow(scale, -2 * Double($0)) }
        let total = cost.reduce(0, +)
        var bounds = [0], sum = 0.0
        for (i, c) in cost.enumerated() {
            sum += c
            if bounds.count < parts, sum >= total * Double(bounds.count) / Double(parts), i + 1 < n { bounds.append(i + 1) }
        }
        bounds.append(n)
        return zip(bounds, bounds.dropFirst()).map { $0..<$1 }
    }

    public func sliceCount(width: Int, height: Int) -> Int { sliceLevels(width: width, height: height).count }

    public func slice(_ index: Int, in image: RGBImage) -> SearchSlice { SearchSlice(windows: windows(slice: index, in: image)) }

    public func detections(from slices: [SearchSlice], width: Int, height: Int) -> [Detection] {
        detections(from: slices.flatMap(\.windows), width: width, height: height)
    }

    /// The raw windows slice `index` (of `sliceCount`) finds in `image`.
    public func windows(slice index: Int, in image: RGBImage) -> [SearchWindow] {
        let ranges = sliceLevels(width: image.width, height: image.height)
        guard ranges.indices.contains(index) else { return [] }
        switch PeopleHOG.windows(
            pixels: image.pixels, width: image.width, height: image.height, channels: 3, hitThreshold: hitThreshold,
            winStride: winStride, padding: 16, scale: scale, upscale: upscale(forHeight: image.height), levels: ranges[index])
        {
        case .failure(let f):
            Self.reportOnce(f)
            return []
        case .success(let w): return w
        }
    }

    /// The detections the raw windows of every slice make, for an image of that size.
    public func detections(from windows: [SearchWindow], width: Int, height: Int) -> [Detection] {
        let hits = PeopleHOG.group(windows, groupThreshold: 2, upscale: upscale(forHeight: height))
        return detections(from: hits, width: width, height: height)
    }
}
