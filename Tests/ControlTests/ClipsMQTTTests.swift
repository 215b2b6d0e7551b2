import Foundation
import TestSupport
import Testing

/// Clips asked for over MQTT (`TOPIC/cmd/clip`) with a real broker and clients, announced on `TOPIC/events/clip` with a
/// URL the control server answers.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ClipsMQTTTests {
    @Test func aClipCommandWritesAClipAnnouncedWithItsURL() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let dir = Tools.tempDir().appendingPathComponent("clips")
        let sub = try MQTTBridgeTests.subscriber(broker, ["cams/door/reply", "cams/door/events/clip"])
        defer { sub.stop() }
        let http = Tools.freePort()
        let description =
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 "
            + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! clips pre=1 post=1 directory=\(dir.path)"
        let (p, o, e) = try Tools.start(
            Tools.viewfinder, ["launch", "--http", "127.0.0.1:\(http)", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door", description])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let connected = sub.wait(timeout: 20) { _ in ((try? String(contentsOf: e, encoding: .utf8)) ?? "").contains("mqtt: connected to") }
        #expect(connected)
        usleep(1_500_000)  // a second of stream in the ring
        #expect(try broker.publish("cams/door/cmd/clip", "{\"element\": \"nope\"}") == 0)
        #expect(try broker.publish("cams/door/cmd/clip", "{}") == 0)
        // Events are {"name", "source", "fields"}.
        func saved(_ s: Broker.Subscriber) -> [[String: Any]] {
            s.json("cams/door/events/clip").compactMap { $0["fields"] as? [String: Any] }.filter { $0["event"] as? String == "saved" }
        }
        #expect(sub.wait(timeout: 15) { !saved($0).isEmpty }, "\(sub.lines)")
        let replies = sub.json("cams/door/reply")
        #expect(replies.first?["ok"] as? Bool == false && replies.first?["field"] as? String == "element", "\(replies)")
        #expect((replies.first?["error"] as? String ?? "").contains("no clip recorder 'nope': expected one of vf_clips0"), "\(replies)")
        let opened = (replies.last?["clips"] as? [[String: Any]])?.first
        #expect(replies.last?["ok"] as? Bool == true && opened?["state"] as? String == "opened", "\(replies)")
        let saved = try #require(saved(sub).first)
        let url = try #require(saved["url"] as? String)
        #expect(url == "http://127.0.0.1:\(http)/clips/vf_clips0/CLIP_00001.mp4")
        #expect(saved["trigger"] as? String == "mqtt")
        // The URL answers the clip itself.
        let out = Tools.tempDir().appendingPathComponent("got.mp4")
        let curl = try Tools.run("/usr/bin/curl", ["-s", "-o", out.path, "-w", "%{http_code}", url])
        #expect(curl.out == "200")
        #expect(try Data(contentsOf: out) == Data(contentsOf: dir.appendingPathComponent("CLIP_00001.mp4")))
        #expect(try Tools.ffprobeFrames(out.path) == saved["frames"] as? Int)
        kill(p.processIdentifier, SIGINT)
        let r = Tools.finish(p, o, e, timeout: 20)
        #expect(r.code == 0, "\(r.err)")
    }
}
