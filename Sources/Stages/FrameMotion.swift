import FrameAnalysis
import GStreamerKit

/// What consecutive frames say about the camera, for stages that carry what an analysis saw until the next one
/// (`reframe`, `redact`): whether the picture cut to another shot (`SceneChange` on 16x9 plane samples) and the
/// camera's motion into the frame (`CameraMotionEstimator` on a `width`-wide luma thumbnail), in input pixels.
struct FrameMotion: Sendable {
    /// The thumbnail's width (its height keeps the frame's shape).
    static let width = 160

    /// One frame's cheap copies, taken outside any lock.
    struct Sample: Sendable {
        var signature: [UInt8], thumbnail: [UInt8], thumbnailHeight: Int, inputWidth: Int
    }

    private var signature: [UInt8] = []
    private var estimator = CameraMotionEstimator()

    /// The copies of `frame` the measure needs (~0.2 ms at 1080p).
    static func sample(_ frame: VideoFrame) -> Sample {
        let info = frame.info
        let height = max(2, (info.height * width + info.width / 2) / info.width)
        return Sample(
            signature: frame.planeSamples(columns: 16, rows: 9), thumbnail: frame.planeThumbnail(width: width, height: height),
            thumbnailHeight: height, inputWidth: info.width)
    }

    /// Takes the next frame's sample: whether it is the first, whether the scene changed into it, and the camera's motion
    /// into it (nil on the first frame, on a change and on a flat picture).
    mutating func take(_ s: Sample) -> (first: Bool, changed: Bool, motion: CameraMotion?) {
        let first = signature.isEmpty, changed = SceneChange.between(signature, s.signature)
        signature = s.signature
        if changed { estimator.reset() }
        guard s.thumbnail.count == Self.width * s.thumbnailHeight,
            let m = estimator.update(GrayImage(width: Self.width, height: s.thumbnailHeight, pixels: s.thumbnail))
        else { return (first, changed, nil) }
        return (first, changed, m.scaled(by: Double(s.inputWidth) / Double(Self.width)))
    }

    /// Forgets the previous frame (a new layout).
    mutating func reset() { signature = []; estimator.reset() }
}
