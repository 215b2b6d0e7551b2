import Foundation
import Synchronization
import TestTags
import Testing

@testable import GStreamerKit

/// WebRTCServer on its own (the page and the signalling are tested with the real binary): no encoding without a
/// peer, an offer per peer, the peer limit, peers closed by stop.
@Suite(.serialized, .tags(.live, .network), .tier) struct WebRTCServerTests {
    /// Live raw video into an appsink named s.
    static func feed() throws -> Pipeline {
        try Pipeline.parse(
            "videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! appsink name=s sync=false async=false"
                + " max-buffers=2 drop=true")
    }

    /// What one peer was told, and whether it was closed.
    final class Inbox: Sendable {
        let signals = Mutex<[WebRTCSignal]>([])
        let closed = Atomic<Bool>(false)
        var offer: String? {
            signals.withLock { s in
                s.lazy.compactMap { if case .offer(let sdp) = $0 { return sdp } else { return nil } }.first
            }
        }
        var candidates: [String] {
            signals.withLock { s in s.compactMap { if case .candidate(let c, _) = $0 { return c } else { return nil } } }
        }
    }

    static func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    @Test func encodesOnlyForPeersAndOffersEachOne() throws {
        let p = try Self.feed()
        let server = try WebRTCServer(feed: try #require(p.appSink(named: "s")))
        #expect(throws: WebRTCServer.Refusal.self) { _ = try server.addPeer(send: { _ in }) }
        server.start()
        p.setState(.playing)
        defer { p.setState(.null) }
        // Nobody watches: frames arrive, none is encoded.
        #expect(Self.waitFor(3) { server.counts.received >= 15 })
        #expect(server.counts.forwarded == 0 && server.counts.encoded == 0)

        let inbox = Inbox()
        let peer = try server.addPeer(
            send: { s in inbox.signals.withLock { $0.append(s) } }, onClose: { inbox.closed.store(true, ordering: .relaxed) })
        #expect(Self.waitFor(5) { inbox.offer != nil })
        let sdp = inbox.offer ?? ""
        #expect(sdp.contains("m=video") && sdp.contains("VP8/90000") && sdp.contains("a=sendonly"), "\(sdp)")
        // Loopback-only by default: every candidate is 127.0.0.1.
        #expect(Self.waitFor(5) { !inbox.candidates.isEmpty })
        #expect(inbox.candidates.allSatisfy { $0.split(separator: " ")[4] == "127.0.0.1" }, "\(inbox.candidates)")
        let before = server.counts.encoded
        #expect(Self.waitFor(5) { server.counts.encoded >= before + 15 }, "\(server.counts)")
        #expect(server.peerCount == 1)

        // Up to the limit; the next is refused naming it.
        var others: [WebRTCPeer] = []
        for _ in 1..<WebRTCServer.peerLimit { others.append(try server.addPeer(send: { _ in })) }
        #expect {
            _ = try server.addPeer(send: { _ in })
        } throws: { error in
            (error as? WebRTCServer.Refusal)?.message == "webrtcserve: at most 8 viewers at once (8 connected): close another viewer first"
        }
        // One leaves: its place is free.
        others.removeLast().close()
        #expect(Self.waitFor(3) { server.peerCount == 7 })

        // stop() closes the peers that are left (their owners hear it) and refuses new ones.
        server.stop()
        let closed = inbox.closed.load(ordering: .relaxed)
        #expect(closed)
        #expect(server.peerCount == 0)
        #expect {
            _ = try server.addPeer(send: { _ in })
        } throws: { error in
            (error as? WebRTCServer.Refusal)?.message == "webrtcserve: the stream is not running (not started yet, or ended)"
        }
        _ = peer
    }

    @Test func h264OffersH264() throws {
        let p = try Self.feed()
        let server = try WebRTCServer(feed: try #require(p.appSink(named: "s")), codec: .h264)
        server.start()
        p.setState(.playing)
        defer {
            server.stop()
            p.setState(.null)
        }
        let inbox = Inbox()
        _ = try server.addPeer(send: { s in inbox.signals.withLock { $0.append(s) } })
        #expect(Self.waitFor(5) { inbox.offer != nil })
        #expect(inbox.offer?.contains("H264/90000") == true, "\(inbox.offer ?? "")")
        #expect(Self.waitFor(5) { server.counts.encoded >= 15 }, "\(server.counts)")
    }

    /// ICE gathers on the address it was given only (the control server's): 127.0.0.2 here, so every candidate is
    /// 127.0.0.2 and none is 127.0.0.1 or another interface's. (A non-loopback address works the same way, but
    /// tests only use loopback.) An address the agent cannot take refuses the peer instead of gathering everywhere.
    @Test func gathersOnTheGivenAddressOnly() throws {
        let p = try Self.feed()
        let server = try WebRTCServer(feed: try #require(p.appSink(named: "s")))
        server.iceAddress.withLock { $0 = "127.0.0.2" }
        server.start()
        p.setState(.playing)
        defer {
            server.stop()
            p.setState(.null)
        }
        let inbox = Inbox()
        let peer = try server.addPeer(send: { s in inbox.signals.withLock { $0.append(s) } })
        #expect(Self.waitFor(5) { inbox.offer != nil && !inbox.candidates.isEmpty })
        usleep(500_000)
        #expect(inbox.candidates.allSatisfy { $0.split(separator: " ").count > 4 && $0.split(separator: " ")[4] == "127.0.0.2" }, "\(inbox.candidates)")
        peer.close()
        server.iceAddress.withLock { $0 = "not an address" }
        #expect(throws: WebRTCServer.Refusal.self) { _ = try server.addPeer(send: { _ in }) }
    }
}
