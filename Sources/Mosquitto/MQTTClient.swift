import CMosquitto
import Foundation
import Synchronization

/// A libmosquitto failure, with the library's own text (`mosquitto_strerror`, or `strerror(errno)` when
/// the library says the system call failed).
public struct MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto's `MOSQ_ERR_*` code (`MQTTError.queueFull` is ours).
    public var code: Int32
    /// What went wrong, as the library words it.
    public var message: String
    public var description: String { message }

    /// Code of the refusal when `MQTTClient.pendingLimit` messages wait to be written.
    public static let queueFullCode: Int32 = -1000

    /// The error for a libmosquitto return code; `errno` is read at once, for `MOSQ_ERR_ERRNO`.
    init(code: Int32) {
        self.code = code
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            message = String(cString: strerror(errno))
        } else {
            message = String(cString: mosquitto_strerror(code))
        }
    }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// False for errors trying again cannot mend (bad arguments, no memory, not supported).
    public var isRetryable: Bool {
        ![MOSQ_ERR_INVAL, MOSQ_ERR_NOMEM, MOSQ_ERR_NOT_SUPPORTED, MOSQ_ERR_PAYLOAD_SIZE].contains { Int32($0.rawValue) == code }
    }
}

/// MQTT 5 subscription options.
public struct MQTTSubscribeOptions: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// Messages keep the retain flag they were published with (else a live retained publication, also
    /// the empty one that clears a retained message, arrives as an ordinary message).
    public static let retainAsPublished = MQTTSubscribeOptions(rawValue: Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue))
    /// Retained messages are not sent on subscribing.
    public static let sendRetainedNever = MQTTSubscribeOptions(rawValue: Int32(MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue))
}

/// One message received on a subscribed topic.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: Data
    /// True for a retained message sent on subscribing, or (with `.retainAsPublished`) one published
    /// with the retain flag.
    public var retained: Bool

    public init(topic: String, payload: Data, retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// An MQTT client over libmosquitto, running on libmosquitto's own network thread (`mosquitto_loop_start`).
///
/// Nothing here blocks the caller on the network: `connect` starts a non-blocking connect and the network
/// thread (which then reconnects by itself, after 1 s, 4 s, then every `reconnectDelayMax` s); `publish` and
/// `subscribe` only queue packets (libmosquitto wakes its thread). While not connected, QoS 0 publishes
/// are refused (`MOSQ_ERR_NO_CONN`) and so nothing piles up; while connected, at most `pendingLimit`
/// messages may wait to be written (a stuck broker), beyond that `publish` refuses with `queueFullCode`.
///
/// The handlers run on libmosquitto's thread; they must not wait for long (they delay its network work),
/// and may call `publish` and `subscribe`. Messages of a previous session are not kept (clean session),
/// so subscriptions are made again in `onConnect`. The protocol is MQTT 5 (for the subscription options
/// a command topic needs); the broker must speak it (mosquitto does since 1.6).
///
/// Threads: libmosquitto locks its own state; this class is used from any thread (`@unchecked Sendable`:
/// the only non-Sendable field is the opaque handle, which libmosquitto guards). The lifecycle calls
/// (`connect`, `disconnect`, `close`) are meant for one owner thread; `close` (or `deinit`) stops the
/// network thread before the handle is destroyed, so no callback runs after it.
public final class MQTTClient: @unchecked Sendable {
    /// What the client tells its owner, on libmosquitto's thread.
    public struct Handlers: Sendable {
        /// The broker accepted the connection (each reconnect too).
        public var onConnect: @Sendable () -> Void
        /// A connection attempt was refused or a connection ended: the reason. libmosquitto retries unless
        /// `disconnect` was called.
        public var onDisconnect: @Sendable (String) -> Void
        /// A message on a subscribed topic.
        public var onMessage: @Sendable (MQTTMessage) -> Void

        public init(
            onConnect: @escaping @Sendable () -> Void = {}, onDisconnect: @escaping @Sendable (String) -> Void = { _ in },
            onMessage: @escaping @Sendable (MQTTMessage) -> Void = { _ in }
        ) {
            self.onConnect = onConnect
            self.onDisconnect = onDisconnect
            self.onMessage = onMessage
        }
    }

    /// A Last Will: what the broker publishes for us when the connection dies without a DISCONNECT.
    public struct Will: Sendable {
        public var topic: String
        public var payload: Data
        public var retain: Bool
        public init(topic: String, payload: Data, retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// Messages that may wait to be written at once; more are refused (`MQTTError.queueFullCode`).
    public static let pendingLimit = 256
    /// Longest wait between reconnect attempts (s).
    public static let reconnectDelayMax: UInt32 = 4

    /// The state the C callbacks reach (through `mosquitto_new`'s user pointer): the handlers and the
    /// counters. Retained once for the handle's lifetime with `Unmanaged.passRetained` and released after
    /// `mosquitto_destroy`, when no callback can run any more; it holds no reference to the client, so
    /// the client's `deinit` still runs.
    final class Box: Sendable {
        let handlers: Handlers
        let connected = Atomic<Bool>(false)
        /// Publishes handed to libmosquitto and not yet written (QoS 0) or acknowledged (QoS 1, 2).
        let pending = Atomic<Int>(0)
        /// The message ids last written or acknowledged, newest last (at most 64), for `publishAndWait`.
        let done = Mutex<[Int32]>([])
        init(_ handlers: Handlers) { self.handlers = handlers }

        /// Notes message `mid` as written/acknowledged.
        func published(_ mid: Int32) {
            _ = pending.wrappingSubtract(1, ordering: .relaxed)
            if pending.load(ordering: .relaxed) < 0 { pending.store(0, ordering: .relaxed) }
            done.withLock { d in
                d.append(mid)
                if d.count > 64 { d.removeFirst(d.count - 64) }
            }
        }
    }

    /// libmosquitto's handle (opaque `struct mosquitto *`).
    private let handle: OpaquePointer
    private let box: Box
    private let unmanagedBox: Unmanaged<Box>
    private let lifecycle = Mutex<(started: Bool, closed: Bool)>((false, false))

    /// `mosquitto_lib_init`, once per process (a lazily initialised static is initialised exactly once).
    private static let library: Int32 = mosquitto_lib_init()

    /// A client with `clientID` (clean session) whose events go to `handlers`. Nothing connects yet.
    public init(clientID: String, handlers: Handlers) throws(MQTTError) {
        let lib = Self.library
        guard lib == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(code: lib) }
        let box = Box(handlers)
        let unmanaged = Unmanaged.passRetained(box)
        guard let h = mosquitto_new(clientID, true, unmanaged.toOpaque()) else {
            unmanaged.release()
            throw MQTTError(
                code: Int32(MOSQ_ERR_NOMEM.rawValue),
                message: "mosquitto_new failed for client id '\(clientID)': \(String(cString: strerror(errno)))")
        }
        handle = h
        self.box = box
        unmanagedBox = unmanaged
        _ = mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_connect_callback_set(h) { _, user, rc in
            guard let b = MQTTClient.box(user) else { return }
            if rc == 0 {
                b.pending.store(0, ordering: .relaxed)  // libmosquitto dropped what was queued for the old socket
                b.connected.store(true, ordering: .relaxed)
                b.handlers.onConnect()
            } else {
                // MQTT 3 CONNACK codes are below 128, MQTT 5 reason codes from 128 on.
                b.handlers.onDisconnect(String(cString: rc < 128 ? mosquitto_connack_string(rc) : mosquitto_reason_string(rc)))
            }
        }
        mosquitto_disconnect_callback_set(h) { _, user, rc in
            guard let b = MQTTClient.box(user) else { return }
            b.connected.store(false, ordering: .relaxed)
            b.handlers.onDisconnect(rc == 0 ? "disconnected" : MQTTError(code: rc).message)
        }
        mosquitto_publish_callback_set(h) { _, user, mid in MQTTClient.box(user)?.published(mid) }
        mosquitto_message_callback_set(h) { _, user, message in
            guard let b = MQTTClient.box(user), let m = message?.pointee, let topic = m.topic else { return }
            let payload = m.payload.map { Data(bytes: $0, count: Int(max(0, m.payloadlen))) } ?? Data()
            b.handlers.onMessage(MQTTMessage(topic: String(cString: topic), payload: payload, retained: m.retain))
        }
    }

    /// The box behind a callback's user pointer (not retained: the client keeps it alive until destroy).
    private static func box(_ user: UnsafeMutableRawPointer?) -> Box? {
        guard let user else { return nil }
        return Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
    }

    deinit {
        close()
        mosquitto_destroy(handle)
        unmanagedBox.release()
    }

    /// True while the broker has accepted the connection.
    public var isConnected: Bool { box.connected.load(ordering: .relaxed) }

    /// Sets the Last Will (QoS 1) and starts connecting to `host:port`; once an attempt has started, the
    /// network thread runs and reconnects by itself whenever the connection is lost or refused.
    ///
    /// An attempt that fails at once (connection refused on this machine, a host name that does not
    /// resolve) is thrown and starts nothing: call `connect` again later (`MQTTError.isRetryable`). The
    /// network thread is not started then on purpose: with no socket, libmosquitto's first loop (built
    /// with SRV support, as Debian's is) waits a whole keepalive before its first retry. Resolving a host
    /// name may block the caller; literals do not.
    public func connect(host: String, port: Int, keepalive: Int32 = 10, will: Will?) throws(MQTTError) {
        try lifecycle.withLock { (l: inout (started: Bool, closed: Bool)) throws(MQTTError) in
            guard !l.started && !l.closed else {
                throw MQTTError(code: Int32(MOSQ_ERR_INVAL.rawValue), message: "connect called after a successful start or after close")
            }
            if let will {
                let rc = will.payload.withUnsafeBytes { p in
                    mosquitto_will_set(handle, will.topic, Int32(p.count), p.baseAddress, 1, will.retain)
                }
                guard rc == 0 else { throw MQTTError(code: rc) }
            }
            var rc = mosquitto_reconnect_delay_set(handle, 1, Self.reconnectDelayMax, true)
            guard rc == 0 else { throw MQTTError(code: rc) }
            rc = mosquitto_connect_async(handle, host, Int32(port), keepalive)
            guard rc == 0 else { throw MQTTError(code: rc) }
            rc = mosquitto_loop_start(handle)
            guard rc == 0 else { throw MQTTError(code: rc) }
            l.started = true
        }
    }

    /// Queues one message; returns its message id. Never waits for the network. Refused (thrown) when not
    /// connected, or when `pendingLimit` messages still wait to be written.
    @discardableResult
    public func publish(_ topic: String, _ payload: Data, qos: Int32 = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        guard isConnected else { throw MQTTError(code: Int32(MOSQ_ERR_NO_CONN.rawValue)) }
        guard box.pending.load(ordering: .relaxed) < Self.pendingLimit else {
            throw MQTTError(code: MQTTError.queueFullCode, message: "\(Self.pendingLimit) messages wait to be written")
        }
        var mid: Int32 = 0
        box.pending.add(1, ordering: .relaxed)
        let rc = payload.withUnsafeBytes { p in mosquitto_publish(handle, &mid, topic, Int32(p.count), p.baseAddress, qos, retain) }
        guard rc == 0 else {
            box.pending.subtract(1, ordering: .relaxed)
            throw MQTTError(code: rc)
        }
        return mid
    }

    /// Publishes with QoS 1 and waits (at most `timeout` s) for the broker's acknowledgement; true when it
    /// came. For the last words before `disconnect`.
    public func publishAndWait(_ topic: String, _ payload: Data, retain: Bool, timeout: Double) -> Bool {
        guard let mid = try? publish(topic, payload, qos: 1, retain: retain) else { return false }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if box.done.withLock({ $0.contains(mid) }) { return true }
            usleep(5_000)
        }
        return false
    }

    /// Subscribes to `pattern` (wildcards allowed). Queued like a publish; refused when not connected.
    public func subscribe(_ pattern: String, qos: Int32 = 0, options: MQTTSubscribeOptions = []) throws(MQTTError) {
        let rc = mosquitto_subscribe_v5(handle, nil, pattern, qos, options.rawValue, nil)
        guard rc == 0 else { throw MQTTError(code: rc) }
    }

    /// Sends DISCONNECT (the broker then does not publish the Will) and stops retrying.
    public func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// Stops the network thread (after `disconnect`, or it may wait for a reconnect attempt); idempotent.
    /// No handler runs after it returns.
    public func close() {
        let stop = lifecycle.withLock { l in
            defer { l.closed = true }
            return l.started && !l.closed
        }
        guard stop else { return }
        _ = mosquitto_disconnect(handle)  // marks the state "disconnecting", so the loop ends instead of retrying
        _ = mosquitto_loop_stop(handle, false)
        box.connected.store(false, ordering: .relaxed)
    }
}
