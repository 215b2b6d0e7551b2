import FrameAnalysis
import GStreamerKit

/// What consecutive frames say about the camera, for stages that carry what an analysis saw until the next one
/// (`reframe`, `redact`): whether the picture cut to another shot (`SceneChange` on 16x9 plane samples) and the
/// camera's motion into the frame (`CameraMotionEstimator` on a `width`-wide luma thumbnail), in input pixels.
struct FrameMotion: Sendable {
    /// The thumbnail's width (its height keeps the frame's shape).
    static let width = 160
    /// The thumbnail's tallest: a frame taller than 4:1 (a 16x1080 column) gets a thumbnail this tall and narrower, not
    /// one 160 wide and 10800 tall (which took longer than a frame lasts, and stalled the stream).
    static let maxHeight = 4 * width

    /// One frame's cheap copies, taken outside any lock.
    struct Sample: Sendable {
        var signature: [UInt8], thumbnail: [UInt8], thumbnailWidth: Int, thumbnailHeight: Int, inputWidth: Int
    }

    /// The thumbnail's size for a `width` x `height` frame: `FrameMotion.width` wide and the frame's shape, at most
    /// `maxHeight` tall.
    static func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let w = max(1, width), h = max(1, height)
        let tall = (h * Self.width + w / 2) / w
        guard tall > maxHeight else { return (Self.width, max(2, tall)) }
        return (max(2, (w * maxHeight + h / 2) / h), maxHeight)
    }

    private var signature: [UInt8] = []
    private var estimator = CameraMotionEstimator()

    /// The copies of `frame` the measure needs (~0.2 ms at 1080p).
    static func sample(_ frame: VideoFrame) -> Sample {
        let info = frame.info
        let size = thumbnailSize(width: info.width, height: info.height)
        return Sample(
            signature: frame.planeSamples(columns: 16, rows: 9), thumbnail: frame.planeThumbnail(width: size.width, height: size.height),
            thumbnailWidth: size.width, thumbnailHeight: size.height, inputWidth: info.width)
    }

    /// Takes the next frame's sample: whether it is the first, whether the scene changed into it, and the camera's motion
    /// into it (nil on the first frame, on a change and on a flat picture).
    mutating func take(_ s: Sample) -> (first: Bool, changed: Bool, motion: CameraMotion?) {
        let first = signature.isEmpty, changed = SceneChange.between(signature, s.signature)
        signature = s.signature
        if changed { estimator.reset() }
        guard s.thumbnail.count == s.thumbnailWidth * s.thumbnailHeight,
            let m = estimator.update(GrayImage(width: s.thumbnailWidth, height: s.thumbnailHeight, pixels: s.thumbnail))
        else { return (first, changed, nil) }
        return (first, changed, m.scaled(by: Double(s.inputWidth) / Double(s.thumbnailWidth)))
    }

    /// Forgets the previous frame (a new layout).
    mutating func reset() { signature = []; estimator.reset() }
}
