import Host

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
