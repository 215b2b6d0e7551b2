import GStreamerKit
import Stages

/// The proof: a new stage written only against `Stages` (and tested only through `StageTesting`).
/// It inverts the luma of rows `top..<top+rows` and posts `viewfinder/inverted` every `every` frames.
final class InvertStripStage: Stage {
    static let descriptor = StageDescriptor(
        kind: "invertstrip", blurb: "Inverts a strip of rows",
        properties: [
            PropertySpec("top", "First row", .int(0...8192), default: "0"),
            PropertySpec("rows", "Rows inverted", .int(1...8192), default: "8"),
            PropertySpec("every", "Post a message every N frames", .int(1...1000), default: "10"),
        ], formats: ["I420", "GRAY8"])
    let top: Int, rows: Int, every: Int
    init(name: String, properties p: PropertyValues) throws(StageError) { top = p.int("top"); rows = p.int("rows"); every = p.int("every") }
    func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let last = min(top + rows, frame.info.height), width = frame.info.width
        _ = frame.withMutablePlane(0) { (span: inout MutableSpan<UInt8>, stride: Int) in
            for y in top..<max(top, last) { for x in 0..<width { span[y * stride + x] = 255 - span[y * stride + x] } }
        }
        if (frame.index + 1) % every == 0 { context.post(InvertedMessage(frames: frame.index + 1).structure) }
    }
}
