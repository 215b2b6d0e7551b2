import Diagnostics
import Foundation
import Host
import Logging
import Mosquitto
import Stages
import Synchronization
import Timing

/// The process's own MQTT client in `viewfinder serve --mqtt` (each pipeline's session has its own bridge under
/// `TOPIC/NAME/...`): the retained list of this process's pipelines, each pipeline's changes, and the commands that
/// add, remove, start, stop, restart and switch pipelines, answered on the reply topic.
///
/// Topics (`--instance X` adds a level, so several processes share one broker and one TOPIC):
/// `TOPIC/pipelines[/X]` (retained: `{"state": "running", "pipelines": [...]}`; the Will and the end say
/// `offline`/`stopped`), `TOPIC/cmd[/X]/VERB` (`add`, `remove`, `start`, `stop`, `restart`, `switch`; JSON payloads
/// as the HTTP bodies plus `name`), `TOPIC/reply[/X]`, `TOPIC/pipeline-events[/X]` (each `viewfinder/pipeline` change).
///
/// Threads: libmosquitto's network thread calls `command`, which runs each command on a thread of its own (adding
/// builds a session, removing drains one); the host's announcements (camera threads) publish without waiting.
public final class PipelinesMQTT: Sendable {
    let host: CameraHost
    let address: MQTTAddress
    let access: MQTTAccess
    let instance: String?
    let clock: any HostClock
    let logger: Logger
    /// The Home Assistant documents each camera published (`--discovery`): cleared when the camera is removed.
    let discovery: HomeAssistantRegistry?
    private let client = Mutex<MQTTClient?>(nil)
    private let wake = Wakeup()

    /// A client for `host`'s pipelines on `address` (its topic is TOPIC), `instance` adding a topic level.
    public init(
        host: CameraHost, address: MQTTAddress, access: MQTTAccess, instance: String?, clock: any HostClock = SystemClock.shared,
        logger: Logger = Log.control, discovery: HomeAssistantRegistry? = nil
    ) {
        self.host = host; self.address = address; self.access = access; self.instance = instance; self.clock = clock
        self.logger = logger; self.discovery = discovery
    }

    func topic(_ kind: String) -> String { "\(address.topic)/\(kind)" + (instance.map { "/\($0)" } ?? "") }

    /// Connects in the background (retrying as the bridge does: 1 s, 2 s, then every 4 s), then keeps the list
    /// retained and takes commands. Never fails: the cameras run without it.
    public func start() {
        let handlers = MQTTClient.Handlers(
            onConnect: { [weak self] in self?.connected() }, onDisconnect: { _ in },
            onMessage: { [weak self] m in self?.command(m) }, onRefused: nil, onSubscribed: { _ in },
            onGaveUp: { [weak self] why in self?.logger.say(.warning, "mqtt: giving up on the pipelines' client (\(why))") })
        let c: MQTTClient
        do {
            c = try access.client(idPrefix: "viewfinder-serve", handlers: handlers, clock: clock)
        } catch {
            logger.say(.warning, "mqtt: cannot start the pipelines' MQTT client (\(error.message))")
            return
        }
        client.withLock { $0 = c }
        host.listen { [weak self] m in self?.changed(m) }
        let will = MQTTClient.Will(topic: topic("pipelines"), payload: MQTTBridge.json(["state": "offline", "pipelines": []]), retain: true)
        let thread = Thread { [self] in
            do throws(MQTTError) {
                _ = try c.connectRetrying(host: address.host, port: address.port, will: will, clock: clock, wake: wake, onRetry: { _ in })
            } catch {
                logger.say(.warning, "mqtt: cannot connect the pipelines' client to \(address.text) (\(error.message))")
            }
        }
        thread.name = "mqtt-pipelines"
        thread.start()
    }

    /// Says `stopped` (retained, waiting at most 1 s for the broker) and disconnects.
    public func stop() {
        wake.signal()
        guard let c = client.withLock({ $0 }) else { return }
        _ = c.publishAndWait(topic("pipelines"), list(state: "stopped"), retain: true, timeout: 1)
        c.disconnect()
        c.close()
    }

    private func connected() {
        guard let c = client.withLock({ $0 }) else { return }
        do { try c.subscribe(topic("cmd") + "/+", qos: 0, options: [.retainAsPublished, .sendRetainedNever]) } catch {
            logger.say(.warning, "mqtt: cannot subscribe to \(topic("cmd"))/+: \(error.message)")
        }
        publish(topic("pipelines"), list(state: "running"), retain: true)
    }

    /// A pipeline changed: the event, then the list again.
    private func changed(_ m: PipelineMessage) {
        var o: [String: Any] = ["name": m.name, "state": m.state.rawValue, "restarts": m.restarts]
        if !m.error.isEmpty { o["error"] = m.error }
        if m.retryIn > 0 { o["retryIn"] = m.retryIn }
        publish(topic("pipeline-events"), MQTTBridge.json(o), retain: false)
        publish(topic("pipelines"), list(state: "running"), retain: true)
        // A camera removed: its Home Assistant entities go too (an empty retained message on each config topic).
        if m.state == .removed, let discovery, let camera = try? address.beneath(m.name) {
            for config in discovery.take(camera.topic) { publish(config, Data(), retain: true) }
        }
    }

    private func list(state: String) -> Data {
        MQTTBridge.json(["state": state, "pipelines": state == "running" ? host.cameras.map(PipelineCommands.object) : []])
    }

    private func publish(_ topic: String, _ payload: Data, retain: Bool) {
        guard let c = client.withLock({ $0 }), c.isConnected else { return }
        _ = try? c.publish(topic, payload, qos: 1, retain: retain)
    }

    /// One command (libmosquitto's thread): checked here, run on a thread of its own, answered on the reply topic.
    func command(_ m: MQTTMessage) {
        let prefix = topic("cmd") + "/"
        guard m.topic.hasPrefix(prefix), !(m.retained && m.payload.isEmpty) else { return }
        let verb = String(m.topic.dropFirst(prefix.count))
        let host = self.host
        let reply = topic("reply")
        Thread.detachNewThread { [self] in
            var answer: [String: Any] = ["command": verb]
            do throws(PipelineRequestError) {
                guard PipelineCommands.verbs.contains(verb) else {
                    throw PipelineRequestError(
                        .invalid, "unknown command topic '\(m.topic)': expected " + PipelineCommands.verbs.map { prefix + $0 }.joined(separator: ", "))
                }
                guard !m.retained else {
                    throw PipelineRequestError(.invalid, "retained message on \(m.topic) ignored: commands must not be retained")
                }
                let result: [String: Any]
                switch verb {
                case "add": result = try PipelineCommands.add(m.payload, host: host)
                case "remove": result = try PipelineCommands.remove(try PipelineCommands.name(in: m.payload), host: host)
                case "switch": result = try PipelineCommands.switchSource(try PipelineCommands.name(in: m.payload), m.payload, host: host)
                default: result = try PipelineCommands.control(verb, try PipelineCommands.name(in: m.payload), host: host)
                }
                answer["ok"] = true
                answer.merge(result) { a, _ in a }
            } catch {
                answer["ok"] = false
                answer["error"] = error.message
                if let f = error.field { answer["field"] = f }
                if let p = error.position { answer["position"] = p }
            }
            publish(reply, MQTTBridge.json(answer), retain: false)
            // A removal leaves the table after its last announcement: the list again, as it is now.
            publish(topic("pipelines"), list(state: "running"), retain: true)
        }
    }
}
