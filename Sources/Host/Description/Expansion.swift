/// What the planner needs to know about a stage kind.
public struct StageSignature: Sendable {
    /// The stage kind as written in descriptions, e.g. `snapshot`.
    public var kind: String
    /// Extra outputs beside the main one, e.g. `["snapshot"]`, referenced as `name.snapshot`.
    public var outputs: [String]

    /// Creates a signature.
    public init(kind: String, outputs: [String] = []) {
        self.kind = kind
        self.outputs = outputs
    }
}

/// One stage instance to create.
public struct StagePlan: Equatable, Sendable {
    /// The stage kind, e.g. `grid`.
    public var kind: String
    /// Its name: `name=` as written, else kind + counter (`grid0`).
    public var name: String
    /// Its properties as written, without `name`.
    public var properties: [PropertyAssignment]

    /// Creates a stage plan.
    public init(kind: String, name: String, properties: [PropertyAssignment]) {
        self.kind = kind
        self.name = name
        self.properties = properties
    }
}

/// Where one extra output of a stage goes.
public struct ExtraOutputPlan: Equatable, Sendable {
    /// The stage's name.
    public var stage: String
    /// The output's name, e.g. `snapshot`.
    public var output: String
    /// The appsrc that carries it.
    public var appSource: String
    /// True when nothing referenced the output and the stage's default branch was added.
    public var isDefaultBranch: Bool

    /// Creates an extra output plan.
    public init(stage: String, output: String, appSource: String, isDefaultBranch: Bool) {
        self.stage = stage
        self.output = output
        self.appSource = appSource
        self.isDefaultBranch = isDefaultBranch
    }
}

/// Adjacent stages fused into one worker, fed by one appsink.
public struct StageGroupPlan: Equatable, Sendable {
    /// The stages in processing order.
    public var stages: [StagePlan]
    /// Name of the appsink feeding the group.
    public var appSink: String
    /// Name of the appsrc carrying the group's main output; nil if unlinked.
    public var mainOutput: String?
    /// Extra outputs that are linked or have a default branch.
    public var extraOutputs: [ExtraOutputPlan]

    /// Creates a group plan.
    public init(stages: [StagePlan], appSink: String, mainOutput: String?, extraOutputs: [ExtraOutputPlan]) {
        self.stages = stages
        self.appSink = appSink
        self.mainOutput = mainOutput
        self.extraOutputs = extraOutputs
    }
}

/// One independent gst-launch description, run in its own GstPipeline.
public struct SegmentPlan: Equatable, Sendable {
    /// Position in `ExpansionPlan.segments` (upstream segments first).
    public var index: Int
    /// The description for gst_parse_launch.
    public var description: String
    /// Generated appsinks in this segment, in order.
    public var appSinks: [String]
    /// Generated appsrcs in this segment, in order.
    public var appSources: [String]

    /// Creates a segment plan.
    public init(index: Int, description: String, appSinks: [String], appSources: [String]) {
        self.index = index
        self.description = description
        self.appSinks = appSinks
        self.appSources = appSources
    }
}

/// A description split at its stages: the segments to launch and the stage groups between them.
public struct ExpansionPlan: Equatable, Sendable {
    /// The segments, upstream first where the graph allows.
    public var segments: [SegmentPlan]
    /// The stage groups in document order.
    public var groups: [StageGroupPlan]

    /// Creates an expansion plan.
    public init(segments: [SegmentPlan], groups: [StageGroupPlan]) {
        self.segments = segments
        self.groups = groups
    }

    /// A human-readable listing for `--print-expanded`: each segment's description, then each group's
    /// stages and the appsink and appsrcs it connects.
    public func render() -> String {
        var lines: [String] = []
        lines.append("segments:")
        for segment in segments {
            lines.append("  [\(segment.index)] \(segment.description)")
        }
        if !groups.isEmpty {
            lines.append("stage groups:")
            for (index, group) in groups.enumerated() {
                let stages = group.stages.map { stage in
                    ([stage.name + " (" + stage.kind] + stage.properties.map(\.text)).joined(separator: " ") + ")"
                }
                lines.append("  [\(index)] " + stages.joined(separator: " -> "))
                lines.append("      input: \(group.appSink)")
                lines.append("      output: \(group.mainOutput ?? "(not linked)")")
                for extra in group.extraOutputs {
                    let note = extra.isDefaultBranch ? " (default branch)" : ""
                    lines.append("      \(extra.stage).\(extra.output): \(extra.appSource)\(note)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// Plans how a description with stages becomes segments and stage groups.
public enum Expansion {
    /// Splits `parsed` at its stages into segments and stage groups.
    ///
    /// - Parameters:
    ///   - stage: the signature for a factory name that is a stage kind, nil for GStreamer elements.
    ///   - defaultBranch: a gst-launch fragment for an extra output nothing links
    ///     (`queue ! jpegenc ! multifilesink location=x`), or nil to leave that output out.
    public static func plan(
        _ parsed: ParsedDescription,
        stage: (String) -> StageSignature?,
        defaultBranch: (StagePlan, String) -> String?
    ) throws(DescriptionError) -> ExpansionPlan {
        var signatures: [String: StageSignature] = [:]
        for factory in try ExpansionPlanner.factories(in: parsed.chains) {
            if let signature = stage(factory) { signatures[factory] = signature }
        }
        var planner = ExpansionPlanner(parsed: parsed, signatures: signatures)
        return try planner.plan(stage: stage, defaultBranch: defaultBranch)
    }
}
