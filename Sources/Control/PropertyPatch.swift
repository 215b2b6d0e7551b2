import Foundation
import Host
import Stages

/// Changes properties of a running session's stage from JSON fields, for every way in (HTTP PATCH, MQTT
/// `cmd/set`): validates every field first (known property, the property's JSON type, parses against its spec,
/// changeable while playing) and applies only when all are good, so a refused request changes nothing.
enum PropertyPatch {
    /// Why a change was refused: how HTTP answers it, the text, and the field to blame (when one is).
    struct Refusal: Error, Equatable {
        enum Kind: Equatable {
            /// No such stage (HTTP 404).
            case unknownStage
            /// Unknown property, wrong type, out of range, empty (HTTP 400).
            case badValue
            /// A property that cannot change while playing, or the stage refused (HTTP 409).
            case conflict
        }
        var kind: Kind
        var message: String
        var field: String?
    }

    /// The property specs of stage `name`, or the unknown-stage refusal listing the stages.
    static func specs(of name: String, in session: Session) throws(Refusal) -> [PropertySpec] {
        guard let kind = session.stageInstances.first(where: { $0.name == name })?.kind,
            let specs = StageRegistry.type(of: kind)?.descriptor.properties
        else {
            let names = session.stageInstances.map(\.name).joined(separator: ", ")
            throw Refusal(
                kind: .unknownStage, message: "no stage '\(Echo.value(name))': stages are \(names.isEmpty ? "none" : names)", field: "stage")
        }
        return specs
    }

    /// Applies `fields` to stage `name`; the applied values (property -> value). Each field must have its
    /// property's JSON type (`PropertyJSON.value`).
    static func apply(_ fields: [(String, JSONScalar)], to name: String, in session: Session) throws(Refusal) -> [String: PropertyValue] {
        let specs = try specs(of: name, in: session)
        guard !fields.isEmpty else { throw Refusal(kind: .badValue, message: "empty object: expected {\"property\": value, ...}") }
        var changes: [(String, PropertyValue)] = []
        var refused: Refusal?
        for (key, raw) in fields {
            guard let spec = specs.first(where: { $0.name == key }) else {
                throw Refusal(
                    kind: .badValue,
                    message: "\(name): no property '\(Echo.value(key))'; properties are: \(specs.map(\.name).joined(separator: ", "))",
                    field: key)
            }
            do { changes.append((key, try PropertyJSON.value(raw, for: spec, stage: name))) } catch {
                throw Refusal(kind: .badValue, message: error.message, field: key)
            }
            if spec.mutability != .playing, refused == nil {
                refused = Refusal(
                    kind: .conflict, message: "\(name): property '\(key)' can only be set before start (in the description or with --set)",
                    field: key)
            }
        }
        if let refused { throw refused }
        do { try session.update(stage: name, changes) } catch { throw Refusal(kind: .conflict, message: error.message) }
        return Dictionary(changes, uniquingKeysWith: { _, last in last })
    }
}
