import Foundation

/// What curl saw of one HTTP answer: status, headers (lower-case names), the body's bytes and how many it received.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// Bytes curl received (for HEAD: 0, whatever Content-Length says).
    public var received: Int
    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension Tools {
    /// One request with curl, the URL sent exactly as written (`--path-as-is`: `..` and `%2f` reach the server); HEAD
    /// with `-I`; each of `headers` as `-H`.
    public static func curl(_ url: String, method: String = "GET", headers: [String] = []) throws -> HTTPAnswer {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bodyFile = dir.appendingPathComponent("body"), headerFile = dir.appendingPathComponent("headers")
        var args = ["-s", "--path-as-is", "--max-time", "20", "-o", bodyFile.path, "-D", headerFile.path, "-w", "%{http_code} %{size_download}"]
        args += method == "HEAD" ? ["-I"] : ["-X", method]
        for h in headers { args += ["-H", h] }
        let r = try run("/usr/bin/curl", args + [url])
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOf: headerFile, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let written = r.out.split(separator: " ")
        return HTTPAnswer(
            status: written.first.flatMap { Int($0) } ?? -1, headers: fields, body: (try? Data(contentsOf: bodyFile)) ?? Data(),
            received: written.count > 1 ? Int(written[1]) ?? -1 : -1)
    }
}
