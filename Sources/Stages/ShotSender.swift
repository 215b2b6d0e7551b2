import Foundation
import GStreamerKit

/// The one code path that sends a photo down a stage's extra output (`snapshot` and `capture` both
/// use it): a TAG event first — date-time as a GstDateTime, application name, description, orientation —
/// so `jifmux` writes this photo's EXIF, then the clean frame itself.
public enum ShotSender {
    /// EXIF-bearing tags for one photo taken at `date` (the context's `clock.wallNow`).
    public static func tags(description: String, orientation: String = "rotate-0", date: Date) -> TagList {
        TagList([
            (TagList.dateTime, .dateTime(date)),
            (TagList.applicationName, .string("Viewfinder")),
            (TagList.description, .string(description)),
            (TagList.imageOrientation, .string(orientation)),
        ])
    }

    /// Sends `tags` then `frame` on `output`; false when the output is not linked or has stopped.
    @discardableResult
    public static func send(_ frame: VideoFrame, tags: TagList, on output: some StageOutputName, context: StageContext) -> Bool {
        context.push(tags, on: output)
        return context.push(frame, on: output)
    }
}
