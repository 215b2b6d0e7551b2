import Foundation
import Stages

/// When `viewfinder serve` starts a named pipeline again after it ended (the settings file's `restart`).
public enum RestartPolicy: String, Sendable, CaseIterable {
    /// After an error, with the back-off (1 s doubling to 30 s); end-of-stream ends it. The default.
    case onError = "on-error"
    /// After an error and after end-of-stream (a file that loops, a camera that hangs up).
    case always
    /// Never: an error or end-of-stream ends it until a user starts it.
    case never
}

/// One named pipeline of `viewfinder serve`: its name, description and settings (`NAME.pipeline`, `NAME.json`).
public struct CameraSpec: Sendable, Equatable {
    /// The name: the file's base name, the API's `/api/pipelines/NAME`, the MQTT topic level.
    public var name: String
    /// The gst-launch description.
    public var description: String
    /// The settings file beside it, if any.
    public var settings: SettingsFile?

    /// Creates one; `name` must pass `CameraSpec.check(name:)`.
    public init(name: String, description: String, settings: SettingsFile? = nil) {
        self.name = name; self.description = description; self.settings = settings
    }

    /// When it restarts (`settings.restart`, default on-error).
    public var restart: RestartPolicy { settings?.restart ?? .onError }

    /// Longest name.
    public static let nameLimit = 64
    /// Names that are API or MQTT words of the process itself (`TOPIC/pipelines`, `TOPIC/cmd/...`).
    public static let reservedNames: Set<String> = ["cmd", "reply", "pipelines", "state", "events", "metrics", "healthz"]

    /// A name is 1-64 of `a-z 0-9 _ -`, starting with a letter or digit, and not a reserved word: it is a file
    /// name, a URL path segment and an MQTT topic level as it is. A usage error naming it otherwise.
    public static func check(name: String) throws(HostError) {
        let allowed = name.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
        let first = name.utf8.first.map { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") } ?? false
        guard !name.isEmpty, name.utf8.count <= nameLimit, allowed, first else {
            throw HostError(
                .usage,
                "bad pipeline name '\(Echo.value(name))': expected 1-\(nameLimit) characters of a-z, 0-9, '_' and '-', starting with a letter or digit")
        }
        guard !reservedNames.contains(name) else {
            throw HostError(.usage, "bad pipeline name '\(name)': reserved (\(reservedNames.sorted().joined(separator: ", "))): expected another name")
        }
    }
}
