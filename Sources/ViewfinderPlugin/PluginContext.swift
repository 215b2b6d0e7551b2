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

    /// Extra outputs the application requested (pads, each with its own thread), fixed at start.
    let pads: [String: OutputPad]
    /// Requested outputs that carried something already (a frame, or the first GAP).
    private let begun = Mutex<Set<String>>([])

    init(stageName: String, element: PluginElement, branches: [String: DefaultBranch], linked: [String]) {
        self.stageName = stageName; self.element = element; self.branches = branches
        var pads: [String: OutputPad] = [:]
        for output in linked {
            // A frame the application's branch refused (not-negotiated...) is reported as the host reports a
            // failed branch; flushing and end-of-stream are the stream stopping, not a fault.
            pads[output] = OutputPad(output: output, element: element) { why in
                guard why != "flushing" && why != "eos" else { return }
                let text = "pad '\(output)' refused the frame: \(why)"
                element.postElementMessage(OutputErrorMessage(stage: stageName, output: output, element: stageName, text: text).structure)
            }
        }
        self.pads = pads
    }

    /// Starts the requested outputs' threads.
    func start() { for pad in pads.values { pad.start(stage: stageName) } }

    /// After a frame: a requested output that carried nothing yet gets one GAP event for the frame's time,
    /// so a sink right after it (appsink, fakesink) prerolls before the first photo. Once only: an encoder
    /// (jpegenc) holds GAP events until its first frame, so one per frame would pile up there. A sink after
    /// an encoder still waits for its first photo to preroll: give it `async=false` (see the README).
    func frameDone(_ frame: VideoFrame, caps: Caps) {
        guard !pads.isEmpty else { return }
        let fresh = begun.withLock { b -> [String] in
            let new = pads.keys.filter { !b.contains($0) }
            b.formUnion(new)
            return new
        }
        for output in fresh {
            pads[output]?.enqueue(.gap(pts: frame.pts, duration: frame.duration, caps, frame.segment))
        }
    }

    /// End of stream on every requested output (after what is queued).
    func endOutputs() { for pad in pads.values { pad.enqueue(.end) } }

    /// Stops the requested outputs' threads.
    func stopOutputs() { for pad in pads.values { pad.stop() } }

    func push(_ frame: VideoFrame, on output: String) -> Bool {
        if let b = branches[output] { return b.push(frame) }
        guard let pad = pads[output] else { return false }
        begun.withLock { _ = $0.insert(output) }
        return pad.enqueue(.frame(frame.buffer.shared(), frame.caps, frame.segment))
    }

    func push(_ tags: TagList, on output: String) -> Bool {
        if let b = branches[output] { return b.push(tags) }
        let now = current.withLock { $0 }
        return pads[output]?.enqueue(.tags(tags, now?.caps, now?.segment)) ?? false
    }

    func push(event: MessageStructure, on output: String) -> Bool {
        if let b = branches[output] { return b.push(event: event) }
        let now = current.withLock { $0 }
        return pads[output]?.enqueue(.event(event, now?.caps, now?.segment)) ?? false
    }

    func post(_ message: MessageStructure) {
        var m = message
        if !m.fields.contains(where: { $0.0 == "stage" }) { m.fields.insert(("stage", .string(stageName)), at: 0) }
        element.postElementMessage(m)
    }

    func backlog(on output: String) -> Int { branches[output]?.backlog ?? pads[output]?.backlog ?? 0 }
}
