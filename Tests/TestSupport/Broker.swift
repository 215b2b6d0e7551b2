import Foundation

/// Debian's real `mosquitto` broker on a free loopback port for one test, and the real `mosquitto_sub`
/// and `mosquitto_pub` clients (MosquittoTests and ControlTests, through TestSupport). Tests stop them with
/// `defer`: a child process outlives the test process, and a failed expectation may keep objects alive until exit.
public final class Broker: ServerProcess {
    /// Access control and TLS for a broker (`Broker(port:security:)`): users made with `mosquitto_passwd -b`, an
    /// ACL file, a TLS listener with a CA and server certificate made with openssl in the broker's directory.
    public struct Security {
        /// User name -> password; anonymous clients are refused when any is given.
        public var users: [String: String]
        /// The `acl_file` text (`user NAME` / `topic read|write|readwrite TOPIC` lines); nil: none (all allowed).
        public var acl: String?
        /// A TLS listener (certificate for IP 127.0.0.1, signed by a CA of its own: `Broker.caFile`).
        public var tls: Bool
        /// The user the test's own clients (`publish`, `Subscriber`, `subscribeOnce`) log in as.
        public var client: String?
        /// With `tls`: clients must present a certificate signed by the broker's CA (`require_certificate true`);
        /// one is made for the test's own clients and another offered as `Broker.clientCertificate`.
        public var requireCertificate: Bool
        public init(users: [String: String] = [:], acl: String? = nil, tls: Bool = false, client: String? = nil, requireCertificate: Bool = false) {
            self.users = users
            self.acl = acl
            self.tls = tls
            self.client = client
            self.requireCertificate = requireCertificate
        }
    }

    /// The CA certificate (PEM) that signed the TLS listener's certificate; nil without TLS.
    public private(set) var caFile: URL?
    /// What mosquitto_pub/_sub need besides host and port (`-u`, `-P`, `--cafile`, `--cert`, `--key`).
    public private(set) var clientArguments: [String] = []
    /// A client certificate and key signed by the broker's CA (with `requireCertificate`).
    public private(set) var clientCertificate: (cert: URL, key: URL)?

    /// Starts `/usr/sbin/mosquitto -c CONF` (`listener PORT 127.0.0.1`, anonymous allowed unless `security` has
    /// users) on `port` (a free one when nil) and waits until the port accepts connections (at most 10 s).
    public init(port: UInt16? = nil, security: Security? = nil) throws {
        try super.init(name: "broker", port: port ?? Broker.freePort(), logNames: ["broker.log"])
        let conf = dir.appendingPathComponent("mosquitto.conf")
        var lines = ["per_listener_settings false", "listener \(self.port) 127.0.0.1", "persistence false"]
        if let security {
            if security.tls {
                let ca = try Self.makeCA(in: dir, name: "ca")
                let (cert, key) = try Self.makeServerCertificate(in: dir, ca: ca)
                lines += ["cafile \(ca.cert.path)", "certfile \(cert.path)", "keyfile \(key.path)"]
                caFile = ca.cert
                clientArguments += ["--cafile", ca.cert.path]
                if security.requireCertificate {
                    lines.append("require_certificate true")
                    let tools = try Self.makeCertificate(in: dir, ca: ca, name: "tools", subjectAltName: nil)
                    clientArguments += ["--cert", tools.cert.path, "--key", tools.key.path]
                    clientCertificate = try Self.makeCertificate(in: dir, ca: ca, name: "client", subjectAltName: nil)
                }
            }
            if security.users.isEmpty {
                lines.append("allow_anonymous true")
            } else {
                let passwords = dir.appendingPathComponent("passwords")
                for (user, password) in security.users.sorted(by: { $0.key < $1.key }) {
                    let first = !FileManager.default.fileExists(atPath: passwords.path)
                    let r = try Tools.run("/usr/bin/mosquitto_passwd", (first ? ["-c"] : []) + ["-b", passwords.path, user, password], timeout: 20)
                    guard r.code == 0 else { throw Failure(text: "mosquitto_passwd: \(r.err)") }
                }
                lines += ["allow_anonymous false", "password_file \(passwords.path)"]
            }
            if let acl = security.acl {
                let file = dir.appendingPathComponent("acl")
                try Data(acl.utf8).write(to: file)
                lines.append("acl_file \(file.path)")
            }
            if let user = security.client, let password = security.users[user] { clientArguments += ["-u", user, "-P", password] }
            // mosquitto started as root reads its files as the user `mosquitto`.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
                chmod(dir.appendingPathComponent(name).path, 0o644)
            }
        } else {
            lines.append("allow_anonymous true")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: conf)
        try start("/usr/sbin/mosquitto", ["-c", conf.path])
    }

    /// A CA made with openssl in `dir` (EC P-256, valid 2 days): its certificate and key.
    public static func makeCA(in dir: URL, name: String) throws -> (cert: URL, key: URL) {
        let cert = dir.appendingPathComponent("\(name).pem"), key = dir.appendingPathComponent("\(name).key")
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path, "-out", cert.path,
            "-days", "2", "-subj", "/CN=viewfinder test \(name)",
        ])
        return (cert, key)
    }

    /// A server certificate for IP 127.0.0.1 signed by `ca`: the certificate and its key.
    public static func makeServerCertificate(in dir: URL, ca: (cert: URL, key: URL)) throws -> (cert: URL, key: URL) {
        try makeCertificate(in: dir, ca: ca, name: "server", subjectAltName: "IP:127.0.0.1")
    }

    /// A certificate `NAME.pem` (CN NAME, EC P-256, 2 days) and its key `NAME.key` signed by `ca`.
    public static func makeCertificate(in dir: URL, ca: (cert: URL, key: URL), name: String, subjectAltName: String?) throws -> (cert: URL, key: URL) {
        let key = dir.appendingPathComponent("\(name).key"), csr = dir.appendingPathComponent("\(name).csr")
        let cert = dir.appendingPathComponent("\(name).pem"), ext = dir.appendingPathComponent("\(name).ext")
        try Data((subjectAltName.map { "subjectAltName=\($0)\n" } ?? "basicConstraints=CA:FALSE\n").utf8).write(to: ext)
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path, "-out", csr.path, "-subj",
            "/CN=\(subjectAltName == nil ? name : "127.0.0.1")",
        ])
        try openssl([
            "x509", "-req", "-in", csr.path, "-CA", ca.cert.path, "-CAkey", ca.key.path, "-CAcreateserial", "-out", cert.path, "-days", "2",
            "-extfile", ext.path,
        ])
        return (cert, key)
    }

    static func openssl(_ args: [String]) throws {
        let r = try Tools.run("/usr/bin/openssl", args, timeout: 30)
        guard r.code == 0 else { throw Failure(text: "openssl \(args.first ?? ""): \(r.err)") }
    }

    /// A port nothing listens on right now (bound to 0, read back, closed).
    public static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = address(0)
        _ = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: a.sin_port)
    }

    public static func address(_ port: UInt16) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = port.bigEndian
        return a
    }

    /// `mosquitto_sub` on `topics` with this broker's `clientArguments` (its login, its CA).
    public func subscriber(_ topics: [String]) throws -> Subscriber {
        try Subscriber(port: port, topics: topics, extra: clientArguments)
    }

    /// A running `mosquitto_sub -v` (lines `TOPIC PAYLOAD`) writing to a file.
    public final class Subscriber {
        public let process = Process()
        public let out: URL

        /// Subscribes to `topics`; `extra` are more mosquitto_sub options (`-C 1`, `-W 5`, a broker's
        /// `clientArguments`...).
        public init(port: UInt16, topics: [String], extra: [String] = []) throws {
            out = FileManager.default.temporaryDirectory.appendingPathComponent("vf-sub-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
            process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-v"] + topics.flatMap { ["-t", $0] } + extra
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: out)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// What it printed so far, line by line.
        public var lines: [String] {
            ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The payloads printed for `topic`, as JSON objects (lines that are not JSON are left out).
        public func json(_ topic: String) -> [[String: Any]] {
            lines.compactMap { line in
                guard line.hasPrefix(topic + " ") else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(topic.count + 1).utf8))) as? [String: Any]
            }
        }

        /// Waits until `done` holds (at most `timeout` s); whether it did.
        public func wait(timeout: Double, until done: (Subscriber) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if done(self) { return true }
                usleep(50_000)
            }
            return done(self)
        }

        /// Ends it (SIGKILL: SIGTERM is blocked in the test's children, see `Broker.stop`) and waits.
        public func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit {
            stop()
            try? FileManager.default.removeItem(at: out)
        }
    }

    /// Runs `mosquitto_sub -v ... -C count -W seconds` to its end; the lines it printed.
    public func subscribeOnce(_ topic: String, count: Int, seconds: Int) throws -> [String] {
        let s = try Subscriber(port: port, topics: [topic], extra: ["-C", String(count), "-W", String(seconds)] + clientArguments)
        s.process.waitUntilExit()
        return s.lines
    }

    /// Runs `mosquitto_pub -t TOPIC` with `message` (`-m`), or an empty message (`-n`) when nil; its exit code.
    @discardableResult
    public func publish(_ topic: String, _ message: String?, retain: Bool = false) throws -> Int32 {
        try mosquittoPub(["-t", topic] + (message.map { ["-m", $0] } ?? ["-n"]) + (retain ? ["-r"] : []))
    }

    /// Runs `mosquitto_pub -t TOPIC -f FILE` with `bytes` as the payload (any bytes, NUL too); its exit code.
    @discardableResult
    public func publish(_ topic: String, bytes: Data) throws -> Int32 {
        let file = dir.appendingPathComponent("payload-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try mosquittoPub(["-t", topic, "-f", file.path])
    }

    /// Runs `mosquitto_pub -h 127.0.0.1 -p PORT` with `arguments`; its exit code.
    public func mosquittoPub(_ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = ["-h", "127.0.0.1", "-p", String(port)] + clientArguments + arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
