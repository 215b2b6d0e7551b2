import GStreamerKit

/// A stage whose frames leave at another size than they come in (`reframe`): the only kind of stage whose
/// output caps differ from its input caps. Format, rate and colorimetry are kept; only the size changes.
///
/// In a chain (`StageChain`), the stages before it and the stage itself see the input frame (its `process`
/// analyses); the overlays queued so far are blended onto the input, then `render` makes the output frame,
/// which the stages after it see and which leaves the chain. The host's appsrc takes the output caps (a change
/// renegotiates downstream); the plugin's element answers `transform_caps` with `outputSize`.
public protocol ResizingStage: Stage {
    /// The size of the frames passed on for input frames of `input`'s layout.
    func outputSize(for input: VideoInfo) -> (width: Int, height: Int)
    /// The output frame (of `output`'s layout) made from `input`, called after `process(input)`; its buffer is new
    /// (timestamps and flags of the input). The stage copies or rewrites the metas it means to pass on.
    func render(_ input: VideoFrame, output: VideoInfo, context: StageContext) throws(StageError) -> VideoFrame
}
