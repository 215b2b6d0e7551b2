import GStreamerKit

/// A stage that hands every frame on untouched: the host's own cost, measured by `bench bridge`.
public final class PassthroughStage: Stage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "passthrough",
        blurb: "Passes frames on untouched (measures the host's bridge; like identity)",
        properties: [],
        formats: ["ANY"])

    /// Creates the stage.
    public init(name: String, properties: PropertyValues) throws(StageError) {}

    /// Does nothing.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {}
}
