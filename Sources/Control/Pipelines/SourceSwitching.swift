import Host

/// The source switch of a running session as the pipelines API asks it (`PATCH .../source`, MQTT `cmd/switch`):
/// `Session.switchSource`'s refusals as the API's (400 with the parse error's position and token, 409).
enum SourceSwitching {
    static func switchSource(of session: Session, to description: String) throws(PipelineRequestError) -> SourceSwitched {
        do { return try session.switchSource(to: description) } catch {
            switch error.kind {
            case .invalid:
                throw PipelineRequestError(
                    .invalid, error.message, field: "description", position: error.offset >= 0 ? error.offset : nil, token: error.token)
            case .conflict: throw PipelineRequestError(.conflict, error.message)
            }
        }
    }
}
