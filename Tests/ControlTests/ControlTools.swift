import Foundation
import TestSupport
import Testing

/// Starts the real `viewfinder` binary with `--http` and talks to it with `/usr/bin/curl` (the binary and
/// temporary directories come from TestSupport's `Tools`).
enum ControlTools {
    /// A port nothing listens on right now (bound to 0, read back, closed).
    static func freePort() -> UInt16 {
        Tools.freePort()
    }

    /// A running `viewfinder` with its output files.
    final class Running {
        let process = Process()
        let out: URL, err: URL
        let port: UInt16
        var base: String { "http://127.0.0.1:\(port)" }

        /// `viewfinder ARGS`, or `PREFIX... viewfinder ARGS` (a wrapper such as prlimit).
        init(_ args: [String], port: UInt16, cwd: URL? = nil, prefix: [String] = []) throws {
            self.port = port
            out = Tools.tempDir().appendingPathComponent("out")
            err = Tools.tempDir().appendingPathComponent("err")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: prefix.first ?? Tools.viewfinder)
            process.arguments = prefix.isEmpty ? args : Array(prefix.dropFirst()) + [Tools.viewfinder] + args
            if let cwd { process.currentDirectoryURL = cwd }
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

        /// Waits until stderr says `control: ...` (or the process ended).
        func waitListening(timeout: Double = 60) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if stderr.contains("control: \(base)/") { return true }
                if !process.isRunning { return false }
                usleep(50_000)
            }
            return false
        }

        /// Waits for the end (SIGKILL after `timeout`); the exit code, -1 when killed.
        func finish(timeout: Double = 60) -> Int32 {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit(); return -1 }
            return process.terminationStatus
        }
    }

    /// Starts `viewfinder launch --http 127.0.0.1:PORT EXTRA DESCRIPTION` and waits until it listens.
    static func launch(_ description: String, extra: [String] = []) throws -> Running {
        let port = freePort()
        let r = try Running(["launch", "--http", "127.0.0.1:\(port)"] + extra + [description], port: port)
        #expect(r.waitListening(), "not listening: \(r.stderr)")
        return r
    }

    /// An HTTP answer as curl saw it.
    struct Answer {
        var status: Int
        var body: String
        /// The body as a JSON object (empty when it is none).
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    /// Runs curl for one request.
    /// With `includeHeaders` the body starts with the response's headers (curl -i).
    static func curl(
        _ method: String, _ url: String, body: String? = nil, headers: [String] = [], maxTime: Double = 10, includeHeaders: Bool = false
    ) throws -> Answer {
        let file = Tools.tempDir().appendingPathComponent("body")
        var args = ["-s", "-o", file.path, "-w", "%{http_code}", "-X", method, "--max-time", String(maxTime)]
        if includeHeaders { args.append("-i") }
        for h in headers { args += ["-H", h] }
        if let body {
            let bodyFile = Tools.tempDir().appendingPathComponent("request")
            try Data(body.utf8).write(to: bodyFile)
            args += ["-H", "Content-Type: application/json", "--data-binary", "@\(bodyFile.path)"]
        }
        let status = try runCurl(args + [url])
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return Answer(status: Int(String(decoding: status, as: UTF8.self)) ?? -1, body: text)
    }

    /// Reads `/api/events` for `seconds` with `curl -N`; the `data:` lines as JSON objects.
    static func events(_ url: String, seconds: Double) throws -> [[String: Any]] {
        let data = try runCurl(["-s", "-N", "--max-time", String(seconds), url])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("data: ") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8))) as? [String: Any]
        }
    }

    /// The JSON type `JSONSerialization` decoded `value` from: "boolean", "number", "string", "null", "array",
    /// "object" or "missing" (a JSON boolean is an NSNumber of the boolean class, a number any other NSNumber).
    static func jsonKind(_ value: Any?) -> String {
        switch value {
        case nil: "missing"
        case is String: "string"
        case let n as NSNumber: ObjectIdentifier(type(of: n)) == ObjectIdentifier(type(of: NSNumber(value: true))) ? "boolean" : "number"
        case is NSNull: "null"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "\(type(of: value))"
        }
    }

    /// Runs `/usr/bin/curl` with `arguments`; what it wrote on stdout.
    private static func runCurl(_ arguments: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data
    }
}
