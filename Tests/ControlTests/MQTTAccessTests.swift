import Foundation
import TestSupport
import Testing

@testable import Control

/// `--mqtt-username`, `--mqtt-password-file`, `--mqtt-cafile`, `--mqtt-cert`, `--mqtt-key` through the real binary
/// against a real mosquitto started by the test with a password file (`mosquitto_passwd -b`), an ACL file and a
/// TLS listener (a CA and server certificate made with openssl in the broker's directory); the test's own
/// clients (mosquitto_sub/_pub) log in as `admin`.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct MQTTAccessTests {
    static let source = "videotestsrc is-live=true pattern=ball num-buffers=%d ! video/x-raw,width=320,height=240,framerate=30/1"
    static let password = "s3cret-pass word"

    /// Exactly what Viewfinder uses under `cams/door` (docs/control-api.md "Broker access control"), for `cam`.
    static let acl = """
        user admin
        topic readwrite #

        user cam
        topic write cams/door/state
        topic write cams/door/events/#
        topic write cams/door/reply
        topic read cams/door/cmd/#

        """

    static func broker(acl: String = MQTTAccessTests.acl, tls: Bool = true) throws -> Broker {
        try Broker(security: .init(users: ["cam": password, "admin": "admin-pw"], acl: acl, tls: tls, client: "admin"))
    }

    /// A file holding `text` in a directory of its own.
    static func file(_ text: String, name: String = "password") throws -> String {
        let url = Tools.tempDir().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// `viewfinder launch --mqtt 127.0.0.1:PORT --topic cams/door OPTIONS DESCRIPTION`, started.
    static func start(_ broker: Broker, _ options: [String], frames: Int) throws -> (Process, URL, URL) {
        try Tools.start(
            Tools.viewfinder,
            ["launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door"] + options
                + [String(format: source, frames) + " ! compose analysis-width=160 warmup=0 ! fakesink"])
    }

    static func stderr(_ err: URL) -> String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    static func wait(_ seconds: Double, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() && Date() < deadline { usleep(50_000) }
        return done()
    }

    /// A subscriber (as admin, over TLS when the broker has it) that has really subscribed.
    static func subscriber(_ broker: Broker, _ topics: [String]) throws -> Broker.Subscriber {
        let sub = try broker.subscriber(topics + ["probe/#"])
        #expect(sub.wait(timeout: 5) { s in
            _ = try? broker.publish("probe/x", "1")
            return s.lines.contains("probe/x 1")
        }, "mosquitto_sub did not subscribe: \(sub.lines)")
        return sub
    }

    @Test func theRightPasswordOverTLSRunsCommandsAndPublishesTheState() throws {
        let broker = try Self.broker()
        defer { broker.stop() }
        let ca = try #require(broker.caFile).path
        let sub = try Self.subscriber(broker, ["cams/door/#"])
        defer { sub.stop() }
        let (p, o, e) = try Self.start(
            broker, ["--mqtt-username", "cam", "--mqtt-password-file", try Self.file(Self.password + "\n"), "--mqtt-cafile", ca], frames: 3000)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.wait(20) { Self.stderr(e).contains("mqtt: connected to 127.0.0.1:\(broker.port) topic cams/door") }, "\(Self.stderr(e))")
        #expect(sub.wait(timeout: 10) { s in s.json("cams/door/state").contains { ($0["framesIn"] as? Int ?? 0) > 0 } }, "\(sub.lines.suffix(5))")
        #expect(sub.wait(timeout: 10) { !$0.json("cams/door/events/composition").isEmpty }, "\(sub.lines.suffix(5))")

        try broker.publish("cams/door/cmd/set", #"{"stage":"compose0","set":{"rule":"golden"}}"#)
        #expect(sub.wait(timeout: 5) { !$0.json("cams/door/reply").isEmpty }, "\(sub.lines.suffix(5))")
        let set = sub.json("cams/door/reply").first ?? [:]
        #expect(set["ok"] as? Bool == true && (set["changed"] as? [String: Any])?["rule"] as? String == "golden", "\(set)")
        try broker.publish("cams/door/cmd/stop", "{}")
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(sub.wait(timeout: 5) { $0.json("cams/door/state").last?["state"] as? String == "stopped" }, "\(sub.lines.suffix(3))")
        #expect(sub.json("cams/door/reply").last?["command"] as? String == "stop", "\(sub.lines.suffix(3))")
        // The password is printed nowhere.
        #expect(!r.err.contains(Self.password) && !r.out.contains(Self.password))
    }

    @Test func aWrongPasswordIsAClearConnectionErrorAndTheCameraRuns() throws {
        let broker = try Self.broker(tls: false)
        defer { broker.stop() }
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door", "--mqtt-username", "cam", "--mqtt-password-file",
                try Self.file("wrong-password\n"), String(format: Self.source, 90) + " ! compose analysis-width=160 warmup=0 ! fakesink",
            ], timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.err.contains(
                "mqtt: 127.0.0.1:\(broker.port) refused the connection (Not authorized): check --mqtt-username and --mqtt-password-file; retrying"),
            "\(r.err)")
        #expect(r.err.components(separatedBy: "refused the connection").count == 2, "said more than once: \(r.err)")
        #expect(!r.err.contains("mqtt: connected") && r.err.contains("frames: 90 in"), "\(r.err)")
        #expect(!r.err.contains("wrong-password"))

        // No login at all where the broker wants one: the same, saying none was given.
        let anonymous = try Tools.run(
            Tools.viewfinder, ["launch", "--mqtt", "127.0.0.1:\(broker.port)", String(format: Self.source, 30) + " ! fakesink"], timeout: 30)
        #expect(anonymous.code == 0, "\(anonymous.err)")
        #expect(anonymous.err.contains("refused the connection (Not authorized): check --mqtt-username and --mqtt-password-file (none given"), "\(anonymous.err)")
    }

    /// mosquitto 2.0 grants a subscription the ACL does not allow reading (SUBACK 0) and then delivers nothing,
    /// and drops QoS 0 publishes the ACL does not allow writing without a word: so with an ACL that lacks
    /// `read cams/door/cmd/#` no command reaches the camera (and none is answered), and without
    /// `write cams/door/events/#` no event arrives, while the state still does (docs/control-api.md).
    @Test func anACLThatDeniesTopicsSilencesThemOnly() throws {
        let acl = """
            user admin
            topic readwrite #

            user cam
            topic write cams/door/state
            topic write cams/door/reply

            """
        let broker = try Self.broker(acl: acl, tls: false)
        defer { broker.stop() }
        let sub = try Self.subscriber(broker, ["cams/door/#"])
        defer { sub.stop() }
        let (p, o, e) = try Self.start(broker, ["--mqtt-username", "cam", "--mqtt-password-file", try Self.file(Self.password)], frames: 3000)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.wait(20) { Self.stderr(e).contains("mqtt: connected to") }, "\(Self.stderr(e))")
        #expect(sub.wait(timeout: 10) { s in s.json("cams/door/state").contains { ($0["framesIn"] as? Int ?? 0) > 30 } }, "\(sub.lines.suffix(5))")
        try broker.publish("cams/door/cmd/stop", "{}")
        usleep(1_500_000)
        #expect(p.isRunning, "a denied command topic still delivered stop: \(Self.stderr(e))")
        #expect(sub.json("cams/door/reply").isEmpty && sub.json("cams/door/events/composition").isEmpty, "\(sub.lines.suffix(5))")
        #expect(sub.lines.contains { $0.hasPrefix("cams/door/cmd/stop ") }, "the admin's stop was not published: \(sub.lines.suffix(5))")
        kill(p.processIdentifier, SIGINT)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
    }

    @Test func tlsWithoutTheRightCAFailsClearlyAndTheCameraRuns() throws {
        let broker = try Self.broker()
        defer { broker.stop() }
        let login = ["--mqtt-username", "cam", "--mqtt-password-file", try Self.file(Self.password)]
        func run(_ extra: [String]) throws -> Tools.Result {
            try Tools.run(
                Tools.viewfinder,
                ["launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door"] + login + extra
                    + [String(format: Self.source, 60) + " ! compose analysis-width=160 warmup=0 ! fakesink"],
                timeout: 30)
        }
        // Another CA than the one that signed the broker's certificate: the handshake fails, said once, no retries.
        let other = try Broker.makeCA(in: Tools.tempDir(), name: "other")
        let wrong = try run(["--mqtt-cafile", other.cert.path])
        #expect(wrong.code == 0 && wrong.err.contains("frames: 60 in"), "\(wrong.err)")
        #expect(
            wrong.err.contains("mqtt: giving up on 127.0.0.1:\(broker.port) (TLS: OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed)"),
            "\(wrong.err)")
        #expect(wrong.err.contains("check --mqtt-cafile") && !wrong.err.contains("mqtt: connected"), "\(wrong.err)")
        #expect(!wrong.err.contains("retrying"), "\(wrong.err)")

        // No TLS at all to a TLS listener: the broker drops the connection before answering, which is said.
        let plain = try run([])
        #expect(plain.code == 0 && plain.err.contains("frames: 60 in"), "\(plain.err)")
        #expect(plain.err.contains("mqtt: cannot reach 127.0.0.1:\(broker.port) ("), "\(plain.err)")
        #expect(plain.err.contains("before the broker answered (a TLS listener spoken to without TLS?)"), "\(plain.err)")
    }

    /// A broker that requires client certificates (`require_certificate true`): with `--mqtt-cert`/`--mqtt-key` the
    /// camera connects and publishes; without them the broker ends the handshake, which is said once, with OpenSSL's
    /// reason when the client got to read it.
    @Test func aClientCertificateIsPresentedWhenTheBrokerRequiresOne() throws {
        let broker = try Broker(security: .init(users: ["cam": Self.password, "admin": "admin-pw"], acl: Self.acl, tls: true, client: "admin", requireCertificate: true))
        defer { broker.stop() }
        let ca = try #require(broker.caFile).path
        let client = try #require(broker.clientCertificate)
        let sub = try Self.subscriber(broker, ["cams/door/state"])
        defer { sub.stop() }
        let login = ["--mqtt-username", "cam", "--mqtt-password-file", try Self.file(Self.password), "--mqtt-cafile", ca]
        let description = String(format: Self.source, 60) + " ! compose analysis-width=160 warmup=0 ! fakesink"
        let good = try Tools.run(
            Tools.viewfinder,
            ["launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door"] + login
                + ["--mqtt-cert", client.cert.path, "--mqtt-key", client.key.path, description], timeout: 30)
        #expect(good.code == 0 && good.err.contains("mqtt: connected to 127.0.0.1:\(broker.port)"), "\(good.err)")
        #expect(sub.wait(timeout: 5) { $0.json("cams/door/state").last?["state"] as? String == "stopped" }, "\(sub.lines.suffix(3))")
        #expect(sub.json("cams/door/state").last?["framesIn"] as? Int == 60, "\(sub.lines.suffix(1))")

        let without = try Tools.run(
            Tools.viewfinder, ["launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door"] + login + [description], timeout: 30)
        #expect(without.code == 0 && without.err.contains("frames: 60 in"), "\(without.err)")
        #expect(!without.err.contains("mqtt: connected"), "\(without.err)")
        // OpenSSL's reason ("tlsv13 alert certificate required") when the client read the broker's alert; when the
        // broker closed first, only that the handshake failed.
        #expect(without.err.contains("mqtt: giving up on 127.0.0.1:\(broker.port) (TLS: "), "\(without.err)")
        #expect(
            without.err.contains("certificate required)") || without.err.contains("TLS: handshake failed (Protocol error))"), "\(without.err)")
        #expect(without.err.contains("--mqtt-cert/--mqtt-key when the broker wants a client certificate"), "\(without.err)")
        #expect(!without.err.contains("retrying"), "said twice: \(without.err)")
    }

    @Test(arguments: [
        (["--mqtt-username", "cam"], "--mqtt-username without --mqtt: expected --mqtt HOST:PORT too"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-password-file", "/etc/hostname"], "--mqtt-password-file without --mqtt-username"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-username", "cam", "--mqtt-password-file", "/nonexistent/pw"],
            "cannot read --mqtt-password-file /nonexistent/pw (no such file): expected a file holding the password"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-username", "cam", "--mqtt-password-file", "/tmp"],
            "cannot read --mqtt-password-file /tmp (not a regular file)"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-username", "cam", "--mqtt-password-file", "EMPTY"], "is empty: expected the password on its first line"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-username", ""], "bad value '' for --mqtt-username"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-cert", "PEM"], "--mqtt-cert without --mqtt-key: expected both"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-cert", "PEM", "--mqtt-key", "PEM"], "without --mqtt-cafile"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-cafile", "/etc/hostname"], "--mqtt-cafile /etc/hostname holds no PEM block"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-cafile", "/nonexistent/ca.pem"], "cannot read --mqtt-cafile /nonexistent/ca.pem (no such file)"),
        (["--mqtt", "127.0.0.1:1883", "--mqtt-cafile"], "option '--mqtt-cafile' needs a value: --mqtt-cafile FILE"),
    ] as [([String], String)])
    func badOptionsAreUsageErrorsNamingThem(_ options: [String], _ text: String) throws {
        let empty = try Self.file("", name: "empty")
        let pem = try Self.file("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", name: "x.pem")
        let args = options.map { $0 == "EMPTY" ? empty : $0 == "PEM" ? pem : $0 }
        let r = try Tools.run(Tools.viewfinder, ["launch", "videotestsrc num-buffers=1 ! fakesink"] + args, timeout: 20)
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains(text), "\(r.err)")
        #expect(!r.err.contains("frames:"), "ran anyway: \(r.err)")
    }

    /// The password is read from the file's first line, its line end (LF or CRLF) dropped; `description` hides it.
    @Test func thePasswordComesFromTheFilesFirstLineAndIsNeverShown() throws {
        let a = try MQTTAccess(username: "cam", passwordFile: try Self.file("pw one\r\nsecond line\n"), caFile: nil, certFile: nil, keyFile: nil)
        #expect(a.password == "pw one" && a.username == "cam")
        #expect(a.description == "user cam with a password" && !"\(a)".contains("pw one"))
        #expect(MQTTAccess().description == "anonymous" && !MQTTAccess().isSet)
    }
}
