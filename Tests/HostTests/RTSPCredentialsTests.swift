import Foundation
import Host
import TestSupport
import Testing

/// `rtspserve auth-file=`: the file's users, its errors (file and line named, never a password), and the rule that
/// a non-loopback bind needs credentials or `anonymous=true`.
@Suite struct RTSPCredentialsTests {
    static func file(_ text: String) throws -> String {
        let url = Tools.tempDir().appendingPathComponent("users")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func readsUsersSkippingCommentsAndBlankLines() throws {
        let path = try Self.file("# viewers\nalice:s3cret\n\n  bob:pa:ss:word \r\n")
        let c = try RTSPCredentials.load(file: path, method: .digest)
        #expect(c.users.map(\.user) == ["alice", "bob"])
        #expect(c.users.map(\.password) == ["s3cret", "pa:ss:word"])
        #expect(c.method == .digest && c.file == path)
    }

    @Test func refusesBadFilesNamingTheLineNotThePassword() throws {
        let cases: [(String, String)] = [
            ("alice\n", "line 1 has no ':': expected user:password"),
            ("# x\nalice:\n", "line 2 has an empty user or password"),
            (":pw\n", "line 1 has an empty user or password"),
            ("alice:pw-first\nalice:pw-second\n", "line 2 names user 'alice' again"),
            ("# nobody\n\n", "has no user: expected at least one user:password line"),
        ]
        for (text, expected) in cases {
            let path = try Self.file(text)
            let e = #expect(throws: HostError.self) { try RTSPCredentials.load(file: path, method: .basic) }
            #expect(e?.message.contains("rtspserve: auth-file '\(path)' \(expected)") == true, "\(e?.message ?? "")")
            #expect(e?.message.contains("pw-") == false)
        }
        let missing = #expect(throws: HostError.self) { try RTSPCredentials.load(file: "/nonexistent/users", method: .digest) }
        #expect(missing?.message == "rtspserve: cannot read auth-file '/nonexistent/users': expected a readable file of user:password lines")
    }

    @Test func beyondLoopbackNeedsCredentialsOrAnonymous() throws {
        let path = try Self.file("alice:s3cret\n")
        func extract(_ props: String) throws -> [RTSPServe] {
            try RTSPServe.extract(from: try ParsedDescription.parse("videotestsrc ! x264enc ! rtph264pay ! rtspserve \(props)")).1
        }
        let refused = #expect(throws: HostError.self) { try extract("bind=0.0.0.0") }
        #expect(
            refused?.message
                == "rtspserve: bind=0.0.0.0 serves beyond this machine without credentials: expected auth-file=FILE (user:password lines; "
                + "clients log in), or anonymous=true to let anyone who reaches port 8554 watch")
        #expect(try extract("bind=0.0.0.0 anonymous=true").first?.anonymous == true)
        let served = try #require(try extract("bind=0.0.0.0 auth-file=\(path) auth=basic").first)
        #expect(served.credentials?.users.map(\.user) == ["alice"] && served.credentials?.method == .basic)
        #expect(try extract("auth-file=\(path)").first?.credentials?.method == .digest)
        let both = #expect(throws: HostError.self) { try extract("auth-file=\(path) anonymous=true") }
        #expect(both?.message == "rtspserve: auth-file= and anonymous=true contradict each other: expected one of them")
        let method = #expect(throws: HostError.self) { try extract("auth-file=\(path) auth=ntlm") }
        #expect(method?.message.contains("bad value 'ntlm' for property 'auth'") == true, "\(method?.message ?? "")")
    }
}
