import Foundation
import Host

/// The bodies of the pipelines API, checked before anything is built: `POST /api/pipelines`
/// (`{"name": "door", "description": "...", "settings": {...}, "start": true}`) and `PATCH .../source`
/// (`{"description": "..."}`). Errors name the field and what was expected; nothing traps on any input (the
/// size and nesting limits of `JSONScalar` hold before decoding).
enum PipelineRequest {
    /// Longest description taken (characters).
    static let descriptionLimit = 16 * 1024

    /// The object of a body: empty, too large, too deep or not an object is refused.
    static func fields(_ data: Data, expected: String) throws(PipelineRequestError) -> [String: JSONValue] {
        guard !data.isEmpty else { throw PipelineRequestError(.invalid, "empty body: expected \(expected)") }
        guard data.count <= JSONScalar.byteLimit else {
            throw PipelineRequestError(.invalid, "body of \(data.count) bytes refused: at most \(JSONScalar.byteLimit), expected \(expected)")
        }
        let depth = JSONScalar.nesting(data)
        guard depth <= JSONScalar.depthLimit else {
            throw PipelineRequestError(.invalid, "JSON nested \(depth) levels deep refused: at most \(JSONScalar.depthLimit), expected \(expected)")
        }
        let value: JSONValue
        do { value = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw PipelineRequestError(.invalid, "bad JSON '\(JSONScalar.head(data))': expected \(expected)")
        }
        guard case .object(let o) = value else { throw PipelineRequestError(.invalid, "got \(value.kind): expected \(expected)") }
        return o
    }

    /// A description field: a string of at most `descriptionLimit` characters, not blank.
    static func description(_ o: [String: JSONValue]) throws(PipelineRequestError) -> String {
        guard case .string(let d)? = o["description"] else {
            throw PipelineRequestError(
                .invalid, "'description' must be a string (a gst-launch description), got \(o["description"]?.kind ?? "nothing")",
                field: "description")
        }
        guard d.count <= descriptionLimit else {
            throw PipelineRequestError(.invalid, "'description' of \(d.count) characters refused: at most \(descriptionLimit)", field: "description")
        }
        guard !d.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw PipelineRequestError(.invalid, "'description' is empty: expected e.g. 'videotestsrc ! compose ! fakesink'", field: "description")
        }
        return d
    }

    /// `POST /api/pipelines`: the spec (settings parsed as a settings file kept at `store`'s `NAME.json`) and whether
    /// to start it (default true).
    static func decode(_ data: Data, store: CameraStore) throws(PipelineRequestError) -> (CameraSpec, Bool) {
        let expected = "a JSON object {\"name\": \"door\", \"description\": \"...\", \"settings\": {...}, \"start\": true}"
        let o = try fields(data, expected: expected)
        for key in o.keys.sorted() where !["name", "description", "settings", "start"].contains(key) {
            throw PipelineRequestError(
                .invalid, "unknown field '\(JSONScalar.echo(key))': expected name, description, settings, start", field: key)
        }
        guard case .string(let name)? = o["name"] else {
            throw PipelineRequestError(.invalid, "'name' must be a string, got \(o["name"]?.kind ?? "nothing")", field: "name")
        }
        do { try CameraSpec.check(name: name) } catch { throw PipelineRequestError(.invalid, error.message, field: "name") }
        let description = try description(o)
        var start = true
        if let s = o["start"] {
            guard case .bool(let b) = s else { throw PipelineRequestError(.invalid, "'start' must be a boolean, got \(s.kind)", field: "start") }
            start = b
        }
        var settings: SettingsFile?
        if let s = o["settings"] {
            do { settings = try SettingsFile.parse(json: s, path: store.settingsFile(name)) } catch {
                throw PipelineRequestError(.invalid, error.message, field: "settings")
            }
        }
        return (CameraSpec(name: name, description: description, settings: settings), start)
    }

    /// `PATCH /api/pipelines/NAME/source`: the new source's description.
    static func source(_ data: Data) throws(PipelineRequestError) -> String {
        let o = try fields(data, expected: "a JSON object {\"description\": \"v4l2src ! videoconvert\"}")
        for key in o.keys.sorted() where key != "description" {
            throw PipelineRequestError(.invalid, "unknown field '\(JSONScalar.echo(key))': expected description", field: key)
        }
        return try description(o)
    }
}
