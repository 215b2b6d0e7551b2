/// The built-in stages. A new stage is one file plus one line here.
public enum StageRegistry {
    /// Every stage kind, in the order `viewfinder stages` lists them.
    public static let all: [any Stage.Type] = [
        GridStage.self,
        ComposeStage.self,
        CaptureStage.self,
        SnapshotStage.self,
        RinglightStage.self,
        ChromaKeyStage.self,
        ReframeStage.self,
        RedactStage.self,
        PassthroughStage.self,
    ]

    /// The stage type registered under `kind`.
    public static func type(of kind: String) -> (any Stage.Type)? {
        all.first { $0.descriptor.kind == kind }
    }

    /// Creates a stage of `kind` from raw `key=value` texts, validating every property.
    public static func make(kind: String, name: String, assignments: [(String, String)]) throws(StageError) -> any Stage {
        guard let t = type(of: kind) else {
            throw StageError(.usage, "unknown stage '\(kind)'; stages are: \(all.map { $0.descriptor.kind }.joined(separator: ", "))")
        }
        let values = try PropertyValues(specs: t.descriptor.properties, assignments: assignments, stage: name)
        return try t.init(name: name, properties: values)
    }
}
