import Diagnostics
import Foundation
import GStreamerKit
import Host
import Mosquitto
import Stages
import Synchronization
import Timing

/// Connects a running session to an MQTT broker (`viewfinder launch --mqtt HOST:PORT --topic TOPIC`).
///
/// Out: every `viewfinder/*` element message as `EventHub.json` on `TOPIC/events/<name after viewfinder/>`
/// (QoS 0, not retained); the session's state (`SessionCommands.state`) retained on `TOPIC/state` when
/// connected and then every second when it changed, `{"state": "stopped", ...}` at the end, and the Last
/// Will `{"state": "offline"}` (retained) should the process die. In: `TOPIC/cmd/capture`, `TOPIC/cmd/set`,
/// `TOPIC/cmd/stop`, each payload a JSON object of its command's shape (`MQTTCommand`), each answered on
/// `TOPIC/reply` (`{"command": ..., "ok": ...}`); a payload refused changes nothing.
///
/// Threads: the element-message hook runs on the bus loop's thread and only queues (`MQTTClient.publish`
/// never waits; refused messages are dropped and counted, so nothing piles up while the broker is away or
/// slow). Commands arrive on libmosquitto's network thread and reach the session only through its
/// thread-safe accessors (`update`, `requestStop`, `sendCustomEvent`, `fire`). One thread of ours
/// connects (a host name may need a DNS lookup) and then publishes the state every second. The broker
/// being unreachable never stops the camera: a warning, and the client keeps retrying. Every wait (the first
/// attempts, `MQTTClient.reconnectBackoff`: 1 s, 2 s, then every 4 s; the state's second; the client's own
/// reconnects) is on `clock`.
public final class MQTTBridge: Sendable {
    /// Largest command payload accepted (bytes); larger ones are refused on `TOPIC/reply`.
    public static let payloadLimit = JSONScalar.byteLimit
    /// The commands under `TOPIC/cmd/` (payloads: `MQTTCommand`).
    public static let commands = MQTTCommand.builtIn

    /// The broker and topic.
    public let address: MQTTAddress
    /// The login and TLS (`--mqtt-username`, `--mqtt-password-file`, `--mqtt-cafile`...).
    public let access: MQTTAccess
    private let session: Session
    private let fire: @Sendable () -> Void
    private let logger: Logger
    private let client = Mutex<MQTTClient?>(nil)

    /// What the connection did so far, for the messages printed (taken briefly, alone).
    struct Status {
        var connections = 0
        var warned = false
        var stopping = false
        /// The last state payload published (re-sent only when it changes).
        var lastState: Data?
    }
    private let status = Mutex(Status())
    /// Events and replies refused by the client (not connected, or `MQTTClient.pendingLimit` waiting).
    private let dropped = Atomic<Int>(0)
    /// Times the attempts and the state's publication.
    private let clock: any HostClock
    /// Signalled by `stop` to end the state thread's wait.
    private let wake = Wakeup()
    /// Signalled when the state thread ended.
    private let ended = DispatchSemaphore(value: 0)

    /// A bridge for `session`; `fire` is the manual shutter (the CLI passes `Triggers.shared.fire`); its lines
    /// for the user (`mqtt: connected to ...`) go to `logger` (`Log.control` unless told); `clock` times every wait.
    public init(
        session: Session, address: MQTTAddress, access: MQTTAccess = MQTTAccess(), fire: @escaping @Sendable () -> Void,
        logger: Logger = Log.control, clock: any HostClock = SystemClock.shared
    ) {
        self.clock = clock
        self.session = session
        self.address = address
        self.access = access
        self.fire = fire
        self.logger = logger
    }

    private var topic: String { address.topic }

    /// Starts connecting in the background (call before `run()`; `MQTTService` hands it every recorded message).
    /// Never fails: without a client the camera runs, with a warning.
    public func start() {
        let handlers = MQTTClient.Handlers(
            onConnect: { [weak self] in self?.connected() },
            onDisconnect: { [weak self] why in self?.lost(why) },
            onMessage: { [weak self] m in self?.command(m) },
            onRefused: { [weak self] r in self?.refused(r) },
            onSubscribed: { [weak self] codes in self?.subscribed(codes) },
            onGaveUp: { [weak self] why in self?.gaveUp(why) })
        let c: MQTTClient
        do {
            c = try access.client(idPrefix: "viewfinder", handlers: handlers, clock: clock)
        } catch {
            logger.say(.warning, "mqtt: cannot start an MQTT client (\(error.message)); running without \(address.text)")
            ended.signal()
            return
        }
        client.withLock { $0 = c }
        let will = MQTTClient.Will(topic: topic + "/state", payload: Self.json(["state": "offline"]), retain: true)
        let thread = Thread { [weak self] in
            guard let self else { return }
            defer { ended.signal() }
            // Until an attempt starts (then the client's thread retries by itself): 1 s, 2 s, then every 4 s.
            do throws(MQTTError) {
                let started = try c.connectRetrying(
                    host: address.host, port: address.port, will: will, clock: clock, wake: wake, onRetry: { self.warnUnreachable($0) })
                guard started else { return }  // stopped meanwhile
            } catch {
                if error.message.hasPrefix("TLS") { self.gaveUp(error.message); return }
                self.logger.say(.warning, "mqtt: cannot connect to \(address.text) (\(error.message)); running without it")
                return
            }
            while !clock.sleep(seconds: 1, unlessSignalled: wake) { publishState(force: false) }
        }
        thread.name = "mqtt"
        thread.start()
    }

    /// After the run: publishes `{"state": "stopped", ...}` retained (QoS 1, waiting for the broker's
    /// acknowledgement), disconnects (no Will) and stops the client; waits at most 1 s in all (a broker that
    /// does not answer costs no more, the broker then publishes the Will when the process ends).
    public func stop() {
        let first = status.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard first, let c = client.withLock({ $0 }) else { return }
        wake.signal()
        let done = DispatchSemaphore(value: 0)
        let topic = self.topic
        var final = SessionCommands.state(of: session)
        final["state"] = "stopped"
        let payload = Self.json(final)
        let ended = self.ended
        let thread = Thread {
            ended.wait()
            if c.isConnected { _ = c.publishAndWait(topic + "/state", payload, retain: true, timeout: 0.8) }
            c.disconnect()
            c.close()
            done.signal()
        }
        thread.name = "mqtt-stop"
        thread.start()
        // Real time, whatever the clock: this bounds the process's exit.
        if done.wait(timeout: .now() + 1) == .timedOut {
            logger.say(.warning, "mqtt: \(address.text) did not answer in 1 s; leaving without a clean disconnect")
        }
        let n = dropped.load(ordering: .relaxed)
        if n > 0 { logger.say(.warning, "mqtt: \(n) messages not sent (broker not connected or not reading)") }
    }

    // MARK: out

    /// Publishes one element message (bus loop thread; never waits). Not `viewfinder/*`: ignored.
    func publish(_ message: BusMessage) {
        let name = message.structure.name
        guard name.hasPrefix("viewfinder/"), let c = client.withLock({ $0 }) else { return }
        send(c, topic + "/events/" + name.dropFirst("viewfinder/".count), EventHub.json(message))
    }

    /// Queues `payload` on `topic`; a refusal is counted (never waits, never throws).
    private func send(_ c: MQTTClient, _ topic: String, _ payload: Data, retain: Bool = false) {
        do { try c.publish(topic, payload, qos: 0, retain: retain) } catch { dropped.add(1, ordering: .relaxed) }
    }

    /// Publishes the state retained when it differs from the last one published (or always with `force`).
    /// Queued under the status lock, so no state can follow the final "stopped" (`stop` sets `stopping`
    /// first); `publish` only queues, and no libmosquitto lock is held while the status lock is waited for.
    private func publishState(force: Bool) {
        guard let c = client.withLock({ $0 }), c.isConnected else { return }
        let payload = Self.json(SessionCommands.state(of: session))
        let topic = self.topic + "/state"
        status.withLock { s in
            guard !s.stopping, force || s.lastState != payload else { return }
            s.lastState = payload
            send(c, topic, payload, retain: true)
        }
    }

    // MARK: connection

    /// Connected (libmosquitto's thread): subscribe again (clean session), say so, publish the state.
    private func connected() {
        guard let c = client.withLock({ $0 }) else { return }
        // Retained commands are never run: not sent on subscribing, and one published retained keeps its flag
        // (so the empty message that clears a retained command is not taken for a live one).
        do { try c.subscribe(topic + "/cmd/#", qos: 0, options: [.retainAsPublished, .sendRetainedNever]) } catch {
            logger.say(.warning, "mqtt: cannot subscribe to \(topic)/cmd/#: \(error.message)")
        }
        status.withLock { s in
            s.connections += 1
            s.warned = false  // a later loss is said again
        }
        logger.say(.notice, "mqtt: connected to \(address.text) topic \(topic)")
        publishState(force: true)
    }

    /// A refused attempt or a lost connection (libmosquitto's thread). Said once until connected again.
    private func lost(_ why: String) {
        let (stopping, everConnected) = status.withLock { ($0.stopping, $0.connections > 0) }
        guard !stopping else { return }
        if everConnected {
            let say = status.withLock { s in
                defer { s.warned = true }
                return !s.warned
            }
            if say { logger.say(.warning, "mqtt: lost \(address.text) (\(why)), retrying") }
        } else {
            warnUnreachable(why)
        }
    }

    /// The broker refused CONNECT (libmosquitto's thread): said once until connected again, with what to check
    /// for a login refusal. The client retries (the broker's password file or ACL may be mended meanwhile).
    private func refused(_ r: MQTTClient.Refusal) {
        let say = status.withLock { s in
            defer { s.warned = true }
            return !s.warned && !s.stopping
        }
        guard say else { return }
        var hint = ""
        if r.isAuthentication {
            hint = ": check --mqtt-username and --mqtt-password-file"
            if access.username == nil { hint += " (none given: the broker wants a login)" }
        }
        logger.say(.warning, "mqtt: \(address.text) refused the connection (\(r.reason))\(hint); retrying")
    }

    /// The client's network thread gave up (a failed TLS handshake, a protocol error): no more attempts.
    private func gaveUp(_ why: String) {
        guard !status.withLock({ $0.stopping }) else { return }
        var hint = ""
        if why.hasPrefix("TLS") {
            hint = "; check --mqtt-cafile (the CA that signed the broker's certificate, which must name \(address.host)),"
                + " and --mqtt-cert/--mqtt-key when the broker wants a client certificate"
        }
        logger.say(.warning, "mqtt: giving up on \(address.text) (\(why))\(hint); running without it")
    }

    /// The broker answered the subscription to `TOPIC/cmd/#`: a refusal (code 128 or more: an ACL denies it)
    /// means no command can arrive.
    private func subscribed(_ codes: [Int32]) {
        guard let code = codes.first(where: { $0 >= 128 }) else { return }
        var why = "reason code \(code)"
        if code == 135 { why = "not authorised: the broker's ACL denies reading it" }
        logger.say(.warning, "mqtt: \(address.text) refused the subscription to \(topic)/cmd/# (\(why)); commands will not arrive")
    }

    /// `mqtt: cannot reach HOST:PORT (why), retrying`, once.
    private func warnUnreachable(_ why: String) {
        let say = status.withLock { s in
            defer { s.warned = true }
            return !s.warned && s.connections == 0
        }
        if say { logger.say(.warning, "mqtt: cannot reach \(address.text) (\(why)), retrying") }
    }

    // MARK: in

    /// A refused command: its message and the field to blame.
    struct Refusal: Error {
        var message: String
        var field: String?
    }

    /// Runs one command (libmosquitto's thread) and answers it on `TOPIC/reply`.
    func command(_ m: MQTTMessage) {
        let prefix = topic + "/cmd/"
        guard m.topic.hasPrefix(prefix), let c = client.withLock({ $0 }) else { return }
        // A retained command being cleared (empty, retained): not a command, no answer.
        if m.retained && m.payload.isEmpty { return }
        let name = String(m.topic.dropFirst(prefix.count))
        var reply: [String: Any] = ["command": name]
        do {
            let result = try run(name, m)
            reply["ok"] = true
            reply.merge(result) { a, _ in a }
        } catch {
            reply["ok"] = false
            reply["error"] = error.message
            if let f = error.field { reply["field"] = f }
        }
        send(c, topic + "/reply", Self.json(reply))
    }

    /// What command `name` does with `m`'s payload; its result fields for the reply. The payload is decoded
    /// and checked whole first (`MQTTCommand.decode`: a JSON object of the command's shape); a refusal changes nothing.
    private func run(_ name: String, _ m: MQTTMessage) throws(Refusal) -> [String: Any] {
        let served = session.services.compactMap { $0 as? any ServesMQTTCommands }
        let prefix = topic + "/cmd/"
        let known = Self.commands + served.flatMap(\.mqttCommands)
        guard known.contains(name) else {
            throw Refusal(
                message: "unknown command topic '\(Echo.value(m.topic))': expected " + known.map { prefix + $0 }.joined(separator: ", "))
        }
        guard !m.retained else {
            throw Refusal(
                message:
                    "retained message on \(m.topic) ignored: commands must not be retained (clear it: mosquitto_pub -r -n -t \(m.topic))")
        }
        guard m.payload.count <= Self.payloadLimit else {
            throw Refusal(message: "payload of \(m.payload.count) bytes refused: at most \(Self.payloadLimit), expected a JSON object")
        }
        let command: MQTTCommand
        do { command = try MQTTCommand.decode(name, payload: m.payload, services: served.flatMap(\.mqttCommands), prefix: prefix) } catch {
            throw Refusal(message: error.message, field: error.field)
        }
        switch command {
        case .capture(let timer):
            do { return try SessionCommands.capture(timer: timer, session: session, fire: fire) } catch {
                throw Refusal(message: error.message, field: error.field)
            }
        case .set(let stage, let fields):
            do {
                let applied = try PropertyPatch.apply(fields.map { ($0.name, $0.value) }, to: stage, in: session)
                return ["stage": stage, "changed": PropertyJSON.object(applied)]
            } catch { throw Refusal(message: error.message, field: error.field) }
        case .stop:
            session.requestStop()
            return ["state": Session.Phase.stopping.rawValue]
        case .service(let name):
            guard let service = served.first(where: { $0.mqttCommands.contains(name) }) else { return [:] }
            do { return try service.mqttCommand(name, payload: m.payload) } catch { throw Refusal(message: error.message, field: error.field) }
        }
    }

    /// Compact JSON, keys sorted, slashes as they are.
    static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
