import Foundation
import TestTags
import Testing

@testable import GStreamerKit

/// RTSPServer on its own (the host's `rtspserve` tests use the real binary): binding, relaying, stopping.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct RTSPServerTests {
    static let payload = "rtph264depay ! rtph264pay name=pay0 pt=96 config-interval=-1"

    /// A live H.264 RTP source into an appsink named s.
    static func feed(buffers: Int = -1) throws -> Pipeline {
        try Pipeline.parse(
            "videotestsrc is-live=true num-buffers=\(buffers) ! video/x-raw,width=160,height=120,framerate=30/1 ! x264enc tune=zerolatency"
                + " speed-preset=ultrafast key-int-max=15 ! rtph264pay ! appsink name=s sync=false async=false")
    }

    /// A TCP port nothing listens on right now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    @Test func bindsAtCreationSoASecondServerOnThePortFails() throws {
        let p = try Self.feed()
        let sink = try #require(p.appSink(named: "s"))
        let port = Self.freePort()
        let first = try RTSPServer(address: "127.0.0.1", port: port, path: "/a", payload: Self.payload, feed: sink)
        #expect(first.url == "rtsp://127.0.0.1:\(port)/a")
        #expect {
            _ = try RTSPServer(address: "127.0.0.1", port: port, path: "/b", payload: Self.payload, feed: sink)
        } throws: { error in
            guard let e = error as? GStreamerError else { return false }
            return e.domain == .resource && e.message.contains("Address already in use")
        }
        // Never started: stop only closes the socket, and the port is free again.
        first.stop()
        let again = try RTSPServer(address: "127.0.0.1", port: port, path: "/a", payload: Self.payload, feed: sink)
        again.stop()
    }

    /// The listening socket's backlog is the client limit (64), not gst-rtsp-server's 5: `ss` reads it from the
    /// kernel (a listening socket's Send-Q). With 5, a burst of connections overflowed the accept queue and came in
    /// out of order.
    @Test func theListenBacklogIsTheClientLimit() throws {
        let p = try Self.feed()
        let sink = try #require(p.appSink(named: "s"))
        let port = Self.freePort()
        let server = try RTSPServer(address: "127.0.0.1", port: port, path: "/live", payload: Self.payload, feed: sink)
        defer { server.stop() }
        let ss = Process()
        ss.executableURL = URL(fileURLWithPath: "/usr/bin/ss")
        ss.arguments = ["-ltnH", "sport = :\(port)"]
        let out = Pipe()
        ss.standardOutput = out
        try ss.run()
        ss.waitUntilExit()
        let line = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // "LISTEN 0 64 127.0.0.1:PORT 0.0.0.0:*": state, Recv-Q, Send-Q (the backlog), local address.
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields.count >= 4 && fields[0] == "LISTEN" && fields[2] == "64" && fields[3] == "127.0.0.1:\(port)", "\(line)")
    }

    /// `clientCount` (the `/metrics` viewers of an `rtspserve`): a connection counts from its accept to its close.
    @Test func countsTheConnectionsOpenNow() throws {
        let p = try Self.feed()
        let sink = try #require(p.appSink(named: "s"))
        let port = Self.freePort()
        let server = try RTSPServer(address: "127.0.0.1", port: port, path: "/live", payload: Self.payload, feed: sink)
        defer { server.stop() }
        server.start()
        #expect(server.clientCount == 0)
        func waitFor(_ n: Int) -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while server.clientCount != n && Date() < deadline { usleep(20_000) }
            return server.clientCount == n
        }
        var fds: [Int32] = []
        for _ in 0..<2 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = UInt16(port).bigEndian
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &a) { ptr in
                ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            fds.append(fd)
        }
        #expect(waitFor(2))
        close(fds[0])
        #expect(waitFor(1))
        close(fds[1])
        #expect(waitFor(0))
    }

    @Test func relaysPacketsOnlyWhileAClientWatches() throws {
        let p = try Self.feed(buffers: 90)
        let sink = try #require(p.appSink(named: "s"))
        let port = Self.freePort()
        let server = try RTSPServer(address: "127.0.0.1", port: port, path: "/live", payload: Self.payload, feed: sink)
        server.start()
        p.setState(.playing)
        usleep(500_000)
        // No client yet: packets arrive and go nowhere.
        let before = server.counts
        #expect(before.received > 0)
        #expect(before.forwarded == 0 && before.medias == 0)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = [
            "-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
            "rtsp://127.0.0.1:\(port)/live",
        ]
        let out = Pipe()
        probe.standardOutput = out
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        let deadline = Date().addingTimeInterval(15)
        while probe.isRunning && Date() < deadline { usleep(20_000) }
        if probe.isRunning { kill(probe.processIdentifier, SIGKILL) }
        probe.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,160,120")
        let after = server.counts
        #expect(after.medias == 1)
        #expect(after.forwarded > 0 && after.forwarded <= after.received)
        p.setState(.null)
        server.stop()
        server.stop()  // twice is fine
    }
}
