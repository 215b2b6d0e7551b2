import Foundation
import Host
import Synchronization
import Timing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real streaming HTTP client for `bench control`: a `curl -sN` process whose body our reader thread
/// reads from a pipe as it comes. `onBytes` is called on that thread with each chunk; the process is
/// ended with `stop()` (SIGTERM, then waited for at most 2 s).
final class CurlStream: @unchecked Sendable {
    private let process = Process()
    private let pipe = Pipe()
    private var reader: Thread?

    /// Starts `curl` on `url`; `onBytes` gets every chunk of the body (on the reader thread).
    init(url: String, onBytes: @escaping @Sendable (Data) -> Void) throws(HostError) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // No proxy: the server is on loopback whatever the environment says.
        process.arguments = ["-sN", "--noproxy", "*", url]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw HostError(.runtime, "cannot start /usr/bin/curl for \(url): \(error)") }
        // read(2), not FileHandle: `read(upToCount:)` waits for the whole count (an event would sit in the
        // pipe until 64 KiB came) and `availableData` traps on a read error.
        let fd = pipe.fileHandleForReading.fileDescriptor
        let t = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                onBytes(Data(buffer[0..<n]))
            }
        }
        t.name = "vf-bench-client"
        reader = t
        t.start()
    }

    /// Ends the client (its connection closes: the server notices on its next write). SIGKILL, not
    /// `terminate()`: a process started from a dispatch thread (the test runner's) inherits a mask that
    /// blocks SIGTERM, and such a curl never ends.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let deadline = SystemClock.shared.now + 2
        while process.isRunning && SystemClock.shared.now < deadline { usleep(10_000) }
    }
}

/// Splits a `multipart/x-mixed-replace` body (the preview stream) into its JPEG parts, keeping at most
/// one unfinished part in memory.
struct MultipartSplitter {
    private var buffer = Data()

    /// Adds bytes; returns the complete JPEG parts now available, in order.
    mutating func add(_ data: Data) -> [Data] {
        buffer.append(data)
        var parts: [Data] = []
        let headerEnd = Data("\r\n\r\n".utf8)
        while let end = buffer.range(of: headerEnd) {
            let headers = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            guard let line = headers.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)), length >= 0
            else {
                // Not a part header (a stray line): skip past it.
                buffer.removeSubrange(buffer.startIndex..<end.upperBound)
                continue
            }
            guard buffer.distance(from: end.upperBound, to: buffer.endIndex) >= length else { break }
            let bodyEnd = buffer.index(end.upperBound, offsetBy: length)
            parts.append(Data(buffer[end.upperBound..<bodyEnd]))
            buffer.removeSubrange(buffer.startIndex..<bodyEnd)
        }
        buffer = Data(buffer)  // re-base indices at 0
        return parts
    }

    /// Width and height from a JPEG's start-of-frame segment (SOF0-3, 5-7, 9-11, 13-15), nil when none.
    static func jpegSize(_ jpeg: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](jpeg)
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }
}

/// Splits a server-sent-events body into `data:` payloads.
struct EventLineSplitter {
    private var buffer = Data()

    /// Adds bytes; returns the payload of every complete `data: ` line now available.
    mutating func add(_ data: Data) -> [Data] {
        buffer.append(data)
        var payloads: [Data] = []
        while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer[buffer.startIndex..<nl]
            if line.starts(with: Data("data: ".utf8)) { payloads.append(Data(line.dropFirst(6))) }
            buffer.removeSubrange(buffer.startIndex...nl)
        }
        buffer = Data(buffer)
        return payloads
    }
}

/// An open-loop client for `bench control`: sends requests at planned times (every 1/rate s, whether or
/// not earlier answers came) through URLSession, and times each from its planned send time to its
/// answer, so a slow answer never hides the ones queued behind it.
enum PacedRequests {
    /// One planned request: method, path, JSON body.
    struct Plan: Sendable {
        var method: String
        var path: String
        var body: Data?
    }

    /// Latencies (ms) per method, and failures (transport error, no answer in time, or not a 2xx JSON answer).
    struct Outcome: Sendable {
        var latencies: [String: [Double]] = [:]
        var errors: [String: Int] = [:]
        var firstError: String?
        var sent = 0
    }

    /// Sends `plans` in turn, `rate` a second, for `seconds`, to `base` (`http://127.0.0.1:PORT`); with
    /// `closeEach`, each request says `Connection: close` (a new connection each).
    static func run(base: String, plans: [Plan], rate: Double, seconds: Double, closeEach: Bool = false) -> Outcome {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = 5
        config.connectionProxyDictionary = [:]
        let session = URLSession(configuration: config)
        defer { session.invalidateAndCancel() }
        let outcome = Mutex(Outcome())
        let group = DispatchGroup()
        let total = max(1, Int((seconds * rate).rounded()))
        let step = UInt64(1e9 / rate)
        let start = DispatchTime.now().uptimeNanoseconds + 50_000_000
        for i in 0..<total {
            let plan = plans[i % plans.count]
            let planned = start + UInt64(i) * step
            let now = DispatchTime.now().uptimeNanoseconds
            if planned > now { usleep(useconds_t((planned - now) / 1000)) }
            guard let url = URL(string: base + plan.path) else { continue }
            var request = URLRequest(url: url)
            request.httpMethod = plan.method
            if closeEach { request.setValue("close", forHTTPHeaderField: "Connection") }
            if let body = plan.body {
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            group.enter()
            outcome.withLock { $0.sent += 1 }
            session.dataTask(with: request) { data, response, error in
                let ms = Double(DispatchTime.now().uptimeNanoseconds &- planned) / 1e6
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                outcome.withLock { o in
                    if error == nil, (200..<300).contains(status), json != nil {
                        o.latencies[plan.method, default: []].append(ms)
                    } else {
                        o.errors[plan.method, default: 0] += 1
                        if o.firstError == nil {
                            o.firstError = "\(plan.method) \(plan.path): " + (error.map { "\($0)" } ?? "status \(status)")
                        }
                    }
                }
                group.leave()
            }.resume()
        }
        if group.wait(timeout: .now() + 10) == .timedOut {
            outcome.withLock { o in
                let answered = o.latencies.values.reduce(0) { $0 + $1.count } + o.errors.values.reduce(0, +)
                o.errors["unanswered", default: 0] += o.sent - answered
                if o.firstError == nil { o.firstError = "\(o.sent - answered) requests unanswered after 10 s" }
            }
        }
        return outcome.withLock { $0 }
    }
}
