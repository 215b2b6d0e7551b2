import Host

/// Where the control API listens (`--http HOST:PORT`) and what it demands (`--token`).
///
/// IPv4 literals are accepted, and `localhost` (or a bare `PORT`) for 127.0.0.1; IPv6 is not (the server
/// binds one IPv4 socket). 127.0.0.1 needs no token; any other address does, since it can be reached from
/// other machines.
public struct ControlAddress: Sendable, Equatable {
    /// The IPv4 address to bind (`127.0.0.1`).
    public var host: String
    /// The TCP port (0: any free port).
    public var port: UInt16
    /// The bearer token every request must carry, nil for none.
    public var token: String?

    /// Parses `HOST:PORT` (and checks the token rule); errors are usage errors naming the bad text.
    public init(parsing text: String, token: String?) throws(HostError) {
        if text.hasPrefix("[") || text.filter({ $0 == ":" }).count > 1 {
            throw HostError(.usage, "bad value '\(text)' for --http: IPv6 is not supported: expected an IPv4 HOST:PORT, e.g. 127.0.0.1:8080")
        }
        let colon = text.lastIndex(of: ":")
        guard colon != nil || (!text.isEmpty && text.allSatisfy(\.isNumber)) else {
            throw HostError(.usage, "bad value '\(text)' for --http: expected HOST:PORT, e.g. 127.0.0.1:8080")
        }
        var host = colon.map { String(text[..<$0]) } ?? "127.0.0.1"
        let portText = colon.map { String(text[text.index(after: $0)...]) } ?? text
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = UInt16(portText) else {
            throw HostError(.usage, "bad port '\(portText)' in --http \(text): expected 0 - 65535")
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isNumber) && (Int(p) ?? 256) <= 255 })
        else {
            throw HostError(.usage, "bad host '\(host)' in --http \(text): expected an IPv4 address such as 127.0.0.1")
        }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw HostError(.usage, "bad value for --token: expected a non-empty token without spaces")
        }
        if host != "127.0.0.1" && token == nil {
            throw HostError(.usage, "--http \(text) listens beyond this machine: give --token TOKEN (or bind 127.0.0.1)")
        }
        self.host = host
        self.port = port
        self.token = token
    }
}
