import Foundation
import GStreamerKit
import Stages

/// The settings a run keeps in a JSON file (`--config FILE`, or `x.json` beside `x.pipeline`): stage
/// property values and defaults for the server options. JSON only (no TOML: no dependency for it).
///
/// ```json
/// { "version": 1,
///   "server": { "http": "127.0.0.1:8080", "token": "...", "tokenFile": "...", "mqtt": "127.0.0.1:1883", "topic": "cams/door" },
///   "stages": { "compose0": { "rule": "golden" }, "ringlight0": { "opacity": 50 } },
///   "restart": "on-error" }
/// ```
///
/// `restart` is read by `viewfinder serve` only (a pipeline that ends: `on-error`, the default, restarts after an
/// error; `always` after end-of-stream too; `never` stays ended).
///
/// Stage settings become property overrides applied when the session is built, exactly like `--set
/// name.prop=value` (description < settings < `--set`); server options are defaults for the command
/// line's. `save()` writes the file back atomically. Loading errors are usage errors (exit 2) naming the
/// file, the key and what was expected. A value type: `SettingsWriter` keeps the live copy.
public struct SettingsFile: Sendable, Equatable {
    /// A property value as the file holds it: a JSON string, integer, number or boolean.
    public enum Value: Sendable, Equatable, Encodable {
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)

        /// The value as description text (what `--set` would carry).
        public var text: String {
            switch self {
            case .bool(let b): b ? "true" : "false"
            case .int(let i): String(i)
            case .double(let d): PropertyValue.double(d).description
            case .string(let s): s
            }
        }

        /// A live property value as the file stores it: booleans and numbers stay JSON scalars, the rest
        /// (choices, sets, colours, lists) their description text.
        public init(_ value: PropertyValue) {
            switch value {
            case .bool(let b): self = .bool(b)
            case .int(let i): self = .int(i)
            case .double(let d): self = .double(d)
            default: self = .string(value.description)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .bool(let b): try c.encode(b)
            case .int(let i): try c.encode(i)
            case .double(let d): try c.encode(d)
            case .string(let s): try c.encode(s)
            }
        }
    }

    /// Defaults for the server options (the command line wins over each).
    public struct Server: Sendable, Equatable {
        /// `--http HOST:PORT`.
        public var http: String?
        /// `--token TOKEN`.
        public var token: String?
        /// A file holding the token (its first line; a relative path is relative to the settings file).
        public var tokenFile: String?
        /// `--mqtt HOST:PORT` default.
        public var mqtt: String?
        /// Default of `--topic PREFIX`.
        public var topic: String?

        /// Creates empty server options.
        public init(http: String? = nil, token: String? = nil, tokenFile: String? = nil, mqtt: String? = nil, topic: String? = nil) {
            self.http = http; self.token = token; self.tokenFile = tokenFile; self.mqtt = mqtt; self.topic = topic
        }

        /// The keys, in the order errors list them.
        public static let keys = ["http", "token", "tokenFile", "mqtt", "topic"]
        /// What each key holds, for errors.
        static let expected = [
            "http": "HOST:PORT", "token": "a token", "tokenFile": "a file name", "mqtt": "HOST:PORT", "topic": "a topic prefix",
        ]
    }

    /// The format version this code reads and writes.
    public static let currentVersion = 1
    /// Largest settings file read (1 MiB: a few stages' properties take a few hundred bytes).
    public static let sizeLimit = 1 << 20
    /// The top-level keys.
    public static let keys = ["version", "server", "stages", "restart"]

    /// Where the file is (not part of its content).
    public var path: String
    /// The format version (1).
    public var version = SettingsFile.currentVersion
    /// Server option defaults.
    public var server = Server()
    /// Stage name -> property -> value.
    public var stages: [String: [String: Value]] = [:]
    /// When `viewfinder serve` starts the pipeline again (nil: not set, `on-error`).
    public var restart: RestartPolicy?

    /// Empty settings for `path` (a file that does not exist yet).
    public init(path: String, server: Server = Server(), stages: [String: [String: Value]] = [:]) {
        self.path = path
        self.server = server
        self.stages = stages
    }

    // MARK: loading

    /// Reads and parses `path`; a missing or unreadable file, bad JSON or an unexpected key is a usage error.
    public static func load(path: String) throws(HostError) -> SettingsFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw HostError(.usage, "settings \(path): cannot read: no such file")
        }
        guard !isDirectory.boolValue else { throw HostError(.usage, "settings \(path): cannot read: is a directory, expected a JSON file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.intValue > sizeLimit {
            throw HostError(.usage, "settings \(path): cannot read: \(size.intValue) bytes, expected a JSON file of at most \(sizeLimit)")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            let reason = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? error.localizedDescription
            throw HostError(.usage, "settings \(path): cannot read: \(reason)")
        }
        return try parse(data, path: path)
    }

    /// Parses the file's content (`path` is only named in errors and kept for `save()`).
    public static func parse(_ data: Data, path: String) throws(HostError) -> SettingsFile {
        func fail(_ text: String) -> HostError { HostError(.usage, "settings \(path): \(text)") }
        let json: JSON
        do { json = try JSONDecoder().decode(JSON.self, from: data) } catch {
            throw fail("bad JSON: \(syntaxProblem(data)): expected an object like {\"version\": 1, \"server\": {...}, \"stages\": {...}}")
        }
        return try parse(json: json, path: path)
    }

    /// Parses settings already decoded (the `settings` object of a `POST /api/pipelines` body); `path` is where
    /// they will be kept.
    public static func parse(json: JSONValue, path: String) throws(HostError) -> SettingsFile {
        func fail(_ text: String) -> HostError { HostError(.usage, "settings \(path): \(text)") }
        guard case .object(let top) = json else {
            throw fail("expected a JSON object at the top ({\"version\": 1, \"server\": {...}, \"stages\": {...}}), got \(json.kind)")
        }
        var settings = SettingsFile(path: path)
        for key in top.keys.sorted() where !keys.contains(key) {
            throw fail("unknown key '\(Echo.value(key))': expected \(keys.joined(separator: ", "))")
        }
        if let v = top["version"] {
            guard case .int(let n) = v, n == currentVersion else {
                throw fail("bad value \(v.echo) for 'version': expected \(currentVersion)")
            }
        }
        if let s = top["server"] {
            guard case .object(let fields) = s else {
                throw fail("'server' must be an object {\"http\": \"HOST:PORT\", ...}, got \(s.kind)")
            }
            for key in fields.keys.sorted() where !Server.keys.contains(key) {
                throw fail("unknown key 'server.\(Echo.value(key))': expected \(Server.keys.joined(separator: ", "))")
            }
            func text(_ key: String) throws(HostError) -> String? {
                guard let v = fields[key] else { return nil }
                guard case .string(let t) = v else {
                    throw fail("'server.\(key)' must be a string (\(Server.expected[key] ?? "text")), got \(v.kind)")
                }
                return t
            }
            settings.server = Server(
                http: try text("http"), token: try text("token"), tokenFile: try text("tokenFile"), mqtt: try text("mqtt"),
                topic: try text("topic"))
            if settings.server.token != nil && settings.server.tokenFile != nil {
                throw fail("'server' has both 'token' and 'tokenFile': expected one of them")
            }
        }
        if let r = top["restart"] {
            guard case .string(let text) = r, let policy = RestartPolicy(rawValue: text) else {
                throw fail("bad value \(r.echo) for 'restart': expected \(RestartPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            settings.restart = policy
        }
        if let s = top["stages"] {
            guard case .object(let list) = s else {
                throw fail("'stages' must be an object {\"stage\": {\"property\": value, ...}, ...}, got \(s.kind)")
            }
            for (name, entry) in list.sorted(by: { $0.key < $1.key }) {
                guard case .object(let properties) = entry else {
                    throw fail("'stages.\(Echo.value(name))' must be an object {\"property\": value, ...}, got \(entry.kind)")
                }
                var values: [String: Value] = [:]
                for (property, v) in properties {
                    guard let value = v.scalar else {
                        throw fail(
                            "'stages.\(Echo.value(name)).\(Echo.value(property))' must be a string, number or boolean, got \(v.kind)")
                    }
                    values[property] = value
                }
                settings.stages[name] = values
            }
        }
        return settings
    }

    /// What JSONSerialization says about a syntax error, with line and column when it gives a position.
    static func syntaxProblem(_ data: Data) -> String {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return "the file is empty" }
        do { _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "not valid JSON"
            guard let match = text.firstMatch(of: /around character (\d+)/), let offset = Int(match.output.1) else {
                return text.hasSuffix(".") ? String(text.dropLast()) : text
            }
            let before = data.prefix(offset)
            let line = before.filter { $0 == 0x0A }.count + 1
            let column = offset - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
            return "unexpected text at line \(line), column \(column)"
        }
        return "not valid JSON"
    }

    /// A parsed JSON value, any kind, so the checks above can name what was found.
    typealias JSON = JSONValue

    // MARK: using

    /// `parsed` with the stage settings applied as `--set`-style overrides. Every stage named must be a
    /// stage of the description, every property one of its stage's, every value valid for it.
    func applied(to parsed: ParsedDescription, elements: [ServiceElementSpec] = []) throws(HostError) -> ParsedDescription {
        guard !stages.isEmpty else { return parsed }
        // Stages, and the elements services provide (`rtspserve`'s `auth-file`: credentials kept out of the
        // description and the command line), by name.
        func specs(of factory: String) -> [PropertySpec]? {
            StageRegistry.type(of: factory)?.descriptor.properties ?? elements.first(where: { $0.factory == factory })?.properties
        }
        let present = parsed.namedElements().filter { specs(of: $0.factory) != nil }
        var overrides: [String] = []
        for (name, properties) in stages.sorted(by: { $0.key < $1.key }) {
            guard let element = present.first(where: { $0.name == name }), let specs = specs(of: element.factory) else {
                let names = present.map(\.name).joined(separator: ", ")
                throw HostError(
                    .usage,
                    "settings \(path): stage '\(Echo.value(name))' is not in the description: its stages are \(names.isEmpty ? "none" : names)"
                )
            }
            for (property, value) in properties.sorted(by: { $0.key < $1.key }) {
                guard let spec = specs.first(where: { $0.name == property }) else {
                    throw HostError(
                        .usage,
                        "settings \(path): \(name) has no property '\(Echo.value(property))'; properties are: "
                            + specs.map(\.name).joined(separator: ", "))
                }
                do { _ = try spec.parse(value.text, stage: name) } catch { throw HostError(.usage, "settings \(path): \(error.message)") }
                overrides.append("\(name).\(property)=\(value.text)")
            }
        }
        do { return try parsed.applying(overrides: overrides) } catch { throw HostError(.usage, "settings \(path): \(error.message)") }
    }

    /// Records live changes of stage `name`'s properties (the other keys stay as they were).
    public mutating func record(stage name: String, _ changes: [(String, PropertyValue)]) {
        for (property, value) in changes { stages[name, default: [:]][property] = Value(value) }
    }

    /// The token from `server.tokenFile` (its first line, trimmed), nil when none is set; a file that
    /// cannot be read or holds no token is a usage error.
    public func tokenFromFile() throws(HostError) -> String? {
        guard let file = server.tokenFile else { return nil }
        let full = file.hasPrefix("/") ? file : FilePaths.join(FilePaths.directory(of: path), file)
        guard let data = FileManager.default.contents(atPath: full) else {
            throw HostError(.usage, "settings \(path): cannot read 'server.tokenFile' \(full): expected a file holding the token")
        }
        let first = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let token = first.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw HostError(.usage, "settings \(path): 'server.tokenFile' \(full) is empty: expected a token") }
        return token
    }

    // MARK: saving

    /// The file's content: pretty, sorted JSON ending in a newline.
    public func encoded() -> Data {
        struct Document: Encodable {
            struct ServerPart: Encodable { var http, token, tokenFile, mqtt, topic: String? }
            var version: Int
            var server: ServerPart?
            var stages: [String: [String: Value]]
            var restart: String?
        }
        let s = server
        let doc = Document(
            version: version,
            server: s == Server() ? nil : .init(http: s.http, token: s.token, tokenFile: s.tokenFile, mqtt: s.mqtt, topic: s.topic),
            stages: stages, restart: restart?.rawValue)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, integers, finite numbers and booleans only: encoding cannot fail.
        return ((try? encoder.encode(doc)) ?? Data("{}".utf8)) + Data("\n".utf8)
    }

    /// Writes the file atomically (`AtomicFile`): the old file or the new, never half. On failure the old file is
    /// untouched and the error says "settings: cannot write FILE: reason".
    public func save() throws(HostError) {
        do { try AtomicFile.write(encoded(), to: path) } catch { throw HostError(.runtime, "settings: cannot write \(path): \(error.reason)") }
    }

    /// The file `save()` replaces: `path`, or for a symbolic link the file it points to (so the link stays one).
    static func writeTarget(_ path: String) -> String { AtomicFile.writeTarget(path) }

    /// For `--save-settings`: the file's directory must exist and be writable (the file is replaced by a
    /// rename there, or created on the first change). A usage error otherwise, before anything runs.
    public static func checkWritable(path: String) throws(HostError) {
        let directory = FilePaths.directory(of: writeTarget(path))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HostError(.usage, "settings \(path): cannot save there: directory '\(directory)' does not exist")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw HostError(.usage, "settings \(path): cannot save there: directory '\(directory)': \(String(cString: strerror(errno)))")
        }
    }

    /// The settings file beside a pipeline file: `pipelines/x.pipeline` -> `pipelines/x.json` (the last
    /// extension replaced; a name without one gets `.json` added).
    public static func beside(pipelineFile file: String) -> String {
        let slash = file.lastIndex(of: "/").map { file.index(after: $0) } ?? file.startIndex
        if let dot = file[slash...].lastIndex(of: "."), dot > slash { return String(file[..<dot]) + ".json" }
        return file + ".json"
    }
}

extension JSONValue {
    /// A property value, nil for null, arrays and objects.
    var scalar: SettingsFile.Value? {
        switch self {
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        default: nil
        }
    }

    /// The value quoted in an error.
    var echo: String { scalar.map { "'\(Echo.value($0.text))'" } ?? kind }
}
