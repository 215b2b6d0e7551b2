import Foundation
import GStreamerKit

/// The per-frame work of a run of fused stages, with no knowledge of where frames come from or go:
/// configure the stages when the caps change, hand them custom events, let each process the frame, and
/// blend the overlays they queued once the last one has seen the clean pixels.
///
/// The host's stage worker drives it between an appsink and its appsrcs; tests drive it directly.
/// Not thread-safe: one caller (the worker thread) at a time.
public final class StageChain {
    /// The stages, in order, each with the context it posts and pushes through.
    public let stages: [(name: String, stage: any Stage)]
    private let contexts: [any StageContext]
    /// Raw formats every stage accepts (nil: any raw video).
    public let accepted: Set<String>?
    /// The caps the stages are configured for (nil before the first frame).
    public private(set) var caps: Caps?
    /// The layout `caps` describe.
    private var info: VideoInfo?
    /// The layout each stage sees (the input's, until a `ResizingStage` changes the size for the stages after it).
    private var stageInfos: [VideoInfo] = []
    /// The caps of the frames leaving the chain: `caps`, or a resizing stage's output caps (nil before the first frame).
    public private(set) var outputCaps: Caps?
    /// Whether a stage of the chain changes the frame size.
    public var resizes: Bool { stages.contains { $0.stage is any ResizingStage } }
    /// Frames processed so far (the next frame's index).
    public private(set) var frames = 0

    /// The name the chain's errors use: its first stage.
    public var name: String { stages.first?.name ?? "" }

    /// A chain of `stages`; `contexts[i]` is what stage `i` sees.
    public init(stages: [(name: String, stage: any Stage)], contexts: [any StageContext]) {
        precondition(stages.count == contexts.count, "one context per stage")
        self.stages = stages
        self.contexts = contexts
        accepted = StageChain.acceptedFormats(stages.map { type(of: $0.stage).descriptor })
    }

    /// The raw formats every one of `descriptors` accepts (nil when all take anything).
    public static func acceptedFormats(_ descriptors: [StageDescriptor]) -> Set<String>? {
        let formats = descriptors.map(\.formats).filter { $0 != ["ANY"] }
        guard let first = formats.first else { return nil }
        return formats.dropFirst().reduce(Set(first)) { $0.intersection($1) }
    }

    /// Caps text for raw video in the `accepted` formats (any raw video when nil), overlay formats first: what
    /// the host's appsink asks for and the plugin's pad templates offer.
    public static func capsText(_ accepted: Set<String>?) -> String {
        guard let accepted else { return "video/x-raw" }
        let list = overlayFormats.filter { accepted.contains($0) } + accepted.subtracting(overlayFormats).sorted()
        return "video/x-raw,format=(string){\(list.joined(separator: ","))}"
    }

    /// Configures the stages for `caps` when they differ from the current ones.
    /// Returns true when they changed (the first frame included).
    @discardableResult
    public func configure(_ caps: Caps) throws(StageError) -> Bool {
        if let current = self.caps, current == caps { return false }
        guard let info = caps.videoInfo else {
            throw StageError(.stream, "stage '\(name)': cannot take '\(caps)': expected raw video")
        }
        if let accepted, !accepted.contains(info.format) {
            throw StageError(
                .stream,
                "stage '\(name)' cannot take format \(info.format); it accepts \(accepted.sorted().joined(separator: ", ")): put 'videoconvert' before it"
            )
        }
        var infos: [VideoInfo] = []
        var current = info
        var out = caps
        do throws(StageError) {
            for s in stages {
                infos.append(current)
                try s.stage.configure(current)
                if let r = s.stage as? any ResizingStage {
                    let size = r.outputSize(for: current)
                    guard size.width > 0, size.height > 0 else {
                        throw StageError(.usage, "\(s.name) gives frames of \(size.width)x\(size.height)")
                    }
                    current = current.resized(width: size.width, height: size.height)
                    guard let c = current.caps else { throw StageError(.library, "\(s.name): no caps for its output \(current.capsString)") }
                    out = c
                }
            }
        } catch {
            throw StageError(error.domain, "stage '\(name)': \(error)")
        }
        self.caps = caps
        self.info = info
        stageInfos = infos
        outputCaps = out
        return true
    }

    /// The caps of the frames stage `name` sees (its extra outputs carry these); nil before the first frame.
    public func caps(seenBy name: String) -> Caps? {
        guard let i = stages.firstIndex(where: { $0.name == name }), i < stageInfos.count else { return nil }
        return stages[..<i].contains { $0.stage is any ResizingStage } ? stageInfos[i].caps : caps
    }

    /// Hands custom events (downstream into the chain or upstream from its outputs) to every stage.
    public func deliver(_ events: [MessageStructure]) {
        for e in events { for s in stages { s.stage.customEvent(e) } }
    }

    /// Runs one frame through every stage (configuring them first if `caps` changed) and blends the
    /// queued overlays. Returns the frame to pass on and each stage's time in ms (blending is charged
    /// to the last stage).
    public func process(_ buffer: Buffer, caps: Caps, segment: Segment) throws(StageError) -> (frame: VideoFrame, ms: [Double]) {
        try configure(caps)
        guard let info else { throw StageError(.stream, "stage '\(name)': cannot take '\(caps)': expected raw video") }
        var frame = VideoFrame(buffer: buffer, info: info, caps: caps, segment: segment, index: frames)
        frames += 1
        var times: [Double] = []
        times.reserveCapacity(stages.count)
        // A placeholder (the host's slate while the source is away: GAP and `PlaceholderFrame.meta`) has nothing to
        // analyse, draw on or photograph: it passes the stages untouched, on time (only resized by a resizing stage,
        // so the caps after the chain hold). Other GAP frames (videorate's duplicates) are pictures and go through the
        // stages (when they were skipped too, a 10 fps camera raised to 30 fps had its overlay on one frame in three).
        let placeholder = buffer.isPlaceholder
        do throws(StageError) {
            for (i, s) in stages.enumerated() {
                let t0 = DispatchTime.now().uptimeNanoseconds
                if !placeholder { try s.stage.process(frame, context: contexts[i]) }
                if let r = s.stage as? any ResizingStage, i + 1 <= stageInfos.count {
                    // What the stages so far drew belongs to the input picture: blend it before the size changes.
                    if !frame.overlays.isEmpty {
                        do { try frame.blendOverlays() } catch { throw StageError(.library, error.description) }
                    }
                    let output = i + 1 < stageInfos.count ? stageInfos[i + 1] : resizedOutput(after: i)
                    frame = try r.render(frame, output: output, context: contexts[i])
                    if placeholder { frame.buffer.copyCustomMeta(PlaceholderFrame.meta, from: buffer) }
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            if placeholder { return (frame, [Double](repeating: 0, count: stages.count)) }
            // Text rows taken here travel on to stages of later groups, so their text stacks too.
            frame.publishTextRows()
            if !frame.overlays.isEmpty {
                let t0 = DispatchTime.now().uptimeNanoseconds
                do { try frame.blendOverlays() } catch { throw StageError(.library, error.description) }
                // Blending belongs to the drawing stages; charge it to the last one.
                if !times.isEmpty { times[times.count - 1] += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6 }
            }
        } catch {
            throw StageError(error.domain, "stage '\(name)': \(error)")
        }
        return (frame, times)
    }

    /// The layout after the last stage, a resizing one.
    private func resizedOutput(after i: Int) -> VideoInfo {
        guard let r = stages[i].stage as? any ResizingStage else { return stageInfos[i] }
        let size = r.outputSize(for: stageInfos[i])
        return stageInfos[i].resized(width: size.width, height: size.height)
    }

    /// End of stream: every stage finishes its pending work.
    public func finish() {
        for (i, s) in stages.enumerated() { s.stage.finish(context: contexts[i]) }
    }
}
