import Foundation
import Host
import Mosquitto
import Timing

/// Where the MQTT bridge connects (`--mqtt HOST:PORT`) and the topic it publishes under (`--topic`).
///
/// HOST is an IPv4 address, a host name (letters, digits, `-`, `.`) or an IPv6 address in brackets
/// (`[::1]:1883`); PORT is 1 - 65535. The topic is a plain MQTT topic: no wildcards (`+`, `#`), not empty,
/// at most 200 characters, no NUL, not starting with `$` (reserved for the broker).
public struct MQTTAddress: Sendable, Equatable {
    /// The default `--topic`.
    public static let defaultTopic = "viewfinder"
    /// Longest topic accepted (characters).
    public static let topicLimit = 200

    /// The broker's host, without brackets.
    public var host: String
    /// The broker's TCP port.
    public var port: Int
    /// The prefix of every topic used (`TOPIC/events/...`, `TOPIC/state`, `TOPIC/cmd/...`, `TOPIC/reply`).
    public var topic: String

    /// `HOST:PORT` as given (brackets kept), for messages.
    public var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `--mqtt` and `--topic`; errors are usage errors naming the bad text and what was expected.
    public init(parsing address: String, topic: String) throws(HostError) {
        guard let colon = address.lastIndex(of: ":") else {
            throw HostError(.usage, "bad value '\(Self.echo(address))' for --mqtt: expected HOST:PORT, e.g. 127.0.0.1:1883")
        }
        var host = String(address[..<colon])
        let portText = String(address[address.index(after: colon)...])
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw HostError(.usage, "bad port '\(Self.echo(portText))' in --mqtt \(Self.echo(address)): expected 1 - 65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw HostError(
                    .usage, "bad host '[\(Self.echo(host))]' in --mqtt \(Self.echo(address)): expected an IPv6 address in brackets")
            }
        } else {
            let allowed = host.allSatisfy { c in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == ".") }
            guard !host.isEmpty, host.count <= 253, allowed, !host.hasPrefix("-"), !host.hasPrefix("."), !host.contains("..") else {
                throw HostError(
                    .usage,
                    "bad host '\(Self.echo(host))' in --mqtt \(Self.echo(address)): expected an IPv4 address, a host name or [IPv6], e.g. 127.0.0.1:1883"
                )
            }
        }
        try Self.check(topic: topic)
        self.host = host
        self.port = port
        self.topic = topic
    }

    /// The same broker with the topic `TOPIC/NAME` (a pipeline of `serve`); a usage error when too long.
    public func beneath(_ name: String) throws(HostError) -> MQTTAddress {
        let sub = "\(topic)/\(name)"
        try Self.check(topic: sub)
        var a = self
        a.topic = sub
        return a
    }

    /// Refuses a topic that cannot prefix published topics.
    static func check(topic: String) throws(HostError) {
        let why: String?
        if topic.isEmpty {
            why = "empty"
        } else if topic.count > topicLimit {
            why = "\(topic.count) characters, at most \(topicLimit)"
        } else if topic.contains("+") || topic.contains("#") {
            why = "MQTT wildcards '+' and '#' cannot be published to"
        } else if topic.hasPrefix("$") {
            why = "topics starting with '$' are the broker's"
        } else if topic.contains("\0") {
            why = "contains NUL"
        } else {
            why = nil
        }
        if let why {
            throw HostError(.usage, "bad value '\(echo(topic))' for --topic (\(why)): expected a plain MQTT topic such as cams/door")
        }
    }

    /// A bad value as quoted in a message (long ones cut).
    private static func echo(_ text: String) -> String { text.count > 60 ? String(text.prefix(60)) + "…" : text }
}

/// How the MQTT bridge logs in to its broker: a user name and the password read from a file (`--mqtt-username`,
/// `--mqtt-password-file`), and TLS (`--mqtt-cafile`, optionally `--mqtt-cert` and `--mqtt-key`). Everything is
/// checked when made, before anything runs: a bad value is a usage error naming its option and what was expected.
/// The password is never on the command line and never printed (`description` hides it).
public struct MQTTAccess: Sendable, Equatable, CustomStringConvertible {
    /// The user name, nil for none (anonymous).
    public var username: String?
    /// The password (the password file's first line, without its line end), nil for none.
    public var password: String?
    /// The CA certificate file (PEM) that signed the broker's certificate; nil: no TLS.
    public var caFile: String?
    /// The client certificate and its key (PEM), both or neither, only with `caFile`.
    public var certFile: String?
    public var keyFile: String?

    /// Largest password file read (bytes).
    public static let passwordFileLimit = 4096
    /// Largest TLS file read (bytes).
    public static let pemFileLimit = 1 << 20

    /// No login, no TLS.
    public init() {}

    /// Checks the options and reads the password file. `username`: 1 - 1024 bytes, no NUL, no line break. The
    /// password file needs a user name; its first line (the file at most 4096 bytes) must not be empty. The
    /// certificate and key need the CA file and each other; every file must be a readable regular file holding PEM text.
    public init(username: String?, passwordFile: String?, caFile: String?, certFile: String?, keyFile: String?) throws(HostError) {
        if let username {
            let bad = username.isEmpty || username.utf8.count > 1024 || username.contains { $0 == "\0" || $0.isNewline }
            if bad {
                throw HostError(
                    .usage,
                    "bad value '\(Self.echo(username))' for --mqtt-username: expected a user name of 1 - 1024 bytes, no NUL or line break")
            }
        }
        if let passwordFile {
            guard username != nil else {
                throw HostError(.usage, "--mqtt-password-file without --mqtt-username: expected --mqtt-username NAME too")
            }
            password = try Self.password(from: passwordFile)
        }
        if certFile != nil && keyFile == nil { throw HostError(.usage, "--mqtt-cert without --mqtt-key: expected both") }
        if keyFile != nil && certFile == nil { throw HostError(.usage, "--mqtt-key without --mqtt-cert: expected both") }
        if let certFile, caFile == nil {
            throw HostError(
                .usage,
                "--mqtt-cert \(certFile) without --mqtt-cafile: expected --mqtt-cafile FILE (the CA that signed the broker's certificate)")
        }
        if let caFile { try Self.checkPEM(caFile, option: "--mqtt-cafile") }
        if let certFile { try Self.checkPEM(certFile, option: "--mqtt-cert") }
        if let keyFile { try Self.checkPEM(keyFile, option: "--mqtt-key") }
        self.username = username
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
    }

    /// True when a user name or TLS is set.
    public var isSet: Bool { username != nil || caFile != nil }

    public var description: String {
        var parts: [String] = []
        if let username {
            var user = "user \(username)"
            if password != nil { user += " with a password" }
            parts.append(user)
        }
        if let caFile {
            var tls = "TLS (CA \(caFile)"
            if let certFile { tls += ", client certificate \(certFile)" }
            parts.append(tls + ")")
        }
        if parts.isEmpty { return "anonymous" }
        return parts.joined(separator: ", ")
    }

    /// The password file's first line (its line end dropped).
    static func password(from path: String) throws(HostError) -> String {
        let data: Data
        do { data = try Self.read(path, limit: passwordFileLimit) } catch {
            throw HostError(.usage, "cannot read --mqtt-password-file \(path) (\(error.why)): expected a file holding the password")
        }
        guard data.count <= passwordFileLimit else {
            throw HostError(
                .usage, "--mqtt-password-file \(path) is larger than \(passwordFileLimit) bytes: expected a file holding the password")
        }
        guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
            throw HostError(.usage, "--mqtt-password-file \(path) is not UTF-8 text: expected a file holding the password")
        }
        // Up to the first line end (LF, CRLF: one Character in Swift, so not split at "\n").
        let line = String(text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
        guard !line.isEmpty else {
            throw HostError(.usage, "--mqtt-password-file \(path) is empty: expected the password on its first line")
        }
        return line
    }

    /// Refuses a file that cannot be read or holds no PEM block.
    static func checkPEM(_ path: String, option: String) throws(HostError) {
        let data: Data
        do { data = try Self.read(path, limit: pemFileLimit) } catch {
            throw HostError(.usage, "cannot read \(option) \(path) (\(error.why)): expected a PEM file")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard data.count <= pemFileLimit, text.contains("-----BEGIN ") else {
            throw HostError(.usage, "\(option) \(path) holds no PEM block (-----BEGIN ...): expected a PEM file")
        }
    }

    /// Why a file could not be read ("no such file", "not a regular file", the system's text).
    struct ReadProblem: Error { var why: String }

    /// At most `limit` + 1 bytes of a regular file (a directory, a FIFO or a device is refused).
    static func read(_ path: String, limit: Int) throws(ReadProblem) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ReadProblem(why: "no such file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let type = attributes?[.type] as? FileAttributeType
        guard !isDirectory.boolValue, type == .typeRegular else { throw ReadProblem(why: "not a regular file") }
        guard let h = FileHandle(forReadingAtPath: path) else { throw ReadProblem(why: String(cString: strerror(errno))) }
        defer { try? h.close() }
        do { return try h.read(upToCount: limit + 1) ?? Data() } catch { throw ReadProblem(why: "\(error)") }
    }

    private static func echo(_ text: String) -> String { text.count > 60 ? String(text.prefix(60)) + "…" : text }
}

extension MQTTAccess {
    /// A client (id `PREFIX-PID-RANDOM`) with this login and TLS configured: what every MQTT client of the process
    /// starts with (the bridge, the pipelines' client).
    func client(idPrefix: String, handlers: MQTTClient.Handlers, clock: any HostClock) throws(MQTTError) -> MQTTClient {
        let c = try MQTTClient(clientID: "\(idPrefix)-\(getpid())-\(UInt16.random(in: 0...UInt16.max))", handlers: handlers, clock: clock)
        try c.configure(
            credentials: username.map { MQTTClient.Credentials(username: $0, password: password) },
            tls: caFile.map { MQTTClient.TLS(caFile: $0, certFile: certFile, keyFile: keyFile) })
        return c
    }
}
