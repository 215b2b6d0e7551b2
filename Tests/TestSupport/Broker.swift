import Foundation

/// Debian's real `mosquitto` broker on a free loopback port for one test, and the real `mosquitto_sub`
/// and `mosquitto_pub` clients (MosquittoTests and ControlTests, through TestSupport). Tests stop them with
/// `defer`: a child process outlives the test process, and a failed expectation may keep objects alive until exit.
public final class Broker: ServerProcess {
    /// Starts `/usr/sbin/mosquitto -c CONF` (`listener PORT 127.0.0.1`, anonymous allowed) on `port` (a free
    /// one when nil) and waits until the port accepts connections (at most 10 s).
    public init(port: UInt16? = nil) throws {
        try super.init(name: "broker", port: port ?? Broker.freePort(), logNames: ["broker.log"])
        let conf = dir.appendingPathComponent("mosquitto.conf")
        try Data("listener \(self.port) 127.0.0.1\nallow_anonymous true\npersistence false\n".utf8).write(to: conf)
        try start("/usr/sbin/mosquitto", ["-c", conf.path])
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

    /// A running `mosquitto_sub -v` (lines `TOPIC PAYLOAD`) writing to a file.
    public final class Subscriber {
        public let process = Process()
        public let out: URL

        /// Subscribes to `topics`; `extra` are more mosquitto_sub options (`-C 1`, `-W 5`...).
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
        let s = try Subscriber(port: port, topics: [topic], extra: ["-C", String(count), "-W", String(seconds)])
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
        p.arguments = ["-h", "127.0.0.1", "-p", String(port)] + arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
