import Diagnostics
import Foundation
import GStreamerKit
import Host
import Mosquitto
import Stages
import Synchronization
import Timing

/// The discovery documents each camera of a process published, by MQTT topic, so `serve` can take a removed
/// camera's entities out of Home Assistant (an empty retained message on each config topic).
public final class HomeAssistantRegistry: Sendable {
    private let topics = Mutex<[String: [String]]>([:])
    public init() {}
    /// The config topics published for the camera on `topic`; returns those it had published before and no longer
    /// does (a new description with other stages or properties), to be cleared.
    func record(_ configs: [String], for topic: String) -> [String] {
        topics.withLock { t in
            defer { t[topic] = configs }
            return (t[topic] ?? []).filter { !configs.contains($0) }
        }
    }
    /// Forgets and returns them.
    public func take(_ topic: String) -> [String] { topics.withLock { $0.removeValue(forKey: topic) ?? [] } }
}

/// Makes the Home Assistant discovery service of a session (`--mqtt ... --discovery homeassistant`).
public struct HomeAssistantFactory: ServiceFactory {
    let address: MQTTAddress
    let access: MQTTAccess
    let prefix: String
    let photoBase: String?
    let registry: HomeAssistantRegistry?
    /// Discovery for the camera on `address`'s topic; `photoBase` is the HTTP address the camera's photos are served
    /// under (`http://127.0.0.1:8080`, or serve's `http://HOST:PORT/api/pipelines/NAME`; nil: no image entity);
    /// `registry` (serve) keeps the config topics for the camera's removal.
    public init(address: MQTTAddress, access: MQTTAccess, prefix: String = HomeAssistantConfigs.defaultPrefix, photoBase: String?,
        registry: HomeAssistantRegistry? = nil)
    {
        self.address = address; self.access = access; self.prefix = prefix; self.photoBase = photoBase; self.registry = registry
    }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        [HomeAssistantService(address: address, access: access, prefix: prefix, photoBase: photoBase, registry: registry)]
    }
}

/// Publishes the camera's discovery documents (`HomeAssistantConfigs`) retained on a connection of its own, again on
/// every reconnect, and the latest photo's URL retained on `TOPIC/photo` when capture saves one. Never stops the camera:
/// a broker away is retried as the bridge retries. The documents stay when the process ends (Home Assistant shows the
/// entities unavailable through the bridge's `offline`); `serve` clears them when a camera is removed.
final class HomeAssistantService: SessionService {
    let name = "homeassistant"
    let address: MQTTAddress
    let access: MQTTAccess
    let prefix: String
    let photoBase: String?
    let registry: HomeAssistantRegistry?
    struct State {
        var client: MQTTClient?
        var configs: [HomeAssistantConfigs.Config] = []
        /// Config topics of an earlier run of this camera that this one does not publish: cleared on connecting.
        var stale: [String] = []
        var photo: Data?
    }
    private let state = Mutex(State())
    private let wake = Wakeup()

    init(address: MQTTAddress, access: MQTTAccess, prefix: String, photoBase: String?, registry: HomeAssistantRegistry?) {
        self.address = address; self.access = access; self.prefix = prefix; self.photoBase = photoBase; self.registry = registry
    }

    func prepare(_ session: Session) throws(HostError) {
        let stages = session.stageInstances
        let photos = photoBase != nil && stages.contains { $0.kind == "capture" }
        let configs = HomeAssistantConfigs.make(prefix: prefix, topic: address.topic, name: address.topic, stages: stages, photos: photos)
        let stale = registry?.record(configs.map(\.topic), for: address.topic) ?? []
        let handlers = MQTTClient.Handlers(onConnect: { [weak self] in self?.connected() })
        let c: MQTTClient
        do { c = try access.client(idPrefix: "viewfinder-ha", handlers: handlers, clock: session.clock) } catch {
            Log.control.say(.warning, "mqtt: cannot start the Home Assistant discovery client (\(error.message))")
            return
        }
        state.withLock { $0.client = c; $0.configs = configs; $0.stale = stale }
        let (address, clock, wake) = (self.address, session.clock, self.wake)
        let thread = Thread {
            do throws(MQTTError) {
                _ = try c.connectRetrying(host: address.host, port: address.port, will: nil, clock: clock, wake: wake, onRetry: { _ in })
            } catch {
                Log.control.say(.warning, "mqtt: cannot connect the Home Assistant discovery client to \(address.text) (\(error.message))")
            }
        }
        thread.name = "mqtt-ha"
        thread.start()
    }

    /// (Re)connected: every document, and the latest photo, retained (QoS 1: the broker keeps them).
    private func connected() {
        let (c, configs, photo, stale) = state.withLock { ($0.client, $0.configs, $0.photo, $0.stale) }
        guard let c else { return }
        for topic in stale { _ = try? c.publish(topic, Data(), qos: 1, retain: true) }
        for config in configs { _ = try? c.publish(config.topic, config.payload, qos: 1, retain: true) }
        if let photo { _ = try? c.publish(address.topic + "/photo", photo, qos: 1, retain: true) }
    }

    /// A photo saved: its URL on `TOPIC/photo` (bus loop thread; never waits).
    func elementMessage(_ message: BusMessage) {
        guard let base = photoBase, message.structure.name == CaptureMessage.structureName,
            message.structure.string("event") == "saved", let file = message.structure.string("file")
        else { return }
        let name = (file as NSString).lastPathComponent
        // The stage names itself in its messages (the bus message's source is its appsink).
        guard let stage = message.structure.string("stage")?.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed),
            let leaf = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
        else { return }
        let url = Data("\(base)/photos/\(stage)/\(leaf)".utf8)
        let c = state.withLock { s -> MQTTClient? in
            s.photo = url
            return s.client
        }
        _ = try? c?.publish(address.topic + "/photo", url, qos: 1, retain: true)
    }

    func close() {
        wake.signal()
        guard let c = state.withLock({ s -> MQTTClient? in defer { s.client = nil }; return s.client }) else { return }
        c.disconnect()
        c.close()
    }
}
