import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Drives stages frame by frame without a pipeline, as gst_check's GstHarness drives an element.
///
/// The harness runs the host's per-frame loop (`StageChain`: configure on caps change, custom events,
/// process each stage, text rows, blend overlays after the last stage) and plays the host around it:
/// it records what the stages push on each output and post on the bus, hands bus messages back to the
/// stages, owns the `Triggers` they listen to, and reports outputs planned, failed or restarted.
/// GStreamer is initialised for buffers and caps; no pipeline is started.
///
/// ```swift
/// let h = try StageHarness("grid lines=thirds", info: VideoInfo(format: "I420", width: 320, height: 240))
/// let frame = try h.push()                      // a black frame, pts 0
/// let luma = try frame.planeBytes(plane: 0)     // pixels after blending
/// ```
///
/// Outputs are named `nil` (the main output, after the last stage), `snapshot` (an extra output, when
/// one stage has it) or `cap.snapshot` (stage and output). Not thread-safe: one test drives it.
public final class StageHarness {
    /// The per-frame loop the stages run in.
    public let chain: StageChain
    /// The manual shutter the stages made by the harness listen to (see `TriggeredStage`).
    public let triggers: Triggers
    /// The layout of the frames `push(_:pts:...)` makes; change it with `setCaps`.
    public private(set) var info: VideoInfo
    /// Caps made from `info`.
    public private(set) var caps: Caps
    /// The segment synthetic frames carry.
    public var segment = Segment()

    private let bus: HarnessBus
    private let tap = OverlayTap()
    private var opened = false
    private var downstreamEvents: [MessageStructure] = []
    private var upstreamEvents: [MessageStructure] = []

    /// The stages, in order, with their names.
    public var stages: [(name: String, stage: any Stage)] { Array(chain.stages.dropLast()) }

    /// The clock the stages' contexts give them (`StageContext.clock`: the wall time of photos); the system
    /// clock unless a test sets a `ManualClock`.
    public var clock: any HostClock {
        get { bus.clock.withLock { $0 } }
        set { bus.clock.withLock { $0 = newValue } }
    }

    /// Nanoseconds per frame at `info`'s rate, rounded down (33_333_333 at 30/1); 0 for a variable rate.
    public var frameDuration: UInt64 {
        info.fpsN > 0 ? 1_000_000_000 * UInt64(info.fpsD) / UInt64(info.fpsN) : 0
    }

    // MARK: - Making

    /// Drives `stages` (already made) on frames of `info`. Stages listen to `triggers` only if they were
    /// made with it: pass the same instance.
    public init(stages: [(name: String, stage: any Stage)], info: VideoInfo, triggers: Triggers = Triggers()) throws {
        precondition(!stages.isEmpty, "a harness needs at least one stage")
        self.triggers = triggers
        self.info = info
        self.caps = try Caps(info.capsString)
        let bus = HarnessBus(stages: stages)
        self.bus = bus
        // The tap runs last, just before the chain blends: it sees the overlays the stages queued.
        chain = StageChain(
            stages: stages + [(OverlayTap.name, tap)],
            contexts: (stages.map(\.name) + [OverlayTap.name]).map { HarnessContext(stageName: $0, bus: bus) })
    }

    /// Drives one stage (already made).
    public convenience init(stage: any Stage, name: String, info: VideoInfo, triggers: Triggers = Triggers()) throws {
        try self.init(stages: [(name, stage)], info: info, triggers: triggers)
    }

    /// Drives one stage made through `StageRegistry` from property texts, validated as a description's.
    public convenience init(kind: String, name: String? = nil, properties: [(String, String)] = [], info: VideoInfo) throws {
        let triggers = Triggers()
        let name = name ?? "\(kind)0"
        let stage = try Self.make(kind: kind, name: name, properties: properties, triggers: triggers)
        try self.init(stages: [(name, stage)], info: info, triggers: triggers)
    }

    /// Drives the stages of a fused-group description: `compose engine=saliency ! capture name=cap auto=false`.
    /// Each stage is `kind key=value ...` (`name=` names it; default `kind` + its position); values may be
    /// "double quoted". Only stage kinds: GStreamer elements have no place here.
    public convenience init(_ description: String, info: VideoInfo) throws {
        let triggers = Triggers()
        var stages: [(String, any Stage)] = []
        let parts = FileBranch.tokens(description).split(separator: "!")
        for (i, words) in parts.enumerated() {
            guard let kind = words.first else { throw StageError(.usage, "empty stage in '\(description)'") }
            var name = "\(kind)\(i)"
            var properties: [(String, String)] = []
            for w in words.dropFirst() {
                guard let eq = w.firstIndex(of: "=") else { throw StageError(.usage, "'\(w)' is not key=value in '\(description)'") }
                let key = String(w[..<eq]), value = String(w[w.index(after: eq)...])
                if key == "name" { name = value } else { properties.append((key, value)) }
            }
            stages.append((name, try Self.make(kind: kind, name: name, properties: properties, triggers: triggers)))
        }
        try self.init(stages: stages, info: info, triggers: triggers)
    }

    /// Validated property values for `kind` (defaults filled in), as a description's are validated.
    public static func values(kind: String, name: String, properties: [(String, String)] = []) throws -> PropertyValues {
        try validated(kind: kind, name: name, properties: properties)
    }

    private static func validated(kind: String, name: String, properties: [(String, String)]) throws(StageError) -> PropertyValues {
        guard let type = StageRegistry.type(of: kind) else {
            throw StageError(
                .usage, "unknown stage '\(kind)'; stages are: \(StageRegistry.all.map { $0.descriptor.kind }.joined(separator: ", "))")
        }
        return try PropertyValues(specs: type.descriptor.properties, assignments: properties, stage: name)
    }

    /// Makes a stage of `kind` through `StageRegistry`; a `TriggeredStage` listens to `triggers`.
    public static func make(kind: String, name: String, properties: [(String, String)] = [], triggers: Triggers) throws(StageError)
        -> any Stage
    {
        let values = try validated(kind: kind, name: name, properties: properties)
        if let t = StageRegistry.type(of: kind) as? any TriggeredStage.Type {
            return try t.init(name: name, properties: values, triggers: triggers)
        }
        return try StageRegistry.make(kind: kind, name: name, assignments: properties)
    }

    /// The stage named `name` (or the first stage of type `S`), as its type.
    public func stage<S: Stage>(_ type: S.Type, named name: String? = nil) -> S? {
        stages.lazy.filter { name == nil || $0.name == name }.compactMap { $0.stage as? S }.first
    }

    // MARK: - The host's calls around the stream

    /// Tells a stage what became of its extra outputs, as the host does once before `open()`. Outputs
    /// planned `.unused` refuse pushes (as an unlinked appsrc does); outputs left out of `plans` accept them.
    public func planOutputs(_ plans: [String: OutputPlan], stage name: String? = nil) {
        let s = stageEntry(name)
        bus.log.withLock { l in
            for (output, plan) in plans where plan == .unused { l.refused.insert("\(s.name).\(output)") }
        }
        s.stage.outputsPlanned(plans)
    }

    /// `planOutputs` with `outputs` given their stage's default branch (`.unused` when it has none),
    /// and optionally `linked` ones; other outputs are left out of the plan.
    public func planOutputs(defaultBranches outputs: [String], linked: [String] = [], stage name: String? = nil) {
        let s = stageEntry(name)
        var plans: [String: OutputPlan] = [:]
        for o in outputs { plans[o] = s.stage.defaultBranch(for: o).map { .defaultBranch($0) } ?? .unused }
        for o in linked { plans[o] = .linked }
        planOutputs(plans, stage: s.name)
    }

    /// Simulates the default branch of `output` writing each frame pushed there into a file, reported
    /// to every stage as multifilesink reports it, before the push returns. The location and first
    /// number come from the stage's `defaultBranch(for:)`. Returns the branch, or nil when the stage
    /// has no file-writing default branch for `output`.
    @discardableResult
    public func writeFiles(on output: String, content: FileBranch.Content) -> FileBranch? {
        let k = key(output)
        guard let s = stages.first(where: { k.hasPrefix($0.name + ".") }),
            let fragment = s.stage.defaultBranch(for: String(k.dropFirst(s.name.count + 1))),
            let branch = FileBranch(fragment: fragment, content: content)
        else { return nil }
        bus.log.withLock { $0.branches[k] = branch }
        return branch
    }

    /// Simulates a branch of the test's making on `output`.
    public func writeFiles(on output: String, branch: FileBranch) {
        let k = key(output)
        bus.log.withLock { $0.branches[k] = branch }
    }

    /// Opens every stage (`Stage.open`), as the host does before the pipelines start. Called by the
    /// first push when the test did not.
    public func open() throws(StageError) {
        guard !opened else { return }
        opened = true
        for s in stages { try s.stage.open() }
    }

    /// Closes every stage (`Stage.close`), as the host does once the pipelines have stopped.
    public func close() {
        for s in stages { s.stage.close() }
    }

    /// Calls one stage's `finish` (as end-of-stream would) without ending the stream: a test waits so
    /// for a stage's background work (compose's analysis) before the next frame.
    public func finish(stage name: String) {
        let s = stageEntry(name)
        s.stage.finish(context: HarnessContext(stageName: s.name, bus: bus))
        bus.deliverPosted()
    }

    /// Fires the manual shutter the harness's stages listen to (SIGUSR1 or `s` in a real run).
    public func fireTrigger() { triggers.fire() }

    /// An element message from elsewhere on the bus (e.g. `facedetect`), handed to every stage.
    public func busMessage(_ message: BusMessage) {
        bus.log.withLock { $0.messages.append(message) }
        bus.deliver(message)
    }

    /// The branch fed by `output` failed: its stage is told, as the host tells it.
    public func outputFailed(_ output: String, reason: String) {
        let (s, o) = split(key(output))
        s.outputFailed(o, reason: reason)
    }

    /// The branch fed by `output` was restarted after an error: its stage is told.
    public func outputRestarted(_ output: String) {
        let (s, o) = split(key(output))
        s.outputRestarted(o)
    }

    /// Frames queued on `output` that its branch has not taken yet (what `StageContext.backlog` answers).
    public func setBacklog(_ frames: Int, on output: String) {
        let k = key(output)
        bus.log.withLock { $0.backlog[k] = frames }
    }

    /// Makes pushes on `output` fail (as on an unlinked or finished branch), or succeed again.
    public func refusePushes(on output: String, _ refuse: Bool = true) {
        let k = key(output)
        bus.log.withLock { if refuse { $0.refused.insert(k) } else { $0.refused.remove(k) } }
    }

    // MARK: - Input

    /// Changes the layout of the frames made from now on; the stages are reconfigured with the next frame.
    public func setCaps(_ info: VideoInfo) throws {
        caps = try Caps(info.capsString)
        self.info = info
    }

    /// Pushes one frame of the current layout through the stages and returns it as it leaves them
    /// (overlays blended). `bytes` default to black; `pts` to the frame's index times `frameDuration`,
    /// `duration` to `frameDuration`; each of `metas` is attached as a custom meta (`setCustomMeta`).
    @discardableResult
    public func push(_ bytes: [UInt8]? = nil, pts: UInt64? = nil, duration: UInt64? = nil, metas: [MessageStructure] = []) throws
        -> VideoFrame
    {
        let pixels = bytes ?? Self.blackBytes(info)
        guard pixels.count == info.size else {
            throw StageError(.usage, "a \(info.format) \(info.width)x\(info.height) frame has \(info.size) bytes, not \(pixels.count)")
        }
        let buffer = Buffer(bytes: pixels)
        buffer.pts = pts ?? UInt64(chain.frames) * frameDuration
        buffer.duration = duration ?? frameDuration
        for m in metas { buffer.setCustomMeta(m) }
        return try run(buffer, caps: caps, segment: segment)
    }

    /// Pushes `count` frames of the same bytes and metas (timestamps follow the index).
    @discardableResult
    public func push(count: Int, _ bytes: [UInt8]? = nil, metas: [MessageStructure] = []) throws -> [VideoFrame] {
        try (0..<count).map { _ in try push(bytes, metas: metas) }
    }

    /// Pushes a frame the test made (its buffer, caps and segment; its index is the harness's count).
    /// A frame of other caps than the last reconfigures the stages, as a caps event would.
    @discardableResult
    public func push(_ frame: VideoFrame) throws -> VideoFrame {
        try run(frame.buffer, caps: frame.caps, segment: frame.segment)
    }

    /// A custom downstream event reaching the stages; delivered before the next frame (as the host does).
    public func pushEvent(_ event: MessageStructure) { downstreamEvents.append(event) }

    /// A custom upstream event arriving on `output` (nil: the main output); delivered before the next frame.
    public func pushUpstreamEvent(_ event: MessageStructure, on output: String? = nil) {
        if let output { _ = key(output) }
        upstreamEvents.append(event)
    }

    /// End of stream: every stage finishes (`Stage.finish`), then every output gets end-of-stream.
    public func endOfStream() {
        chain.finish()
        bus.deliverPosted()
        for k in [""] + extraOutputKeys { bus.append(.endOfStream, on: k) }
    }

    private func run(_ buffer: Buffer, caps: Caps, segment: Segment) throws -> VideoFrame {
        try open()
        let events = downstreamEvents + upstreamEvents
        downstreamEvents.removeAll(); upstreamEvents.removeAll()
        try chain.configure(caps)
        chain.deliver(events)
        let (frame, _) = try chain.process(buffer, caps: caps, segment: segment)
        bus.append(.frame(frame), on: "")
        bus.deliverPosted()
        return frame
    }

    // MARK: - Output

    /// The next item of `output` (nil: the main output) not pulled yet, or nil when none is left.
    public func pull(_ output: String? = nil) -> HarnessItem? {
        let k = output.map(key) ?? ""
        return bus.log.withLock { l in
            let items = l.items[k] ?? [], at = l.cursors[k] ?? 0
            guard at < items.count else { return nil }
            l.cursors[k] = at + 1
            return items[at]
        }
    }

    /// Every item of `output` not pulled yet, in order (and marks them pulled).
    public func pullAll(_ output: String? = nil) -> [HarnessItem] {
        let k = output.map(key) ?? ""
        return bus.log.withLock { l in
            let items = l.items[k] ?? [], at = l.cursors[k] ?? 0
            l.cursors[k] = items.count
            return Array(items[at...])
        }
    }

    /// Every item sent on `output` so far, pulled or not, in order.
    public func items(on output: String? = nil) -> [HarnessItem] {
        let k = output.map(key) ?? ""
        return bus.log.withLock { $0.items[k] ?? [] }
    }

    /// The frames sent on `output` so far, in order.
    public func frames(on output: String? = nil) -> [VideoFrame] { items(on: output).compactMap(\.frame) }
    /// The tag lists sent on `output` so far, in order.
    public func tags(on output: String? = nil) -> [TagList] { items(on: output).compactMap(\.tags) }
    /// The custom events sent on `output` so far, in order.
    public func events(on output: String? = nil) -> [MessageStructure] { items(on: output).compactMap(\.event) }

    /// Keep each frame's pixels as the last stage left them, before blending (off by default: a copy
    /// per frame). Read them with `unblendedPixels(ofFrame:)`.
    public var keepsUnblendedPixels: Bool {
        get { tap.keepsPixels.withLock { $0 } }
        set { tap.keepsPixels.withLock { $0 = newValue } }
    }

    /// Frame `index`'s bytes before the overlays were blended, when `keepsUnblendedPixels` was on.
    public func unblendedPixels(ofFrame index: Int) -> [UInt8]? { tap.pixels(ofFrame: index) }

    /// The overlays the stages queued on frame `index` (blended and cleared on the frame itself before
    /// `push` returns), in order; empty when they drew nothing.
    public func overlays(ofFrame index: Int) -> [OverlayComposition] { tap.overlays(ofFrame: index) }

    /// Every element message on the simulated bus so far: the stages' posts (source: the stage's name,
    /// a leading `stage` field added as the host adds it), simulated branches' reports, `busMessage`s.
    public var messages: [BusMessage] { bus.log.withLock { $0.messages } }

    /// The messages of kind `M` that decode, in order.
    public func messages<M: ViewfinderMessage>(_ kind: M.Type) -> [M] { messages.compactMap { $0.decode(kind) } }

    /// The structures of the messages named `name` (`viewfinder/capture`), in order.
    public func messages(named name: String) -> [MessageStructure] {
        messages.map(\.structure).filter { $0.name == name }
    }

    // MARK: - Frames

    /// Black bytes for `info`: Y=16, U=V=128 for the YUV formats, 0,0,0,255 for 4-byte RGB.
    public static func blackBytes(_ info: VideoInfo) -> [UInt8] {
        if ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444"].contains(info.format) {
            var bytes = [UInt8](repeating: 128, count: info.size)
            for i in 0..<(info.planes > 1 ? info.offset(plane: 1) : info.size) { bytes[i] = 16 }
            return bytes
        }
        if info.format == "GRAY8" { return [UInt8](repeating: 0, count: info.size) }
        precondition(["RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR"].contains(info.format), "no black for \(info.format)")
        let alpha = ["ARGB", "ABGR", "xRGB", "xBGR"].contains(info.format) ? 0 : 3
        return (0..<info.size).map { $0 % 4 == alpha ? 255 : 0 }
    }

    // MARK: - Names

    private var extraOutputKeys: [String] {
        stages.flatMap { s in type(of: s.stage).descriptor.outputs.map { "\(s.name).\($0.name)" } }
    }

    /// `snapshot` or `cap.snapshot` to the `stage.output` key.
    private func key(_ output: String) -> String {
        let keys = extraOutputKeys
        if keys.contains(output) { return output }
        let matches = keys.filter { $0.hasSuffix("." + output) }
        precondition(
            matches.count == 1,
            matches.isEmpty
                ? "no stage has an output '\(output)'; outputs: \(keys.joined(separator: ", "))"
                : "several stages have an output '\(output)': name it as \(matches.joined(separator: " or "))")
        return matches[0]
    }

    private func split(_ key: String) -> (stage: any Stage, output: String) {
        let s = stages.first { key.hasPrefix($0.name + ".") } ?? stages[0]
        return (s.stage, String(key.dropFirst(s.name.count + 1)))
    }

    private func stageEntry(_ name: String?) -> (name: String, stage: any Stage) {
        guard let name else { return stages[0] }
        guard let s = stages.first(where: { $0.name == name }) else { preconditionFailure("no stage named '\(name)'") }
        return s
    }
}

/// The last stage of the harness's chain: notes each frame's queued overlays before they are blended.
final class OverlayTap: Stage, @unchecked Sendable {
    static let name = "stage-harness-tap"
    static let descriptor = StageDescriptor(kind: name, blurb: "notes queued overlays", properties: [], formats: ["ANY"])
    private let seen = Mutex<[Int: [OverlayComposition]]>([:])
    private let unblended = Mutex<[Int: [UInt8]]>([:])
    let keepsPixels = Mutex(false)
    init() {}
    init(name: String, properties: PropertyValues) throws(StageError) {}
    func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let overlays = frame.overlays
        if !overlays.isEmpty { seen.withLock { $0[frame.index] = overlays } }
        if keepsPixels.withLock({ $0 }) {
            let bytes = frame.buffer.bytes()
            unblended.withLock { $0[frame.index] = bytes }
        }
    }
    func overlays(ofFrame index: Int) -> [OverlayComposition] { seen.withLock { $0[index] ?? [] } }
    func pixels(ofFrame index: Int) -> [UInt8]? { unblended.withLock { $0[index] } }
}
