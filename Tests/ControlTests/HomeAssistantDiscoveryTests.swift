import Foundation
import TestSupport
import Testing

/// `--discovery homeassistant` through the real binary and a real mosquitto, read with mosquitto_sub as Home Assistant
/// reads it: the retained documents, the shutter pressed as Home Assistant presses it, the photo its image entity would
/// fetch, a number set, and under `serve` the documents cleared when a camera is removed.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct HomeAssistantDiscoveryTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// The retained configs under `prefix/#` for the node, by object id, decoded (empty payloads left out).
    static func configs(_ broker: Broker, node: String) throws -> [String: (component: String, json: [String: Any])] {
        // Retained messages arrive at once on subscribing; a second's wait, then the subscriber is stopped (mosquitto_sub's
        // own -W timer is a SIGALRM, which the test runner's children have blocked).
        let sub = try broker.subscriber(["homeassistant/+/\(node)/+/config"])
        usleep(1_500_000)
        sub.stop()
        let lines = sub.lines
        var out: [String: (String, [String: Any])] = [:]
        for line in lines {
            guard let space = line.firstIndex(of: " ") else { continue }
            let parts = line[..<space].split(separator: "/")
            guard parts.count == 5, let o = try? JSONSerialization.jsonObject(with: Data(line[line.index(after: space)...].utf8)) as? [String: Any]
            else { continue }
            out[String(parts[3])] = (String(parts[1]), o)
        }
        return out
    }

    @Test func aLaunchedCameraIsOneDeviceWhoseShutterNumberAndPhotoWork() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let photos = Tools.tempDir()
        let run = try ControlTools.launch(
            "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! compose ! capture name=cap directory=\(photos.path) auto=false ! fakesink",
            extra: ["--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cam", "--discovery", "homeassistant"])
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        let watch = try broker.subscriber(["cam/reply", "cam/photo", "cam/state"])
        defer { watch.stop() }
        var found: [String: (component: String, json: [String: Any])] = [:]
        for _ in 0..<10 where found["shutter"] == nil {
            found = try Self.configs(broker, node: "cam")
        }
        // Every document has what its component requires, one device, availability from cam/state.
        #expect(found.count >= 10, "\(found.keys.sorted())")
        let required: [String: [String]] = [
            "binary_sensor": ["state_topic"], "button": ["command_topic"], "sensor": ["state_topic"], "number": ["command_topic"],
            "select": ["command_topic", "options"], "switch": ["command_topic"], "image": ["url_topic"],
        ]
        for (object, c) in found {
            for key in required[c.component] ?? ["unknown component"] { #expect(c.json[key] != nil, "\(object) (\(c.component)): no \(key)") }
            #expect((c.json["device"] as? [String: Any])?["identifiers"] as? [String] == ["cam"])
            #expect((c.json["availability"] as? [[String: Any]])?.first?["topic"] as? String == "cam/state")
        }
        #expect(Set(found.values.map(\.component)) == Set(required.keys), "\(Set(found.values.map(\.component)))")
        // The shutter, pressed: its payload on its command topic; the photo's URL arrives retained and serves the JPEG.
        let shutter = try #require(found["shutter"]?.json)
        try broker.publish(try #require(shutter["command_topic"] as? String), try #require(shutter["payload_press"] as? String))
        #expect(watch.wait(timeout: 20) { $0.lines.contains { $0.hasPrefix("cam/photo http://") } }, "\(watch.lines)")
        let url = try #require(watch.lines.last { $0.hasPrefix("cam/photo ") }).dropFirst("cam/photo ".count)
        let jpeg = try Tools.run("/usr/bin/curl", ["-s", "-f", "-o", photos.appendingPathComponent("got.jpg").path, "-w", "%{content_type}", String(url)], timeout: 10)
        #expect(jpeg.code == 0 && jpeg.out == "image/jpeg", "\(url): \(jpeg.code) \(jpeg.out)")
        // A number, set as Home Assistant sends it (its template rendered with a value in range): the bridge applies it.
        let cooldown = try #require(found["cap_cooldown"]?.json)
        let template = try #require(cooldown["command_template"] as? String)
        try broker.publish(
            try #require(cooldown["command_topic"] as? String), template.replacingOccurrences(of: "{{ value | float }}", with: "2.5"))
        #expect(watch.wait(timeout: 10) { $0.json("cam/reply").contains { $0["command"] as? String == "set" && $0["ok"] as? Bool == true } }, "\(watch.lines)")
        let stages = try ControlTools.curl("GET", run.base + "/api/stages").json["stages"] as? [[String: Any]] ?? []
        let cap = stages.first { $0["name"] as? String == "cap" }?["properties"] as? [[String: Any]] ?? []
        #expect(cap.first { $0["name"] as? String == "cooldown" }?["value"] as? Double == 2.5, "\(cap)")
        kill(run.process.processIdentifier, SIGINT)
        #expect(run.finish(timeout: 20) == 0, "\(run.stderr)")
        // Unavailable after: the bridge's last state is `stopped`; the documents stay (the device comes back with the process).
        #expect(watch.json("cam/state").last?["state"] as? String == "stopped")
        #expect(try Self.configs(broker, node: "cam").count == found.count)
    }

    @Test func serveRemovesARemovedCamerasEntities() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let dir = Tools.tempDir()
        try "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! compose ! fakesink\n"
            .write(to: dir.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        try "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! fakesink\n"
            .write(to: dir.appendingPathComponent("yard.pipeline"), atomically: true, encoding: .utf8)
        let serve = try ControlTools.Running(
            ["serve", dir.path, "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "site", "--discovery", "homeassistant"], port: 0)
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) } }
        var door: [String: (component: String, json: [String: Any])] = [:], yard = door
        for _ in 0..<10 where door["compose0_score"] == nil || yard["running"] == nil {
            door = try Self.configs(broker, node: "site_door"); yard = try Self.configs(broker, node: "site_yard")
        }
        #expect(door["compose0_score"] != nil && door["running"] != nil, "\(door.keys.sorted())")
        #expect(yard["running"] != nil && yard["compose0_score"] == nil, "\(yard.keys.sorted())")
        let replies = try broker.subscriber(["site/reply"])
        defer { replies.stop() }
        try broker.publish("site/cmd/remove", #"{"name": "door"}"#)
        #expect(replies.wait(timeout: 30) { $0.json("site/reply").contains { $0["ok"] as? Bool == true } }, "\(replies.lines) \(serve.stderr)")
        // door's documents are gone (empty retained messages clear them); yard's stay.
        var left = door
        for _ in 0..<10 where !left.isEmpty { left = try Self.configs(broker, node: "site_door") }
        #expect(left.isEmpty, "\(left.keys.sorted())")
        #expect(try Self.configs(broker, node: "site_yard").count == yard.count)
        kill(serve.process.processIdentifier, SIGINT)
        #expect(serve.finish(timeout: 20) == 0, "\(serve.stderr)")
    }

    @Test func badDiscoveryArgumentsAreRefusedBeforeAnythingRuns() throws {
        for (args, message) in [
            (["--mqtt", "127.0.0.1:1", "--discovery", "openhab"], "bad value 'openhab' for --discovery: expected homeassistant"),
            (["--discovery", "homeassistant"], "--discovery without --mqtt: expected --mqtt HOST:PORT too"),
        ] {
            let r = try Tools.run(Tools.viewfinder, ["launch"] + args + ["videotestsrc num-buffers=1 ! fakesink"], timeout: 30)
            #expect(r.code == 2 && r.err.contains(message), "\(args): \(r.code) \(r.err)")
        }
    }
}
