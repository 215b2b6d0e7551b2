import Foundation
import Stages

/// Who may watch an `rtspserve`: users and passwords read from a file (`auth-file=FILE`), checked by
/// gst-rtsp-server's GstRTSPAuth with digest (default) or basic authentication (`auth=`). A client without them, or
/// with wrong ones, gets 401 Unauthorized. The file holds one `user:password` a line (the password may contain ':');
/// blank lines and lines starting with `#` are skipped. Passwords are never printed: errors name the file and line.
///
/// Threads and locks: none; read on the building thread.
public struct RTSPCredentials: Equatable, Sendable {
    /// How clients prove who they are.
    public enum Method: String, Sendable, CaseIterable {
        /// RFC 2617 digest: the password never crosses the network (ffmpeg, VLC, gst rtspsrc, NVRs speak it).
        case digest
        /// Basic: user and password base64-encoded in every request, readable by anyone on the path.
        case basic
    }

    /// The file they came from (for messages).
    public var file: String
    /// The users and their passwords, in file order.
    public var users: [(user: String, password: String)]
    /// The method the server asks for.
    public var method: Method

    public init(file: String, users: [(user: String, password: String)], method: Method) {
        self.file = file; self.users = users; self.method = method
    }

    public static func == (a: RTSPCredentials, b: RTSPCredentials) -> Bool {
        a.file == b.file && a.method == b.method && a.users.map(\.user) == b.users.map(\.user)
            && a.users.map(\.password) == b.users.map(\.password)
    }

    /// Reads `file`; a usage error names the file (and line) and what was expected.
    public static func load(file: String, method: Method) throws(HostError) -> RTSPCredentials {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw HostError(.usage, "rtspserve: cannot read auth-file '\(Echo.value(file))': expected a readable file of user:password lines")
        }
        return try parse(text, file: file, method: method)
    }

    /// Parses the text of a credentials file.
    static func parse(_ text: String, file: String, method: Method) throws(HostError) -> RTSPCredentials {
        var users: [(user: String, password: String)] = []
        // Split on any line end ("\r\n" is one Character in Swift, so splitting on "\n" alone keeps it).
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw HostError(.usage, "rtspserve: auth-file '\(Echo.value(file))' line \(n + 1) has no ':': expected user:password")
            }
            let user = String(line[..<colon]), password = String(line[line.index(after: colon)...])
            guard !user.isEmpty, !password.isEmpty else {
                throw HostError(.usage, "rtspserve: auth-file '\(Echo.value(file))' line \(n + 1) has an empty user or password: expected user:password")
            }
            guard !users.contains(where: { $0.user == user }) else {
                throw HostError(.usage, "rtspserve: auth-file '\(Echo.value(file))' line \(n + 1) names user '\(Echo.value(user))' again: expected each user once")
            }
            users.append((user, password))
        }
        guard !users.isEmpty else {
            throw HostError(.usage, "rtspserve: auth-file '\(Echo.value(file))' has no user: expected at least one user:password line")
        }
        return RTSPCredentials(file: file, users: users, method: method)
    }
}
