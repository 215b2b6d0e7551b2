import Foundation
import Stages

/// An `srtsink`/`srtsrc` uri as GStreamer 1.22 reads it (gst-plugins-bad ext/srt/gstsrtobject.c,
/// `gst_srt_object_set_uri`), parsed strictly so that what GStreamer would silently turn into something else is a
/// problem named here instead: `srt:/H:P` (no `//`: no host, no port, a listener on every interface, port 7001),
/// a port outside 1-65535 (a random or the default port), `mode=listner` (GStreamer matches the mode's nick exactly
/// and ignores anything else: a caller), a scheme other than `srt` (a bare GLib warning).
///
/// The mode: the uri's `mode=` (the last one), else a listener when the host is empty (`srt://:8890`: every
/// interface) and a caller when it is not. A listener or a rendezvous binds its host; whether that host is an
/// address of this machine is asked with `bindProblem(probe:)`, whose probe does the I/O (`IPAddress.unavailable`).
///
/// Threads and locks: none; a value, pure functions.
public struct SRTURI: Equatable, Sendable {
    /// SRT connection modes, spelled as GStreamer's enum nicks (matched case-sensitively, as GStreamer does).
    public enum Mode: String, CaseIterable, Sendable {
        case caller, listener, rendezvous
    }

    /// What is wrong with a uri and what was expected; the caller names the element and the uri before it.
    public struct Problem: Error, Equatable, Sendable {
        /// What is wrong, e.g. `has no port`.
        public var what: String
        /// What was expected, e.g. `a port 1-65535`.
        public var expected: String
        /// `has no port: expected a port 1-65535`.
        public var text: String { "\(what): expected \(expected)" }
    }

    /// The host without brackets (`::1` for `[::1]`); empty for every interface (`srt://:8890`).
    public var host: String
    /// 1-65535.
    public var port: Int
    /// As written, or the default for the host (see the type).
    public var mode: Mode
    /// The query's parameters, percent-decoded; the last value of each key.
    public var parameters: [String: String]

    /// The valid modes as a message lists them.
    static let modes = "mode=caller, mode=listener or mode=rendezvous (lower case)"
    /// What an SRT uri looks like.
    static let shape = "srt://HOST:PORT?mode=caller, listener or rendezvous"

    /// Parses `text`, or throws what GStreamer would get wrong with it.
    public init(_ text: String) throws(Problem) {
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            throw Problem(
                what:
                    "is in single quotes, which GStreamer keeps as part of the value (it refuses it and calls srt://127.0.0.1:7001 instead)",
                expected: "the uri bare or in double quotes: uri=\"\(Echo.value(String(text.dropFirst().dropLast())))\"")
        }
        guard let colon = text.firstIndex(of: ":"), Self.isScheme(text[..<colon]) else {
            throw Problem(what: "has no scheme", expected: Self.shape)
        }
        let scheme = String(text[..<colon])
        guard scheme == "srt" else { throw Problem(what: "has scheme '\(Echo.value(scheme))', not 'srt'", expected: Self.shape) }
        let afterScheme = text[text.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else {
            throw Problem(
                what: "has no '//' after 'srt:', so GStreamer finds no host or port in it",
                expected: Echo.value("srt://" + afterScheme.drop(while: { $0 == "/" })))
        }
        let rest = afterScheme.dropFirst(2).prefix { $0 != "#" }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let query = rest.firstIndex(of: "?").map { rest[rest.index(after: $0)...] } ?? ""
        let hostPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let (host, portText) = try Self.split(hostPort)
        guard let portText = portText.map(String.init), !portText.isEmpty else {
            let written = host.contains(":") ? "[\(host)]" : host
            throw Problem(what: "has no port", expected: "srt://\(Echo.value(written)):PORT with a port 1-65535")
        }
        guard portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw Problem(what: "has port '\(Echo.value(portText))', not a number", expected: "a port 1-65535")
        }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw Problem(what: "has port \(Echo.value(portText)), out of range", expected: "a port 1-65535")
        }
        let parameters = Self.parameters(query)
        let fallback: Mode = host.isEmpty ? .listener : .caller
        var mode = fallback
        if let written = parameters["mode"] {
            guard let m = Mode(rawValue: written) else {
                throw Problem(
                    what: "has mode '\(Echo.value(written))', which GStreamer ignores (it would make a \(fallback.rawValue))",
                    expected: Self.modes)
            }
            mode = m
        }
        if mode == .caller && host.isEmpty {
            throw Problem(
                what: "calls out (mode=caller) but names no host",
                expected: "srt://HOST:\(port)?mode=caller, or srt://:\(port)?mode=listener to listen")
        }
        self.init(host: host, port: port, mode: mode, parameters: parameters)
    }

    /// A uri from its parts (no checks).
    public init(host: String, port: Int, mode: Mode, parameters: [String: String] = [:]) {
        self.host = host
        self.port = port
        self.mode = mode
        self.parameters = parameters
    }

    /// True for a listener or a rendezvous: the element binds `host` (every interface when empty).
    public var binds: Bool { mode != .caller }

    /// True for a listener others can reach: every interface (empty host, 0.0.0.0, ::) or a non-loopback address.
    public var listensBeyondThisMachine: Bool { mode == .listener && !IPAddress.isLoopback(host) }

    /// Why a listener's or a rendezvous's host cannot be bound here: a host name (GStreamer binds the address
    /// written; names are refused as rtspserve's bind= refuses them), or a numeric address `probe` says is not
    /// this machine's (`probe` returns the system's reason, nil when it can be bound). Nil for callers and for
    /// an empty host (every interface).
    public func bindProblem(probe: (String) -> String?) -> Problem? {
        guard binds, !host.isEmpty else { return nil }
        let verb = mode == .listener ? "listens on" : "binds"
        let expected =
            "a numeric address of this machine, e.g. srt://127.0.0.1:\(port)?mode=\(mode.rawValue), "
            + "or none for every interface (srt://:\(port)?mode=\(mode.rawValue))"
        guard IPAddress.isNumeric(host) else {
            return Problem(what: "\(verb) '\(Echo.value(host))' (mode=\(mode.rawValue)), a host name", expected: expected)
        }
        guard let reason = probe(host) else { return nil }
        return Problem(
            what: "\(verb) \(host) (mode=\(mode.rawValue)), which is not an address of this machine (\(reason))", expected: expected)
    }

    /// An RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`.
    static func isScheme(_ s: Substring) -> Bool {
        guard let first = s.first, first.isASCII, first.isLetter else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// `host:port`, `[v6]:port`, `host` (no port: nil).
    static func split(_ hostPort: Substring) throws(Problem) -> (host: String, port: Substring?) {
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw Problem(what: "has '[' without ']'", expected: "srt://[IPv6 ADDRESS]:PORT, e.g. srt://[::1]:8890")
            }
            let host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw Problem(
                    what: "has '\(Echo.value(String(after)))' after ']'", expected: "srt://[IPv6 ADDRESS]:PORT, e.g. srt://[::1]:8890")
            }
            return (host, after.isEmpty ? nil : after.dropFirst())
        }
        let colons = hostPort.filter { $0 == ":" }.count
        if colons > 1 {
            throw Problem(what: "has an IPv6 address without brackets", expected: "srt://[IPv6 ADDRESS]:PORT, e.g. srt://[::1]:8890")
        }
        guard let colon = hostPort.firstIndex(of: ":") else { return (String(hostPort), nil) }
        return (String(hostPort[..<colon]), hostPort[hostPort.index(after: colon)...])
    }

    /// `a=1&b=2` as a dictionary, percent-decoded (as `gst_uri_get_query_table`); the last value of a key wins.
    static func parameters(_ query: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in s.removingPercentEncoding ?? String(s) }
            out[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return out
    }
}

/// An `srtsink` or `srtsrc` of a description whose `uri=` is written (elements in plain chains; bins are not
/// looked into), with its properties as written.
public struct SRTElement: Sendable {
    /// `srtsink` or `srtsrc`.
    public var factory: String
    /// Its properties, in order.
    public var properties: [PropertyAssignment]
    /// The last `uri=` as GStreamer reads it: unquoted, but single quotes kept (gst-launch keeps them).
    public var uri: String

    /// Every such element of `parsed`, in description order.
    public static func all(in parsed: ParsedDescription) -> [SRTElement] {
        parsed.chains.flatMap(\.nodes).compactMap { node in
            guard case .element(let factory, let properties, _) = node, factory == "srtsink" || factory == "srtsrc",
                let uri = properties.last(where: { $0.key == "uri" })
            else { return nil }
            let written = uri.text.drop { $0 != "=" }.dropFirst().drop { $0 == " " }
            let value = written.hasPrefix("'") && written.count >= 2 ? "'\(uri.value)'" : uri.value
            return SRTElement(factory: factory, properties: properties, uri: value)
        }
    }

    /// The last value of property `key`, as written.
    public func property(_ key: String) -> String? { properties.last { $0.key == key }?.value }
}
