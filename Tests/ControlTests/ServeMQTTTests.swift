import Foundation
import TestSupport
import Testing

/// Several `serve` processes on one broker (a real mosquitto): each pipeline under `TOPIC/NAME/...` for a fleet view
/// (`TOPIC/+/state`), each process's retained list and commands under its `--instance`, and a camera moved from one
/// process to the other by `remove` on one and `add` on the other, its recording going on in a new file.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ServeMQTTTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    static func door(_ file: URL) -> String {
        "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! x264enc tune=zerolatency speed-preset=ultrafast ! matroskamux ! filesink location=\(file.path)"
    }

    @Test func aCameraMovesBetweenProcessesSharingOneBroker() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let fleet = try broker.subscriber(["site/+/state", "site/pipelines/+", "site/reply/+"])
        defer { fleet.stop() }
        let out = Tools.tempDir()
        let first = out.appendingPathComponent("door-1.mkv"), second = out.appendingPathComponent("door-2.mkv")
        let one = Tools.tempDir(), two = Tools.tempDir()
        try Self.door(first).write(to: one.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        func serve(_ dir: URL, _ instance: String) throws -> ControlTools.Running {
            try ControlTools.Running(
                ["serve", dir.path, "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "site", "--instance", instance], port: 0)
        }
        let a = try serve(one, "one"), b = try serve(two, "two")
        defer { for p in [a, b] where p.process.isRunning { kill(p.process.processIdentifier, SIGKILL) } }
        // The fleet view: door plays (from one); two's list is empty.
        #expect(fleet.wait(timeout: 20) { $0.json("site/door/state").contains { $0["state"] as? String == "running" } }, "\(fleet.lines)")
        #expect(fleet.wait(timeout: 10) { s in
            s.json("site/pipelines/one").contains { ($0["pipelines"] as? [[String: Any]])?.first?["state"] as? String == "playing" }
        })
        #expect(fleet.wait(timeout: 10) { !$0.json("site/pipelines/two").isEmpty })
        #expect((fleet.json("site/pipelines/two").last?["pipelines"] as? [Any])?.isEmpty == true)
        sleep(2)

        // A bad command is answered on the process's reply topic, naming the position; nothing changes.
        try broker.publish("site/cmd/two/add", #"{"name": "door", "description": "videotestsrc ! ! fakesink"}"#)
        #expect(fleet.wait(timeout: 10) { $0.json("site/reply/two").contains { $0["ok"] as? Bool == false } })
        let refused = try #require(fleet.json("site/reply/two").last)
        #expect(refused["position"] as? Int == 15 && refused["field"] as? String == "description", "\(refused)")

        // The move: removed from one (its recording finalised), added to two (a new file).
        try broker.publish("site/cmd/one/remove", #"{"name": "door"}"#)
        #expect(fleet.wait(timeout: 20) { $0.json("site/reply/one").contains { $0["ok"] as? Bool == true } }, "\(fleet.lines)")
        #expect(!FileManager.default.fileExists(atPath: one.appendingPathComponent("door.pipeline").path))
        let before = try Tools.ffprobeVideoFrames(first.path).count
        #expect(before > 30, "first file: \(before) frames")
        let add = try JSONSerialization.data(withJSONObject: ["name": "door", "description": Self.door(second)])
        try broker.publish("site/cmd/two/add", String(decoding: add, as: UTF8.self))
        #expect(fleet.wait(timeout: 20) { $0.json("site/reply/two").contains { $0["ok"] as? Bool == true } }, "\(fleet.lines)")
        #expect(FileManager.default.fileExists(atPath: two.appendingPathComponent("door.pipeline").path))
        #expect(fleet.wait(timeout: 10) { s in
            s.json("site/pipelines/two").contains { ($0["pipelines"] as? [[String: Any]])?.first?["state"] as? String == "playing" }
        })
        sleep(2)
        for p in [a, b] { kill(p.process.processIdentifier, SIGINT) }
        #expect(a.finish(timeout: 20) == 0, "\(a.stderr)")
        #expect(b.finish(timeout: 20) == 0, "\(b.stderr)")
        #expect(try Tools.ffprobeVideoFrames(second.path).count > 30)
        // Each process said it stopped on its retained list.
        #expect(fleet.json("site/pipelines/one").last?["state"] as? String == "stopped")
        #expect(fleet.json("site/pipelines/two").last?["state"] as? String == "stopped")
    }
}
