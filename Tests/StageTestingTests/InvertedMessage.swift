import GStreamerKit
import Stages

/// What `InvertStripStage` posts: `viewfinder/inverted, frames=(int)N`.
struct InvertedMessage: ViewfinderMessage {
    static let structureName = "viewfinder/inverted"
    /// Frames processed when it was posted.
    var frames: Int
    init(frames: Int) { self.frames = frames }
    init(structure: MessageStructure) throws(MessageDecodingError) {
        try structure.expect(Self.self)
        frames = Int(try structure.required(integer: "frames"))
    }
    var structure: MessageStructure { MessageStructure(Self.structureName, [("frames", .int(Int32(frames)))]) }
}
