import GStreamerKit
import Timing

/// An extra output of a stage, such as `snapshot`, reached in descriptions as `NAME.OUTPUT`.
public struct OutputSpec: Sendable {
    /// Output name.
    public var name: String
    /// One line saying what flows out of it.
    public var blurb: String
    /// Creates an output spec.
    public init(_ name: String, _ blurb: String) { self.name = name; self.blurb = blurb }
    /// Creates the spec of one of a stage's named outputs.
    public init(_ output: some StageOutputName, _ blurb: String) { self.init(output.rawValue, blurb) }
}

/// A stage's extra outputs as an enum (`CaptureStage.Output`): the stage declares, pushes to and compares
/// its outputs by case, never by a string literal. The host and descriptions know them by `rawValue`
/// (`cap.snapshot`), which is what `Stage.defaultBranch(for:)`, `outputsPlanned` and `outputFailed` receive.
public protocol StageOutputName: RawRepresentable<String>, CaseIterable, Hashable, Sendable {}

/// What the host made of a stage's extra output.
public enum OutputPlan: Sendable, Equatable {
    /// The description links it (`cap.snapshot ! ...`).
    case linked
    /// Nothing linked it: it feeds the stage's default branch, this gst-launch fragment.
    case defaultBranch(String)
    /// Nothing linked it and the stage has no default branch for it: frames for it are dropped.
    case unused
}

/// Everything the host and `inspect` need to know about a stage kind.
public struct StageDescriptor: Sendable {
    /// The token used in descriptions (`grid`).
    public var kind: String
    /// One line saying what it does.
    public var blurb: String
    /// Declared properties.
    public var properties: [PropertySpec]
    /// Extra named outputs.
    public var outputs: [OutputSpec]
    /// Raw video formats `process` accepts.
    public var formats: [String]
    /// Creates a descriptor.
    public init(kind: String, blurb: String, properties: [PropertySpec], outputs: [OutputSpec] = [], formats: [String]) {
        self.kind = kind; self.blurb = blurb; self.properties = properties; self.outputs = outputs; self.formats = formats
    }
}

/// Raw formats GStreamer's overlay blender handles (gst_video_blend), offered by drawing stages.
public let overlayFormats = [
    "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "YUY2", "UYVY", "AYUV",
    "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGB", "BGR",
]

/// What a stage may do besides changing its frame: push on extra outputs, post bus messages.
public protocol StageContext: AnyObject, Sendable {
    /// The stage instance's name (`grid0`, or its `name=`).
    var stageName: String { get }
    /// Pushes a frame (sharing the buffer, no copy) on one of the stage's extra outputs.
    /// Returns false when the output is not linked or downstream has finished.
    @discardableResult func push(_ frame: VideoFrame, on output: String) -> Bool
    /// Sends tags (a TAG event) on an extra output; they travel before the next frame pushed there.
    @discardableResult func push(_ tags: TagList, on output: String) -> Bool
    /// Sends a custom downstream event (name + fields) on an extra output, before the next frame.
    @discardableResult func push(event: MessageStructure, on output: String) -> Bool
    /// Posts an element message on the bus of the segment feeding the stage.
    func post(_ message: MessageStructure)
    /// Frames pushed on an extra output that its branch has not taken yet (the appsrc's queue).
    func backlog(on output: String) -> Int
    /// The host's clock: `wallNow` dates what a stage writes (a photo's EXIF date, its record). Per-frame timing
    /// (timers, cooldowns, intervals, smoothing) uses stream time (the frame's pts/running time), never this.
    var clock: any HostClock { get }
}

extension StageContext {
    /// No backlog by default (contexts without queues).
    public func backlog(on output: String) -> Int { 0 }

    /// `push(_:on:)` on a named output.
    @discardableResult public func push(_ frame: VideoFrame, on output: some StageOutputName) -> Bool { push(frame, on: output.rawValue) }
    /// `push(_:on:)` (tags) on a named output.
    @discardableResult public func push(_ tags: TagList, on output: some StageOutputName) -> Bool { push(tags, on: output.rawValue) }
    /// `backlog(on:)` of a named output.
    public func backlog(on output: some StageOutputName) -> Int { backlog(on: output.rawValue) }
    /// The system clock by default (a host or test that injects one overrides it).
    public var clock: any HostClock { SystemClock.shared }
}

/// A Swift stage spliced into a pipeline: it sees every frame and may change it.
///
/// A stage keeps user-set `Settings` apart from runtime `State`; `process` runs on the stage
/// group's worker thread, `update` may run on any thread.
public protocol Stage: AnyObject, Sendable {
    /// Declared properties, outputs and formats.
    static var descriptor: StageDescriptor { get }
    /// Creates the stage from validated properties. Only validates: nothing is created or written here
    /// (a description refused later, or `--dry-run`, must leave no trace); files are opened in `open()`.
    init(name: String, properties: PropertyValues) throws(StageError)
    /// Called once, just before the pipelines start: create directories, open and reconcile indexes,
    /// open metadata files. A failure ends the run (exit 1) naming the stage.
    func open() throws(StageError)
    /// Directories `open()` creates (so the checks before start accept branches that write into them).
    var createsDirectories: [String] { get }
    /// Called when the frame layout is first known and whenever it changes mid-stream.
    func configure(_ info: VideoInfo) throws(StageError)
    /// Processes one writable frame; drawing goes through `frame.addOverlay`.
    func process(_ frame: VideoFrame, context: StageContext) throws(StageError)
    /// Changes a property marked `.playing` while running; effective on the next frame.
    func update(_ property: String, value: PropertyValue) throws(StageError)
    /// The gst-launch fragment fed by an extra output nobody linked, or nil to leave it out. Must not
    /// change the stage: what the host decided is told afterwards by `outputsPlanned`.
    func defaultBranch(for output: String) -> String?
    /// What the host made of each extra output (linked by the description, given the default branch,
    /// or left out), once, after planning and before `open()`.
    func outputsPlanned(_ plans: [String: OutputPlan])
    /// An element message seen on any segment's bus (e.g. `facedetect` results), on the host's thread.
    func busMessage(_ message: BusMessage)
    /// The branch fed by `output` stopped with an error (full disk): the stream goes on without it
    /// until `outputRestarted`. On the host's thread.
    func outputFailed(_ output: String, reason: String)
    /// The branch fed by `output` was started again after an error (`Backoff.outputRestart`). On the host's thread.
    func outputRestarted(_ output: String)
    /// End of stream: finish pending work (analysis, files) before end-of-stream goes downstream.
    func finish(context: StageContext)
    /// A custom event (GST_EVENT_CUSTOM_*) that reached the stage: downstream from before it or
    /// upstream from any of its outputs; delivered on the worker thread before the next frame.
    func customEvent(_ event: MessageStructure)
    /// The pipelines have stopped (after end-of-stream, an error or an abort): finish background work
    /// that follows the stream (files being indexed). Called on the host's thread.
    func close()

    /// One line for the end-of-run summary ("capture0: 3 photos saved in out/photos"), or nil.
    func summary() -> String?
}

extension Stage {
    /// Nothing to open by default.
    public func open() throws(StageError) {}
    /// No directories by default.
    public var createsDirectories: [String] { [] }
    /// No layout-dependent set-up by default.
    public func configure(_ info: VideoInfo) throws(StageError) {}
    /// Ignores bus messages by default.
    public func busMessage(_ message: BusMessage) {}
    /// Ignores output plans by default.
    public func outputsPlanned(_ plans: [String: OutputPlan]) {}
    /// Ignores output failures by default.
    public func outputFailed(_ output: String, reason: String) {}
    /// Ignores output restarts by default.
    public func outputRestarted(_ output: String) {}
    /// Nothing pending by default.
    public func finish(context: StageContext) {}
    /// Ignores custom events by default.
    public func customEvent(_ event: MessageStructure) {}
    /// Nothing to close by default.
    public func close() {}
    /// No summary by default.
    public func summary() -> String? { nil }
    /// No default branches by default.
    public func defaultBranch(for output: String) -> String? { nil }
    /// Rejects runtime changes by default.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        throw StageError(.usage, "\(Self.descriptor.kind): property '\(property)' cannot change while playing")
    }
}

extension Backoff {
    /// When a failed output branch is started again, in the host (`BranchSupervisor`) and in the plugin
    /// (`DefaultBranch`): 5 s after the failure, doubling up to a minute.
    public static let outputRestart = Backoff(first: 5, maximum: 60)
}
