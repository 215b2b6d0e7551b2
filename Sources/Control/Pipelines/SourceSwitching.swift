import Host

/// The source switch of a running session, as the pipelines API asks it (`PATCH .../source`, MQTT `cmd/switch`).
enum SourceSwitching {
    static func switchSource(of session: Session, to description: String) throws(PipelineRequestError) {
        throw PipelineRequestError(.conflict, "switching a source is not built yet")
    }
}
