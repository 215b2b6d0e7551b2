import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization

/// Makes the MQTT bridge of a session (`--mqtt HOST:PORT`).
public struct MQTTBridgeFactory: ServiceFactory {
    let address: MQTTAddress
    let access: MQTTAccess
    let fire: (@Sendable () -> Void)?
    /// A bridge to `address`, logging in with `access`; `fire` is the manual shutter (the CLI passes
    /// `Triggers.shared.fire`; nil: the `viewfinder-capture` event to this session only, as `serve` wants).
    public init(address: MQTTAddress, access: MQTTAccess = MQTTAccess(), fire: (@Sendable () -> Void)?) {
        self.address = address
        self.access = access
        self.fire = fire
    }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        [MQTTService(address: address, access: access, fire: fire)]
    }
}

/// The MQTT bridge as a session service: it connects in `prepare` (in the background: a missing broker never
/// stops the camera), publishes every recorded message, and says "stopped" and disconnects in `close`.
public final class MQTTService: SessionService {
    public let name = "mqtt"
    let address: MQTTAddress
    let access: MQTTAccess
    let fire: (@Sendable () -> Void)?
    /// Made in `prepare` (it needs the session); read by the bus loop's thread and the closing thread.
    private let bridge = Mutex<MQTTBridge?>(nil)

    init(address: MQTTAddress, access: MQTTAccess, fire: (@Sendable () -> Void)?) {
        self.address = address
        self.access = access
        self.fire = fire
    }

    public func prepare(_ session: Session) throws(HostError) {
        let b = MQTTBridge(
            session: session, address: address, access: access, fire: fire ?? SessionCommands.eventShutter(session), clock: session.clock)
        bridge.withLock { $0 = b }
        b.start()
    }

    public func elementMessage(_ message: BusMessage) { bridge.withLock { $0 }?.publish(message) }

    public func close() { bridge.withLock { $0 }?.stop() }
}

/// MQTT commands a service adds to the bridge (`TOPIC/cmd/NAME`), answered on `TOPIC/reply` like the bridge's own
/// (`capture`, `set`, `stop`), after the same checks (not retained, payload size).
public protocol ServesMQTTCommands: SessionService {
    /// The command names (the topic's last level) this service answers.
    var mqttCommands: [String] { get }
    /// Runs one on libmosquitto's thread (never block); the reply's fields, or a refusal naming the field.
    func mqttCommand(_ name: String, payload: Data) throws(MQTTCommandRefusal) -> [String: Any]
}

/// A refused MQTT command: its message and the field to blame.
public struct MQTTCommandRefusal: Error {
    public var message: String
    public var field: String?
    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }
}
