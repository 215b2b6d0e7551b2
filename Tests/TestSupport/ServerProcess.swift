import Foundation

/// A server program one test runs as its child on a loopback port (mosquitto for `Broker`, nginx for `RTMPServer`),
/// with its configuration and logs in a temporary directory of its own, removed with it. Tests stop it with `defer`:
/// a child process outlives the test process, and a failed expectation may keep objects alive until exit.
public class ServerProcess {
    public let port: UInt16
    public let process = Process()
    public let dir: URL
    /// The files in `dir` the server writes its output to; the first one gets its stdout and stderr.
    let logNames: [String]

    public struct Failure: Error {
        public var text: String
        public init(text: String) { self.text = text }
    }

    /// Makes `dir` (`vf-NAME-UUID` in the temporary directory); `port` is a free one when nil.
    init(name: String, port: UInt16?, logNames: [String]) throws {
        self.port = port ?? Tools.freePort()
        self.logNames = logNames
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    /// Starts `exe args` (stdout and stderr into the first log file, no stdin) and waits until 127.0.0.1:`port`
    /// accepts TCP connections (at most 10 s); otherwise ends it and throws, with its log.
    func start(_ exe: String, _ args: [String]) throws {
        let out = dir.appendingPathComponent(logNames[0])
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = args
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: out)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Tools.accepts(port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw Failure(text: "\(URL(fileURLWithPath: exe).lastPathComponent) did not listen on 127.0.0.1:\(port): \(log)")
            }
            usleep(20_000)
        }
    }

    /// The server's own output, its log files one after the other.
    public var log: String {
        logNames.map { (try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) ?? "" }.joined()
    }

    /// Ends the server with SIGKILL: children of the test process inherit its blocked signal mask, so
    /// SIGTERM would stay pending (and `Process.terminate` hang the test).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: dir)
    }
}
