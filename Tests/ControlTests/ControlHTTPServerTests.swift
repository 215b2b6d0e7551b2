import Control
import Foundation
import Host
import TestSupport
import TestTags
import Testing

/// The control server's limits against real clients on loopback (raw sockets, curl): a server in this process
/// with short timeouts, on a live session through compose (events every analysis, a preview).
@Suite(.serialized, .tags(.live, .network), .tier) struct ControlHTTPServerTests {
    /// Short limits, so a test waits about a second for each.
    static let limits: ControlLimits = {
        var l = ControlLimits()
        l.headTimeout = 1
        l.bodyTimeout = 1
        l.streamStall = 1
        l.streamSendBuffer = 16 * 1024
        return l
    }()

    /// A live session with the control server on a free port, run on its own thread until `stop()`.
    final class Live {
        let session: Session
        let port: UInt16
        private let ended = DispatchSemaphore(value: 0)
        var base: String { "http://127.0.0.1:\(port)" }

        init(limits: ControlLimits = ControlHTTPServerTests.limits, token: String? = nil) throws {
            port = Tools.freePort()
            var o = SessionOptions()
            o.services = [ControlServerFactory(address: try ControlAddress(parsing: "127.0.0.1:\(port)", token: token), limits: limits, fire: {})]
            session = try Session(
                description:
                    "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=64 analysis-fps=30 warmup=0 ! fakesink",
                options: o)
            try session.prepare()
            let s = session, done = ended
            Thread {
                _ = s.run()
                done.signal()
            }.start()
        }

        func stop() {
            session.requestStop()
            _ = ended.wait(timeout: .now() + 10)
            session.close()
        }

        /// `GET /api/state` by curl: the status (-1 when not answered within `maxTime`).
        func state(maxTime: Double = 5) -> Int { (try? ControlTools.curl("GET", base + "/api/state", maxTime: maxTime).status) ?? -1 }

        /// The number of `/api/events` clients the server counts.
        func eventClients() -> Int? { (try? ControlTools.curl("GET", base + "/api/state").json["eventClients"]) as? Int }
    }

    /// A blocking TCP client to 127.0.0.1 with a receive timeout.
    final class Raw: Sendable {
        let fd: Int32

        init(port: UInt16, receiveBuffer: Int32? = nil) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
            guard Tools.connectLoopback(fd, port: port) else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(fd) }

        /// Sends all of `bytes`; false when the connection refused them (closed, reset).
        @discardableResult func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return false }
                sent += n
            }
            return true
        }

        @discardableResult func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        /// Reads until the peer closes or `seconds` pass: the bytes, and whether it closed (and when).
        func read(seconds: Double) -> (data: [UInt8], closedAfter: Double?) {
            let start = Date()
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while Date().timeIntervalSince(start) < seconds {
                let left = max(0.01, seconds - Date().timeIntervalSince(start))
                var tv = timeval(tv_sec: Int(left), tv_usec: Int((left - Double(Int(left))) * 1e6))
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { out += buffer[..<n]; continue }
                if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return (out, Date().timeIntervalSince(start)) }
            }
            return (out, nil)
        }

        /// The status line of the first answer read within `seconds`, and whether the connection then closed.
        func answer(seconds: Double) -> (status: String, text: String, closedAfter: Double?) {
            let r = read(seconds: seconds)
            let text = String(decoding: r.data, as: UTF8.self)
            return (text.split(separator: "\r\n").first.map(String.init) ?? "", text, r.closedAfter)
        }
    }

    @Test func aLongRequestLineIs431AtOnceAndOthersAreAnswered() throws {
        let live = try Live()
        defer { live.stop() }
        // 256 KB: FlyingFox took 34 s of a worker over this (it rescanned the line for every byte).
        let client = try Raw(port: live.port)
        let started = Date()
        client.send("GET /" + String(repeating: "a", count: 256 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        let a = client.answer(seconds: 5)
        let took = Date().timeIntervalSince(started)
        #expect(a.status == "HTTP/1.1 431 Request Header Fields Too Large", "\(a.text.prefix(300))")
        #expect(a.text.contains("request line or header field longer than 8192 bytes"))
        #expect(a.closedAfter != nil, "the connection stays open after a 431")
        #expect(took < 2, "431 after \(took) s")
        #expect(live.state() == 200)
    }

    @Test func hugeHeadersAre431() throws {
        let live = try Live()
        defer { live.stop() }
        // 20 fields of 4 KB: each under the 8 KB field limit, 80 KB together over the 64 KB of all headers.
        let client = try Raw(port: live.port)
        var head = "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n"
        for i in 0..<20 { head += "X-Pad-\(i): " + String(repeating: "b", count: 4096) + "\r\n" }
        client.send(head + "\r\n")
        let a = client.answer(seconds: 5)
        #expect(a.status == "HTTP/1.1 431 Request Header Fields Too Large", "\(a.text.prefix(300))")
        #expect(a.closedAfter != nil)
        // One field over 8 KB alone.
        let one = try Raw(port: live.port)
        one.send("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nX-Big: " + String(repeating: "c", count: 9000) + "\r\n\r\n")
        #expect(one.answer(seconds: 5).status == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(live.state() == 200)
    }

    @Test func aTooLargeBodyIs413AndTheConnectionIsClosed() throws {
        let live = try Live()
        defer { live.stop() }
        // 10 MB whose content hides a request: after the 413 nothing of it may be parsed as one.
        let client = try Raw(port: live.port)
        client.send("PATCH /api/stages/compose0 HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nContent-Length: 10485760\r\n\r\n")
        let hidden = Array("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n".utf8)
        let writer = Thread {
            var chunk = hidden
            chunk += [UInt8](repeating: 0x20, count: 65536 - hidden.count)
            for _ in 0..<160 where client.send(chunk) {}
        }
        writer.start()
        let a = client.answer(seconds: 5)
        #expect(a.status == "HTTP/1.1 413 Payload Too Large", "\(a.text.prefix(300))")
        #expect(a.text.contains("request body larger than 65536 bytes"))
        #expect(a.text.components(separatedBy: "HTTP/1.1 ").count == 2, "a second answer: \(a.text)")
        #expect(a.closedAfter != nil, "the connection stays open after a 413")
        // curl with a 10 MB body: 413, and the server answers others.
        let answer = try ControlTools.curl("PATCH", live.base + "/api/stages/compose0", body: String(repeating: "{", count: 10 * 1024 * 1024))
        #expect(answer.status == 413)
        #expect(live.state() == 200)
    }

    @Test func aSlowlorisClientIsClosedAfterTheHeadTimeout() throws {
        let live = try Live()
        defer { live.stop() }
        let client = try Raw(port: live.port)
        let started = Date()
        // A header byte every 100 ms, never the end of the head.
        let trickle = Thread {
            for byte in Array("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 100) {
                guard client.send([byte]) else { return }
                usleep(100_000)
            }
        }
        trickle.start()
        let r = client.read(seconds: 5)
        let closed = try #require(r.closedAfter, "still open after 5 s")
        #expect(closed >= 0.9 && closed < 2.5, "closed after \(closed) s (head timeout 1 s)")
        #expect(r.data.isEmpty, "\(String(decoding: r.data, as: UTF8.self))")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(live.state() == 200)
    }

    @Test func anIdleKeptAliveConnectionIsClosed() throws {
        let live = try Live()
        defer { live.stop() }
        let client = try Raw(port: live.port)
        client.send("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        let r = client.read(seconds: 5)
        let text = String(decoding: r.data, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK"), "\(text.prefix(200))")
        let closed = try #require(r.closedAfter, "a kept-alive connection idle for 5 s is still open")
        #expect(closed >= 0.9 && closed < 2.5, "closed \(closed) s after the request (idle timeout 1 s)")
    }

    @Test func neverReadingStreamClientsAreEvicted() throws {
        let live = try Live()
        defer { live.stop() }
        // Small receive windows: the server's writes stall after a few kB (events at 30 a second, JPEGs at 10).
        let events = try Raw(port: live.port, receiveBuffer: 2048)
        events.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        let preview = try Raw(port: live.port, receiveBuffer: 2048)
        preview.send("GET /api/preview.mjpeg HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        usleep(300_000)
        #expect(live.eventClients() == 1)
        // Normal clients are answered meanwhile, and within stall + send buffer time the stuck ones are gone.
        var evicted = false
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            #expect(live.state() == 200)
            if live.eventClients() == 0 { evicted = true; break }
            usleep(200_000)
        }
        #expect(evicted, "the never-reading /api/events client is still counted after 20 s")
        // Both connections were closed by the server: what is in the buffers, then the end.
        #expect(events.read(seconds: 10).closedAfter != nil)
        #expect(preview.read(seconds: 10).closedAfter != nil, "the never-reading preview client was not evicted")
    }

    @Test func aBodyTrickledPastTheBodyTimeoutIsClosed() throws {
        let live = try Live()
        defer { live.stop() }
        let client = try Raw(port: live.port)
        client.send("PATCH /api/stages/compose0 HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nContent-Length: 100\r\n\r\n{\"analysis-fps\"")
        let r = client.read(seconds: 5)
        let closed = try #require(r.closedAfter, "still open after 5 s")
        #expect(closed >= 0.9 && closed < 2.5, "closed after \(closed) s (body timeout 1 s)")
        #expect(r.data.isEmpty, "\(String(decoding: r.data, as: UTF8.self))")
    }

    /// The limits hold before the token is looked at: no Authorization header, still 431 and 413, not 401.
    @Test func theLimitsHoldBeforeTheToken() throws {
        let live = try Live(token: "sesame")
        defer { live.stop() }
        let line = try Raw(port: live.port)
        line.send("GET /" + String(repeating: "a", count: 64 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        #expect(line.answer(seconds: 5).status == "HTTP/1.1 431 Request Header Fields Too Large")
        let body = try Raw(port: live.port)
        body.send("PATCH /api/stages/compose0 HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nContent-Length: 10485760\r\n\r\n")
        #expect(body.answer(seconds: 5).status == "HTTP/1.1 413 Payload Too Large")
        // And a request within the limits still needs the token.
        #expect(live.state() == 401)
    }

    @Test func anUpgradeAskedOfAStreamIsRefusedAndHoldsNoPlace() throws {
        let live = try Live()
        defer { live.stop() }
        let client = try Raw(port: live.port)
        client.send(
            "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let a = client.answer(seconds: 5)
        #expect(a.status == "HTTP/1.1 400 Bad Request", "\(a.text.prefix(300))")
        #expect(a.text.contains("not a WebSocket: expected a GET without 'Upgrade: websocket'"))
        #expect(a.closedAfter != nil)
        #expect(live.eventClients() == 0)
    }

    @Test func beyondTheConnectionCapNewConnectionsWait() throws {
        var limits = Self.limits
        limits.connections = 4
        limits.headTimeout = 3
        let live = try Live(limits: limits)
        defer { live.stop() }
        let held = try (0..<4).map { _ in try Raw(port: live.port) }
        usleep(200_000)
        // The fifth is queued by the kernel, not answered while four are held.
        let fifth = try Raw(port: live.port)
        fifth.send("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n")
        #expect(fifth.read(seconds: 0.8).data.isEmpty)
        // Once the held ones go (closed here, or by the head timeout), it is answered.
        for h in held { shutdown(h.fd, Int32(SHUT_RDWR)) }
        let a = fifth.answer(seconds: 5)
        #expect(a.status == "HTTP/1.1 200 OK", "\(a.text.prefix(200))")
    }

    /// Descriptors run short (the soft limit lowered under a running viewfinder to 16 above what it uses): the
    /// listener keeps a reserve for the rest of the process (out of descriptors, libdispatch traps), so it stops
    /// accepting instead of taking the last ones, says so once, lets clients wait in the backlog, and answers them
    /// within a second or two of descriptors being free again (the limit raised back), with one line saying so. The
    /// process never dies. (FlyingFox's port refused connections for good, silently; the first Hummingbird version
    /// took every descriptor and the process died of SIGILL in 1 run of 5.)
    @Test(.tags(.process)) func theListenerKeepsDescriptorsForTheProcessAndAnswersWhenSomeAreFree() throws {
        signal(SIGPIPE, SIG_IGN)
        let port = Tools.freePort()
        let vf = try ControlTools.Running(
            ["launch", "--http", "127.0.0.1:\(port)", "videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=10/1 ! fakesink"],
            port: port)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")
        #expect(live(vf.base) == 200)
        let pid = vf.process.processIdentifier
        let used = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        let (soft, hard) = (try #require(numbers.first), try #require(numbers.dropFirst().first))
        func setLimit(_ n: Int) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            p.arguments = ["--pid", String(pid), "--nofile=\(n):\(hard)"]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        try setLimit(used + 16)
        var held: [Raw] = []
        for _ in 0..<48 { if let r = try? Raw(port: port) { held.append(r) } }
        usleep(1_500_000)
        let starved = try Raw(port: port)
        starved.send("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        #expect(starved.read(seconds: 1).data.isEmpty, "answered with 16 descriptors left")
        held.removeAll()
        // Still short (the limit is still low): still waiting.
        #expect(starved.read(seconds: 1.5).data.isEmpty, "answered with 16 descriptors left")
        try setLimit(soft)
        let a = starved.answer(seconds: 10)
        #expect(a.status == "HTTP/1.1 200 OK", "\(a.text.prefix(200)) / \(vf.stderr)")
        #expect(live(vf.base) == 200)
        let said = vf.stderr.components(separatedBy: "viewfinder.control warning: not accepting connections: ").count - 1
        #expect(said == 1, "\(vf.stderr)")
        #expect(vf.stderr.contains("descriptors left of \(used + 16) (keeping 32 for the rest of the process)"), "\(vf.stderr)")
        #expect(vf.stderr.contains("viewfinder.control warning: accepting connections again"), "\(vf.stderr)")
        kill(pid, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
    }

    /// Started with 128 descriptors, the server takes at most 64 connections and leaves 32 descriptors free: 200 held
    /// ones cannot use up the process's descriptors (libdispatch traps without one), the rest wait in the backlog.
    @Test(.tags(.process)) func theConnectionCapStaysUnderHalfTheDescriptorLimit() throws {
        signal(SIGPIPE, SIG_IGN)
        let port = Tools.freePort()
        let vf = try ControlTools.Running(
            ["launch", "--http", "127.0.0.1:\(port)", "videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=10/1 ! fakesink"],
            port: port, prefix: ["/usr/bin/prlimit", "--nofile=128:128", "--"])
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")
        var held: [Raw] = []
        for _ in 0..<200 { if let r = try? Raw(port: port) { held.append(r) } }
        usleep(1_000_000)
        let serverSide = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(vf.process.processIdentifier)/fd").count) ?? 0
        #expect(serverSide < 128, "\(serverSide) descriptors open")
        #expect(!vf.stderr.contains("cannot accept connections"), "\(vf.stderr)")
        held.removeAll()
        #expect(live(vf.base) == 200)
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
    }

    /// `GET /api/state`'s status by curl, -1 when unanswered in 5 s.
    func live(_ base: String) -> Int { (try? ControlTools.curl("GET", base + "/api/state", maxTime: 5).status) ?? -1 }
}
