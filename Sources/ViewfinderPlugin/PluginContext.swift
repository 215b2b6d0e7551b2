import GStreamerKit
import Stages
import Synchronization

/// The `StageContext` of a stage running inside a plugin element: extra outputs go to the element's request
/// pad of that name (`c.snapshot ! jpegenc ! ...`), else to the stage's default branch, else nowhere;
/// messages are posted by the element itself (with `stage=` first, as the host posts them).
///
/// Threads: the streaming thread (frames, `current`), a stage's own threads (capture posts from its writer);
/// `current` is behind a mutex, the rest is immutable.
final class PluginContext: StageContext, @unchecked Sendable {
    let stageName: String
    let element: PluginElement
    let branches: [String: DefaultBranch]
    /// Caps and segment of the frame being processed: what tags and events on a pad must follow.
    let current = Mutex<(caps: Caps, segment: Segment)?>(nil)

    init(stageName: String, element: PluginElement, branches: [String: DefaultBranch]) {
        self.stageName = stageName; self.element = element; self.branches = branches
    }

    func push(_ frame: VideoFrame, on output: String) -> Bool {
        if let b = branches[output] { return b.push(frame) }
        switch element.push(frame.buffer.shared(), caps: frame.caps, segment: frame.segment, onPad: output) {
        case .ok: return true
        case .noPad: return false
        case .refused(let why):
            // A branch the application linked refused the frame (not-negotiated: it needs a videoconvert);
            // flushing and end-of-stream are the stream stopping, not a fault.
            guard why != "flushing" && why != "eos" else { return false }
            post(OutputErrorMessage(stage: stageName, output: output, element: stageName, text: "pad '\(output)' refused the frame: \(why)").structure)
            return false
        }
    }

    func push(_ tags: TagList, on output: String) -> Bool {
        if let b = branches[output] { return b.push(tags) }
        let now = current.withLock { $0 }
        return element.push(tags, caps: now?.caps, segment: now?.segment, onPad: output)
    }

    func push(event: MessageStructure, on output: String) -> Bool {
        if let b = branches[output] { return b.push(event: event) }
        let now = current.withLock { $0 }
        return element.push(event: event, caps: now?.caps, segment: now?.segment, onPad: output)
    }

    func post(_ message: MessageStructure) {
        var m = message
        if !m.fields.contains(where: { $0.0 == "stage" }) { m.fields.insert(("stage", .string(stageName)), at: 0) }
        element.postElementMessage(m)
    }

    func backlog(on output: String) -> Int { branches[output]?.backlog ?? 0 }
}
