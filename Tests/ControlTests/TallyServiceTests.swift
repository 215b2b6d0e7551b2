import Control
import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization
import TestSupport
import TestTags
import Testing

/// A service written only for this test, the way a new capability plugs in beside the core: it claims a
/// description element (`tally label=NAME`, a sink counting the frames that reach it), serves a route on the control
/// server (`GET /api/tally`) and writes a report line. Nothing in Session, SessionBuilder, StageGroup, BusLoop, the
/// CLI or the router knows it: its one registration is `SessionOptions.services`.
struct TallyFactory: ServiceFactory {
    static let spec = ServiceElementSpec(
        factory: "tally",
        properties: [
            PropertySpec("label", "what the report line calls it", .string, default: "frames"),
            PropertySpec("limit", "frames the route reports at most", .int(1...1000), default: "1000"),
        ],
        feed: "raw video, e.g. 'videotestsrc ! tally'", maxBuffers: 4, sinkPrefix: "vf_tally")

    var elements: [ServiceElementSpec] { [Self.spec] }

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        var out: [any SessionService] = []
        for claim in build.claims(of: "tally") {
            let sink = try build.appSink(of: claim)
            out.append(TallyService(label: claim.values.string("label"), limit: claim.values.int("limit"), sink: sink))
        }
        return out
    }
}

final class TallyService: SessionService, ServesControlRoutes, ServesMQTTCommands, @unchecked Sendable {
    let name = "tally"
    let label: String
    let limit: Int
    let sink: AppSink
    private let counted = Mutex(0)
    private var reader: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(label: String, limit: Int, sink: AppSink) {
        self.label = label; self.limit = limit; self.sink = sink
    }

    /// Pulls what reaches the relay appsink (an appsink holds end-of-stream until it is drained) and counts it.
    func willPlay(_ session: Session) {
        let t = Thread { [self] in
            defer { done.signal() }
            while true {
                switch sink.pull(timeout: 50_000_000) {
                case .sample: counted.withLock { $0 += 1 }
                case .eos: return
                case .timeout, .stopped: continue
                }
            }
        }
        reader = t
        t.start()
    }

    func runEnded() { if reader != nil { _ = done.wait(timeout: .now() + 5) } }

    var frames: Int { min(limit, counted.withLock { $0 }) }

    var reportLines: [String] { ["tally \(label): \(frames) frames"] }

    func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes { TallyRoutes(service: self) }

    /// `TOPIC/cmd/tally` with `{"label": NAME}` (which tally) answers its count.
    var mqttCommands: [String] { ["tally"] }
    func mqttCommand(_ name: String, payload: Data) throws(MQTTCommandRefusal) -> [String: Any] {
        guard let o = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any], let asked = o["label"] as? String else {
            throw MQTTCommandRefusal("expected {\"label\": NAME}", field: "label")
        }
        guard asked == label else { throw MQTTCommandRefusal("no tally '\(asked)': expected '\(label)'", field: "label") }
        return ["label": label, "frames": frames]
    }
}

struct TallyRoutes: ControlRoutes {
    let service: TallyService

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        guard request.path == "/api/tally" else { return nil }
        let body = try? JSONSerialization.data(withJSONObject: ["label": service.label, "frames": service.frames], options: [.sortedKeys])
        return ControlResponse(statusCode: .ok, headers: ["Content-Type": "application/json"], body: body ?? Data())
    }

    func startLines(serverURL: String) -> [String] { ["tally: \(serverURL)api/tally"] }
}

@Suite(.serialized, .tags(.live, .process, .network), .tier) struct TallyServiceTests {
    static func options(port: UInt16) throws -> SessionOptions {
        var o = SessionOptions()
        o.services = [TallyFactory(), ControlServerFactory(address: try ControlAddress(parsing: "127.0.0.1:\(port)", token: nil), fire: {})]
        return o
    }

    @Test func claimsAnElementServesARouteAndWritesAReportLine() throws {
        let port = ControlTools.freePort()
        let session = try Session(
            description: "videotestsrc is-live=true num-buffers=30 ! video/x-raw,width=64,height=48,framerate=30/1 ! grid ! tally label=demo limit=500",
            options: try Self.options(port: port))
        // The element became a relay appsink: what runs has no 'tally' element.
        #expect(!session.plan.render().contains("! tally"))
        #expect(session.plan.render().contains("appsink name=vf_tally0"))
        try session.prepare()
        defer { session.close() }
        #expect(session.startLines.contains("control: http://127.0.0.1:\(port)/"))
        #expect(session.startLines.contains("tally: http://127.0.0.1:\(port)/api/tally"))
        #expect(session.run() == 0)
        // Served by the control server (after its security checks), while it still listens.
        let answer = try ControlTools.curl("GET", "http://127.0.0.1:\(port)/api/tally")
        #expect(answer.status == 200)
        #expect(answer.json["label"] as? String == "demo")
        #expect(answer.json["frames"] as? Int == 30)
        let refused = try ControlTools.curl("GET", "http://127.0.0.1:\(port)/api/tally", headers: ["Host: evil.example:\(port)"])
        #expect(refused.status == 403)
        #expect(session.reportLines == ["tally demo: 30 frames"])
    }

    @Test func answersItsOwnMQTTCommandBesideTheBridges() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let sub = try Broker.Subscriber(port: broker.port, topics: ["cams/tally/reply", "probe/#"])
        defer { sub.stop() }
        #expect(sub.wait(timeout: 5) { s in
            _ = try? broker.publish("probe/x", "1")
            return s.lines.contains("probe/x 1")
        })
        var o = SessionOptions()
        o.services = [TallyFactory(), MQTTBridgeFactory(address: try MQTTAddress(parsing: "127.0.0.1:\(broker.port)", topic: "cams/tally"), fire: {})]
        let session = try Session(
            description: "videotestsrc is-live=true num-buffers=60 ! video/x-raw,width=64,height=48,framerate=30/1 ! tally label=door", options: o)
        try session.prepare()
        let ran = DispatchSemaphore(value: 0)
        let runner = Thread {
            _ = session.run()
            ran.signal()
        }
        runner.start()
        // Commands once the bridge is connected (its retained state is there) and frames flow.
        #expect(try broker.subscribeOnce("cams/tally/state", count: 1, seconds: 5).count == 1)
        usleep(500_000)
        #expect(try broker.publish("cams/tally/cmd/tally", "{\"label\": \"door\"}") == 0)
        #expect(try broker.publish("cams/tally/cmd/tally", "{\"label\": \"yard\"}") == 0)
        #expect(try broker.publish("cams/tally/cmd/nothing", "{}") == 0)
        #expect(sub.wait(timeout: 5) { $0.json("cams/tally/reply").count >= 3 }, "\(sub.lines)")
        #expect(ran.wait(timeout: .now() + 10) == .success)
        session.close()
        let replies = sub.json("cams/tally/reply")
        let counted = try #require(replies.first)
        #expect(counted["command"] as? String == "tally" && counted["ok"] as? Bool == true && counted["label"] as? String == "door")
        #expect((counted["frames"] as? Int ?? 0) > 0 && (counted["frames"] as? Int ?? 0) < 60)
        #expect(replies[1]["ok"] as? Bool == false && replies[1]["error"] as? String == "no tally 'yard': expected 'door'")
        #expect(replies[1]["field"] as? String == "label")
        // The bridge's own list of commands names the service's too.
        #expect((replies[2]["error"] as? String ?? "").hasSuffix("expected cams/tally/cmd/capture, cams/tally/cmd/set, cams/tally/cmd/stop, cams/tally/cmd/tally"))
    }

    @Test func itsPropertiesAreParsedAsAStagesAre() throws {
        #expect(throws: HostError(.usage, "tally: bad value '0' for property 'limit': expected integer 1 - 1000")) {
            _ = try Session(description: "videotestsrc ! tally limit=0", options: try Self.options(port: 1))
        }
        #expect(throws: HostError(.usage, "tally: no property 'colour'; properties are: name, label, limit")) {
            _ = try Session(description: "videotestsrc ! tally colour=red", options: try Self.options(port: 1))
        }
        #expect(throws: HostError(.usage, "tally is a sink: nothing can follow it (found 'fakesink' after it)")) {
            _ = try Session(description: "videotestsrc ! tally ! fakesink", options: try Self.options(port: 1))
        }
    }

    @Test func withoutItsRegistrationTheElementIsUnknown() throws {
        #expect {
            _ = try Session(description: "videotestsrc num-buffers=1 ! tally")
        } throws: { error in
            guard let e = error as? HostError else { return false }
            return e.kind == .usage && e.message.contains("tally")
        }
    }
}
