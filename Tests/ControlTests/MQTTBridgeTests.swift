import Foundation
import TestSupport
import Testing

/// `--mqtt`/`--topic` through the real binary, Debian's real broker (`mosquitto` on a free loopback port)
/// and its real clients (`mosquitto_sub`, `mosquitto_pub`).
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct MQTTBridgeTests {
    static let source = "videotestsrc is-live=true pattern=ball num-buffers=%d ! video/x-raw,width=320,height=240,framerate=30/1"
    static let compose = "compose analysis-width=160 warmup=0"

    /// `viewfinder launch --mqtt 127.0.0.1:PORT --topic cams/door DESCRIPTION`, started.
    struct Run {
        let process: Process
        let out: URL, err: URL
        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

        init(port: UInt16, _ description: String, topic: String = "cams/door") throws {
            (process, out, err) = try Tools.start(
                Tools.viewfinder, ["launch", "--mqtt", "127.0.0.1:\(port)", "--topic", topic, description])
        }

        /// Waits until stderr contains `text` (or the process ended); whether it did.
        func wait(for text: String, timeout: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if stderr.contains(text) { return true }
                if !process.isRunning { return stderr.contains(text) }
                usleep(50_000)
            }
            return false
        }

        /// Waits for the end (killed after `timeout`): exit code and output.
        func finish(timeout: Double = 30) -> Tools.Result { Tools.finish(process, out, err, timeout: timeout) }
    }

    /// records.json's photos.
    static func records(_ dir: URL) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("records.json")),
            let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return [] }
        return top["photos"] as? [[String: Any]] ?? []
    }

    /// A subscriber on `topics` that has really subscribed (a probe message came back).
    static func subscriber(_ broker: Broker, _ topics: [String]) throws -> Broker.Subscriber {
        let sub = try Broker.Subscriber(port: broker.port, topics: topics + ["probe/#"])
        let ready = sub.wait(timeout: 5) { s in
            _ = try? broker.publish("probe/x", "1")
            return s.lines.contains("probe/x 1")
        }
        #expect(ready, "mosquitto_sub did not subscribe: \(sub.lines)")
        return sub
    }

    @Test func eventsGoOutAsJSONAndTheStateIsRetained() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let sub = try Self.subscriber(broker, ["cams/door/#"])
        defer { sub.stop() }
        let description = String(format: Self.source, 90) + " ! \(Self.compose) ! fakesink"
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "--mqtt", "127.0.0.1:\(broker.port)", "--topic", "cams/door", description], timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("mqtt: connected to 127.0.0.1:\(broker.port) topic cams/door"), "\(r.err)")
        #expect(!r.err.contains("cannot reach"), "\(r.err)")

        // Composition events: EventHub's JSON, one per analysis, with the verdict's fields.
        #expect(sub.wait(timeout: 5) { $0.json("cams/door/state").last?["state"] as? String == "stopped" }, "\(sub.lines.suffix(5))")
        let events = sub.json("cams/door/events/composition")
        #expect(events.count >= 5, "\(sub.lines.prefix(10))")
        for e in events {
            let fields = e["fields"] as? [String: Any] ?? [:]
            #expect(e["name"] as? String == "viewfinder/composition" && e["source"] as? String == "vf_compose0_sink")
            #expect(fields["stage"] as? String == "compose0" && fields["rule"] is String && fields["score"] is Double, "\(e)")
        }
        // Besides them only the run's own state events (`running` is announced before the broker connection is
        // up, so it may be missed; none other than these three).
        #expect(
            sub.lines.allSatisfy {
                !$0.hasPrefix("cams/door/events/") || $0.hasPrefix("cams/door/events/composition ") || $0.hasPrefix("cams/door/events/state ")
            })
        let runStates = sub.json("cams/door/events/state").compactMap { ($0["fields"] as? [String: Any])?["state"] as? String }
        #expect(runStates.allSatisfy { ["running", "stopping", "ended"].contains($0) }, "\(runStates)")

        // State: published while running, then "stopped" with the final figures.
        let states = sub.json("cams/door/state")
        #expect(states.contains { $0["state"] as? String == "running" && ($0["framesIn"] as? Int ?? 0) > 0 }, "\(states)")
        let last = try #require(states.last)
        #expect(last["state"] as? String == "stopped" && last["framesIn"] as? Int == 90 && last["framesOut"] as? Int == 90, "\(last)")
        sub.stop()

        // Retained: a subscriber arriving after the run still gets it.
        let late = try broker.subscribeOnce("cams/door/state", count: 1, seconds: 3)
        #expect(late.count == 1 && late.first?.hasPrefix("cams/door/state {") == true, "\(late)")
        let retained = try #require(
            try JSONSerialization.jsonObject(with: Data((late.first ?? "").dropFirst("cams/door/state ".count).utf8)) as? [String: Any])
        #expect(retained["state"] as? String == "stopped" && retained["framesOut"] as? Int == 90, "\(retained)")
    }

    @Test func aCaptureCommandTakesOnePhoto() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let dir = Tools.tempDir().appendingPathComponent("photos")
        let sub = try Self.subscriber(broker, ["cams/door/reply"])
        defer { sub.stop() }
        let description = String(format: Self.source, 450) + " ! \(Self.compose) ! capture directory=\(dir.path) auto=false ! fakesink"
        let vf = try Run(port: broker.port, description)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.wait(for: "mqtt: connected to"), "\(vf.stderr)")
        usleep(500_000)  // frames flow
        #expect(try broker.publish("cams/door/cmd/capture", "{}") == 0)
        let deadline = Date().addingTimeInterval(10)
        while Self.records(dir).isEmpty && Date() < deadline { usleep(100_000) }
        usleep(500_000)  // no second photo comes
        #expect(try broker.publish("cams/door/cmd/stop", "{}") == 0)
        let r = vf.finish()
        #expect(r.code == 0, "\(r.err)")

        let photos = Self.records(dir)
        #expect(photos.count == 1, "\(photos)")
        let photo = try #require(photos.first)
        #expect(photo["trigger"] as? String == "manual", "\(photo)")
        let file = dir.appendingPathComponent(photo["file"] as? String ?? "?").path
        #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        let jpeg = FileManager.default.contents(atPath: file) ?? Data()
        #expect(jpeg.count > 1000 && jpeg.prefix(2) == Data([0xFF, 0xD8]), "\(jpeg.count) bytes")

        #expect(sub.wait(timeout: 5) { $0.json("cams/door/reply").count >= 2 }, "\(sub.lines)")
        let replies = sub.json("cams/door/reply")
        #expect(replies.first?["command"] as? String == "capture" && replies.first?["ok"] as? Bool == true, "\(replies)")
        #expect(replies.first?["trigger"] as? String == "manual")
        #expect(replies.last?["command"] as? String == "stop" && replies.last?["state"] as? String == "stopping", "\(replies)")
    }

    @Test func setChangesARuleAndBadCommandsAreAnsweredWithErrors() throws {
        let broker = try Broker()
        defer { broker.stop() }
        // A retained command left on the broker must not act when the camera subscribes.
        try broker.publish("cams/door/cmd/stop", "{}", retain: true)
        let sub = try Self.subscriber(broker, ["cams/door/reply", "cams/door/events/composition"])
        defer { sub.stop() }
        let description = String(format: Self.source, 450) + " ! \(Self.compose) rule=thirds ! fakesink"
        let vf = try Run(port: broker.port, description)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.wait(for: "mqtt: connected to"), "\(vf.stderr)")
        func replies() -> [[String: Any]] { sub.json("cams/door/reply") }
        func rules() -> [String] {
            sub.json("cams/door/events/composition").compactMap { ($0["fields"] as? [String: Any])?["rule"] as? String }
        }
        #expect(sub.wait(timeout: 5) { _ in rules().count >= 3 })
        #expect(vf.process.isRunning && replies().isEmpty, "\(replies())")
        #expect(Set(rules()) == ["thirds"], "\(rules())")

        // A command published retained is refused; the empty retained message that clears one is no command.
        try broker.publish("cams/door/cmd/capture", "{}", retain: true)
        #expect(sub.wait(timeout: 5) { _ in replies().count >= 1 }, "\(sub.lines.suffix(3))")
        let stale = try #require(replies().first)
        #expect(stale["command"] as? String == "capture" && stale["ok"] as? Bool == false, "\(stale)")
        #expect((stale["error"] as? String ?? "").contains("retained message on cams/door/cmd/capture ignored"), "\(stale)")
        try broker.publish("cams/door/cmd/capture", nil, retain: true)
        try broker.publish("cams/door/cmd/stop", nil, retain: true)

        // A good change: the reply says what changed, the following analyses judge with it.
        try broker.publish("cams/door/cmd/set", #"{"stage":"compose0","set":{"rule":"golden"}}"#)
        #expect(sub.wait(timeout: 5) { _ in replies().count >= 2 }, "\(replies())")
        let ok = replies()[1]
        #expect(ok["command"] as? String == "set" && ok["ok"] as? Bool == true && ok["stage"] as? String == "compose0", "\(ok)")
        #expect((ok["changed"] as? [String: Any])?["rule"] as? String == "golden", "\(ok)")
        let seen = rules().count
        #expect(sub.wait(timeout: 5) { _ in rules().count >= seen + 4 })
        #expect(rules().suffix(3).allSatisfy { $0 == "golden" }, "\(rules())")

        // Refusals name the field; one bad field changes nothing.
        let bad: [(String, String, String?, String)] = [
            ("set", #"{"stage":"compose0","set":{"rule":"thirds","zoom":2}}"#, "zoom", "no property 'zoom'"),
            ("set", #"{"stage":"compose0","set":{"rule":"spiral"}}"#, "rule", "bad value 'spiral'"),
            ("set", #"{"stage":"nope","set":{"rule":"thirds"}}"#, "stage", "no stage 'nope'"),
            ("set", #"{"stage":"compose0","set":{"engine":"faces"}}"#, "engine", "before start"),
            ("set", #"{"stage":"compose0","rule":"thirds"}"#, "rule", "unknown field 'rule'"),
            ("set", #"{"stage":"compose0"}"#, "set", "missing 'set'"),
            ("set", "{rule", nil, "bad JSON '{rule'"),
            // A property takes its own JSON type only, as PATCH does.
            (
                "set", #"{"stage":"compose0","set":{"analysis-fps":"5"}}"#, "analysis-fps",
                "compose0: 'analysis-fps' takes a JSON number (0.1 - 120.0), got a string"
            ),
            (
                "set", #"{"stage":"compose0","set":{"overlay":1}}"#, "overlay",
                "compose0: 'overlay' takes a JSON boolean (true or false), got a number"
            ),
            (
                "set", #"{"stage":"compose0","set":{"analysis-fps":1e400}}"#, "analysis-fps",
                "compose0: 'analysis-fps' takes a JSON number (0.1 - 120.0), got a number too large to represent"
            ),
            ("capture", #"{"timer":"soon"}"#, "timer", "expected an integer 0 - 60"),
            (
                "explode", "{}", nil,
                "unknown command topic 'cams/door/cmd/explode': expected cams/door/cmd/capture, cams/door/cmd/set, cams/door/cmd/stop"
            ),
            ("set", "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}", nil, "at most 65536"),
        ]
        let before = replies().count
        for (command, payload, _, _) in bad { try broker.publish("cams/door/cmd/\(command)", payload) }
        #expect(sub.wait(timeout: 5) { _ in replies().count >= before + bad.count }, "\(replies())")
        for (answer, (command, _, field, text)) in zip(replies().dropFirst(before), bad) {
            #expect(answer["command"] as? String == command && answer["ok"] as? Bool == false, "\(answer)")
            #expect(answer["field"] as? String == field, "\(command): \(answer)")
            #expect((answer["error"] as? String ?? "").contains(text), "\(text): \(answer)")
        }
        let after = rules().count
        #expect(sub.wait(timeout: 5) { _ in rules().count >= after + 3 })
        #expect(rules().suffix(3).allSatisfy { $0 == "golden" }, "\(rules())")

        // The reply's `changed` is typed JSON: a boolean and a number (an integer literal for a double).
        let answered = replies().count
        try broker.publish("cams/door/cmd/set", #"{"stage":"compose0","set":{"overlay":false,"analysis-fps":5}}"#)
        #expect(sub.wait(timeout: 5) { _ in replies().count > answered }, "\(replies())")
        let typed = replies().last?["changed"] as? [String: Any] ?? [:]
        #expect(typed["overlay"] as? Bool == false && ControlTools.jsonKind(typed["overlay"]) == "boolean", "\(typed)")
        #expect(typed["analysis-fps"] as? Double == 5 && ControlTools.jsonKind(typed["analysis-fps"]) == "number", "\(typed)")

        try broker.publish("cams/door/cmd/stop", "{}")
        let r = vf.finish()
        #expect(r.code == 0, "\(r.err)")
    }

    /// The measured problem: any payload on `cmd/stop`, even 16 bytes of garbage, stopped the camera. Every command
    /// now needs its JSON object; garbage, empty, wrongly typed, too deep or too large payloads are answered with an
    /// error on `TOPIC/reply` (what was wrong, what was expected) and change nothing: frames keep flowing.
    @Test func garbageAndMalformedPayloadsNeverStopTheCamera() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let sub = try Self.subscriber(broker, ["cams/door/reply", "cams/door/state"])
        defer { sub.stop() }
        let description = String(format: Self.source, 3000) + " ! \(Self.compose) rule=thirds ! fakesink"
        let vf = try Run(port: broker.port, description)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.wait(for: "mqtt: connected to"), "\(vf.stderr)")
        func replies() -> [[String: Any]] { sub.json("cams/door/reply") }
        func framesIn() -> Int { sub.json("cams/door/state").compactMap { $0["framesIn"] as? Int }.last ?? 0 }
        #expect(sub.wait(timeout: 10) { _ in framesIn() > 0 }, "\(sub.lines.suffix(3))")
        let before = framesIn()

        let garbage = Data([0x9F, 0x00, 0x7B, 0x22, 0xFF, 0x13, 0x5D, 0x41, 0xC3, 0x28, 0x7D, 0x0A, 0x01, 0xFE, 0x22, 0x3A])
        let deep = "{\"a\":" + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}"
        let bad: [(String, Data?, String?, String)] = [
            ("stop", garbage, nil, "bad JSON '"),
            ("stop", nil, nil, "empty payload: expected {}"),
            ("stop", Data("stop".utf8), nil, "bad JSON 'stop': expected {}"),
            ("stop", Data("null".utf8), nil, "bad JSON 'null': expected {}"),
            ("stop", Data(#"{"now": true}"#.utf8), "now", "unknown field 'now': expected {}"),
            ("stop", Data(deep.utf8), nil, "JSON nested 17 levels deep refused: at most 16, expected {}"),
            ("stop", Data(repeating: 0x7B, count: 70_000), nil, "payload of 70000 bytes refused: at most 65536"),
            ("capture", garbage, nil, "bad JSON '"),
            ("capture", nil, nil, "empty payload: expected {} or {\"timer\": seconds 0 - 60}"),
            ("capture", Data(#"{"timer": 4294967296}"#.utf8), "timer", "bad value '4294967296' for 'timer': expected an integer 0 - 60"),
            ("capture", Data(#"{"timer": 1e400}"#.utf8), "timer", "bad value 'a number too large to represent' for 'timer'"),
            ("set", garbage, nil, "bad JSON '"),
            ("set", Data(#"{"stage":"compose0","set":{"analysis-fps":-0,"rule":"golden"}}"#.utf8), "analysis-fps", "analysis-fps"),
            ("set", Data(#"{"stage":"compose0","set":{"analysis-fps":"NaN"}}"#.utf8), "analysis-fps", "takes a JSON number"),
        ]
        for (command, payload, _, _) in bad {
            if let payload { try broker.publish("cams/door/cmd/\(command)", bytes: payload) } else { try broker.publish("cams/door/cmd/\(command)", nil) }
        }
        #expect(sub.wait(timeout: 10) { _ in replies().count >= bad.count }, "\(replies())")
        #expect(replies().count == bad.count, "\(replies())")
        for (answer, (command, _, field, text)) in zip(replies(), bad) {
            #expect(answer["command"] as? String == command && answer["ok"] as? Bool == false, "\(answer)")
            #expect(answer["field"] as? String == field, "\(command): \(answer)")
            let error = answer["error"] as? String ?? ""
            #expect(error.contains(text) && (error.contains("expected") || error.contains(" takes ")), "\(text): \(answer)")
        }
        // Still running, frames still counted, no photo fired, the state never said stopping.
        #expect(vf.process.isRunning, "\(vf.stderr)")
        #expect(sub.wait(timeout: 5) { _ in framesIn() > before + 30 }, "frames stuck at \(framesIn()) (before: \(before))")
        #expect(sub.json("cams/door/state").allSatisfy { ["built", "running"].contains($0["state"] as? String) }, "\(sub.json("cams/door/state"))")
        #expect(!vf.stderr.contains("stopping"), "\(vf.stderr)")

        // The well-formed stop still stops.
        try broker.publish("cams/door/cmd/stop", "{}")
        let r = vf.finish()
        #expect(r.code == 0, "\(r.err)")
        #expect(replies().last?["command"] as? String == "stop" && replies().last?["ok"] as? Bool == true, "\(replies().suffix(1))")
    }

    @Test func theWillSaysOfflineWhenTheProcessDies() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let vf = try Run(port: broker.port, String(format: Self.source, 900) + " ! fakesink")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.wait(for: "mqtt: connected to"), "\(vf.stderr)")
        usleep(300_000)
        kill(vf.process.processIdentifier, SIGKILL)
        _ = vf.finish()
        let state = try broker.subscribeOnce("cams/door/state", count: 1, seconds: 5)
        #expect(state == [#"cams/door/state {"state":"offline"}"#], "\(state)")
    }

    @Test func aBrokerDownAtStartOnlyWarns() throws {
        let port = Broker.freePort()
        let started = Date()
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "--mqtt", "127.0.0.1:\(port)", String(format: Self.source, 60) + " ! \(Self.compose) ! fakesink"],
            timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("mqtt: cannot reach 127.0.0.1:\(port) (") && r.err.contains("), retrying"), "\(r.err)")
        #expect(r.err.components(separatedBy: "cannot reach").count == 2, "warned more than once: \(r.err)")
        #expect(r.err.contains("frames: 60 in"), "\(r.err)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func aBrokerStartedLaterIsConnectedTo() throws {
        let port = Broker.freePort()
        let vf = try Run(port: port, String(format: Self.source, 240) + " ! fakesink", topic: "late")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.wait(for: "mqtt: cannot reach 127.0.0.1:\(port)"), "\(vf.stderr)")
        let broker = try Broker(port: port)
        defer { broker.stop() }
        #expect(vf.wait(for: "mqtt: connected to 127.0.0.1:\(port) topic late", timeout: 8), "\(vf.stderr)")
        let r = vf.finish()
        #expect(r.code == 0, "\(r.err)")
        let state = try broker.subscribeOnce("late/state", count: 1, seconds: 3)
        #expect(state.first?.hasPrefix(#"late/state {"#) == true && state.first?.contains(#""state":"stopped""#) == true, "\(state)")
    }

    @Test(arguments: [
        (["--mqtt", "localhost"], "bad value 'localhost' for --mqtt: expected HOST:PORT"),
        (["--mqtt", "127.0.0.1:0"], "bad port '0' in --mqtt 127.0.0.1:0"),
        (["--mqtt", "127.0.0.1:1883", "--topic", "cams/#"], "bad value 'cams/#' for --topic"),
        (["--mqtt", "127.0.0.1:1883", "--topic", ""], "bad value '' for --topic (empty)"),
        (["--topic", "cams/door"], "--topic without --mqtt"),
        (["--mqtt"], "option '--mqtt' needs a value: --mqtt HOST:PORT"),
    ])
    func usageErrorsNameTheToken(_ options: [String], _ text: String) throws {
        let r = try Tools.run(Tools.viewfinder, ["launch", "videotestsrc num-buffers=1 ! fakesink"] + options, timeout: 20)
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains(text), "\(r.err)")
        #expect(!r.err.contains("frames:"), "ran anyway: \(r.err)")
    }
}
