/// The face engine's search cut into its cascade passes (frontal; profile and mirrored profile with `profiles`; the
/// two rotated frontal passes with `rotations`): one pass per slice, its hits judged by the verifier in the frame
/// it searched, the detections of all merged at the end as `detect(in:)` merges them. The passes differ in cost
/// (profile passes find more candidates), but each is a third to a fifth of the whole (bench analysis).
extension FaceEngine: SlicedDetectionEngine {
    public func sliceCount(width: Int, height: Int) -> Int { passCount }

    public func slice(_ index: Int, in image: RGBImage) -> SearchSlice {
        guard (0..<passCount).contains(index) else { return SearchSlice() }
        let gray = image.gray
        let pass = pass(index, of: gray)
        let hits = pass.cascade.detections(in: pass.frame, scaleFactor: 1.1, minNeighbors: 5, minSize: minFace)
        let colour = verify && FaceVerifier.isColourful(image) ? image : nil
        return SearchSlice(detections: judge([Searched(pass: pass, hits: hits)], width: gray.width, height: gray.height, color: colour))
    }

    public func detections(from slices: [SearchSlice], width: Int, height: Int) -> [Detection] {
        Self.merge(slices.flatMap(\.detections))
    }
}
