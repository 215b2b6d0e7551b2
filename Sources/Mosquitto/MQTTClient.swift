import CMosquitto
import Foundation
import Synchronization
import Timing

/// An MQTT client over libmosquitto, running on a network thread of its own ("mosquitto loop": libmosquitto's
/// `mosquitto_loop` in a loop, as `mosquitto_loop_start` would, with the reconnect schedule ours).
///
/// Nothing here blocks the caller on the network: `connect` starts a non-blocking connect and the network
/// thread, which then reconnects by itself after `reconnect`'s delays (1 s, 2 s, then every 4 s by default,
/// from the first delay again once the broker accepted a connection), timed by `clock`; `publish` and
/// `subscribe` only queue packets (libmosquitto wakes the thread through its socket pair). While not connected, QoS 0 publishes
/// are refused (`MOSQ_ERR_NO_CONN`) and so nothing piles up; while connected, at most `pendingLimit`
/// messages may wait to be written (a stuck broker), beyond that `publish` refuses with `queueFullCode`.
///
/// The handlers run on libmosquitto's thread; they must not wait for long (they delay its network work),
/// and may call `publish` and `subscribe`. Messages of a previous session are not kept (clean session),
/// so subscriptions are made again in `onConnect`. The protocol is MQTT 5 (for the subscription options
/// a command topic needs); the broker must speak it (mosquitto does since 1.6).
///
/// Threads: libmosquitto locks its own state (`mosquitto_threaded_set`: our thread is not its own); this class
/// is used from any thread (`@unchecked Sendable`: the only non-Sendable field is the opaque handle, which
/// libmosquitto guards). The lifecycle calls (`connect`, `disconnect`, `close`) are meant for one owner thread;
/// `close` (or `deinit`) stops the network thread and waits for it before the handle is destroyed, so no
/// callback runs after it.
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
        /// The broker answered CONNECT with a refusal (`MQTTRefusal`: bad credentials, not authorised...); when nil,
        /// `onDisconnect` gets its reason text instead.
        public var onRefused: (@Sendable (Refusal) -> Void)?
        /// The broker answered a SUBSCRIBE: the granted QoS of each pattern, 128 or more for a refused one (MQTT 5
        /// reason codes: 135 "not authorised" when an ACL denies it).
        public var onSubscribed: @Sendable ([Int32]) -> Void
        /// The network thread gave up for good (a TLS failure, a protocol error): the reason; no more attempts follow.
        public var onGaveUp: @Sendable (String) -> Void

        public init(
            onConnect: @escaping @Sendable () -> Void = {}, onDisconnect: @escaping @Sendable (String) -> Void = { _ in },
            onMessage: @escaping @Sendable (MQTTMessage) -> Void = { _ in }, onRefused: (@Sendable (Refusal) -> Void)? = nil,
            onSubscribed: @escaping @Sendable ([Int32]) -> Void = { _ in }, onGaveUp: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.onConnect = onConnect
            self.onDisconnect = onDisconnect
            self.onMessage = onMessage
            self.onRefused = onRefused
            self.onSubscribed = onSubscribed
            self.onGaveUp = onGaveUp
        }
    }

    /// A broker's refusal of CONNECT: the CONNACK code (MQTT 3 codes below 128, MQTT 5 reason codes from 128 on)
    /// and libmosquitto's text for it.
    public struct Refusal: Sendable, Equatable {
        public var code: Int32
        public var reason: String
        /// Bad user name or password, or not authorised (MQTT 5: 134, 135; MQTT 3: 4, 5).
        public var isAuthentication: Bool { [4, 5, 134, 135].contains(code) }
    }

    /// A user name and password for the broker (`mosquitto_username_pw_set`; sent in CONNECT, so use TLS off loopback).
    public struct Credentials: Sendable {
        public var username: String
        public var password: String?
        public init(username: String, password: String?) {
            self.username = username
            self.password = password
        }
    }

    /// TLS to the broker (`mosquitto_tls_set`): the CA certificate(s) that signed the broker's (PEM; the broker's
    /// name or address must match its certificate), and optionally a client certificate and its key (PEM,
    /// unencrypted).
    public struct TLS: Sendable {
        public var caFile: String
        public var certFile: String?
        public var keyFile: String?
        public init(caFile: String, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
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
    /// The waits between reconnect attempts: 1 s, 2 s, then every 4 s.
    public static let reconnectBackoff = Backoff(first: 1, maximum: 4)

    /// The state the C callbacks reach (through `mosquitto_new`'s user pointer): the handlers and the
    /// counters. Retained once for the handle's lifetime with `Unmanaged.passRetained` and released after
    /// `mosquitto_destroy`, when no callback can run any more; it holds no reference to the client, so
    /// the client's `deinit` still runs.
    final class Box: Sendable {
        let handlers: Handlers
        let connected = Atomic<Bool>(false)
        /// Connections the broker accepted so far.
        let accepted = Atomic<Int>(0)
        /// Publishes handed to libmosquitto and not yet written (QoS 0) or acknowledged (QoS 1, 2).
        let pending = Atomic<Int>(0)
        /// The message ids last written or acknowledged, newest last (at most 64), for `publishAndWait`.
        let done = Mutex<[Int32]>([])
        /// The last OpenSSL error libmosquitto logged (`OpenSSL Error[0]: error:...`), for the reason of a TLS failure;
        /// cleared on each accepted connection.
        let tlsError = Mutex<String?>(nil)
        /// TLS is configured (`configure`).
        let tls = Atomic<Bool>(false)
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
    /// The network thread's side: its stop flag, wakeup, end and attempt count.
    private let network: Network

    /// `mosquitto_lib_init`, once per process (a lazily initialised static is initialised exactly once).
    private static let library: Int32 = mosquitto_lib_init()

    /// A client with `clientID` (clean session) whose events go to `handlers`; reconnect attempts wait
    /// `reconnect`'s delays on `clock`. Nothing connects yet.
    public init(
        clientID: String, handlers: Handlers, clock: any HostClock = SystemClock.shared, reconnect: Backoff = MQTTClient.reconnectBackoff
    ) throws(MQTTError) {
        network = Network(clock: clock, backoff: reconnect)
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
                b.tlsError.withLock { $0 = nil }
                b.connected.store(true, ordering: .relaxed)
                b.accepted.add(1, ordering: .relaxed)
                b.handlers.onConnect()
            } else {
                // MQTT 3 CONNACK codes are below 128, MQTT 5 reason codes from 128 on.
                let refusal = Refusal(code: rc, reason: String(cString: rc < 128 ? mosquitto_connack_string(rc) : mosquitto_reason_string(rc)))
                if let refused = b.handlers.onRefused { refused(refusal) } else { b.handlers.onDisconnect(refusal.reason) }
            }
        }
        mosquitto_disconnect_callback_set(h) { _, user, rc in
            guard let b = MQTTClient.box(user) else { return }
            let was = b.connected.exchange(false, ordering: .relaxed)
            // A failed TLS handshake is reported once, by the network thread, when it gives up (`onGaveUp`). With TLS
            // 1.3 a refused client certificate shows first as EPROTO, before libmosquitto logs OpenSSL's reason.
            let proto = rc == Int32(MOSQ_ERR_ERRNO.rawValue) && errno == EPROTO
            if rc != 0, !was, b.tlsError.withLock({ $0 }) != nil || (b.tls.load(ordering: .relaxed) && proto) { return }
            var why = rc == 0 ? "disconnected" : MQTTError(code: rc).message
            if rc == Int32(MOSQ_ERR_CONN_LOST.rawValue) && b.accepted.load(ordering: .relaxed) == 0 {
                why += " before the broker answered (a TLS listener spoken to without TLS?)"
            }
            b.handlers.onDisconnect(why)
        }
        mosquitto_subscribe_callback_set(h) { _, user, _, count, granted in
            guard let b = MQTTClient.box(user) else { return }
            let codes = granted.map { g in (0..<Int(max(0, count))).map { g[$0] } } ?? []
            b.handlers.onSubscribed(codes)
        }
        // libmosquitto's own log: only its errors are kept (the OpenSSL reason of a failed handshake).
        mosquitto_log_callback_set(h) { _, user, level, text in
            guard level == MOSQ_LOG_ERR, let b = MQTTClient.box(user), let text else { return }
            let line = String(cString: text)
            if line.hasPrefix("OpenSSL Error") { b.tlsError.withLock { $0 = line } }
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

    /// Reconnect attempts the network thread made so far (after a connection was lost or refused).
    public var reconnectAttempts: Int { network.attempts.load(ordering: .relaxed) }

    /// Sets the user name and password and TLS (call before `connect`). A TLS file that cannot be read is refused
    /// here (`MOSQ_ERR_INVAL`); one that is not a certificate or key the broker accepts fails at `connect`.
    public func configure(credentials: Credentials?, tls: TLS?) throws(MQTTError) {
        if let credentials {
            let rc = mosquitto_username_pw_set(handle, credentials.username, credentials.password)
            guard rc == 0 else { throw MQTTError(code: rc) }
        }
        if let tls {
            box.tls.store(true, ordering: .relaxed)
            let rc = mosquitto_tls_set(handle, tls.caFile, nil, tls.certFile, tls.keyFile, nil)
            guard rc == 0 else {
                throw MQTTError(code: rc, message: "TLS files refused (\(MQTTError(code: rc).message)): \(tls.caFile)"
                    + (tls.certFile.map { ", \($0)" } ?? "") + (tls.keyFile.map { ", \($0)" } ?? ""))
            }
        }
    }

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
            // libmosquitto checks the range itself (MOSQ_ERR_INVAL, its own text); only what C's int cannot hold stops here.
            guard let port32 = Int32(exactly: port) else { throw MQTTError(code: Int32(MOSQ_ERR_INVAL.rawValue)) }
            if let will {
                guard let size = Int32(exactly: will.payload.count) else { throw MQTTError(code: Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue)) }
                let rc = will.payload.withUnsafeBytes { p in
                    mosquitto_will_set(handle, will.topic, size, p.baseAddress, 1, will.retain)
                }
                guard rc == 0 else { throw MQTTError(code: rc) }
            }
            var rc = mosquitto_connect_async(handle, host, port32, keepalive)
            guard rc == 0 else {
                // The handshake starts here: a broker that refuses it at once (TLS 1.3: no client certificate) shows
                // as EPROTO, like the loop's later failure. Not retryable either way (MOSQ_ERR_TLS).
                let proto = rc == Int32(MOSQ_ERR_ERRNO.rawValue) && errno == EPROTO
                if rc == Int32(MOSQ_ERR_TLS.rawValue) || (proto && box.tls.load(ordering: .relaxed)) {
                    let line = box.tlsError.withLock { $0 } ?? "handshake failed (\(MQTTError(code: rc).message))"
                    throw MQTTError(code: Int32(MOSQ_ERR_TLS.rawValue), message: "TLS: \(line)")
                }
                throw MQTTError(code: rc)
            }
            // Our own network thread: libmosquitto must lock as it does under mosquitto_loop_start. Set after the
            // first attempt: in threaded mode libmosquitto reports even a refused loopback connect only later, from
            // the loop, and a refused first attempt must be thrown here (nothing started).
            rc = mosquitto_threaded_set(handle, true)
            guard rc == 0 else { throw MQTTError(code: rc) }
            let network = self.network, shared = Handle(raw: handle), box = self.box
            let t = Thread { Self.run(shared, box: box, network: network) }
            t.name = "mosquitto loop"
            t.start()
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
        guard let size = Int32(exactly: payload.count) else { throw MQTTError(code: Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue)) }
        var mid: Int32 = 0
        box.pending.add(1, ordering: .relaxed)
        let rc = payload.withUnsafeBytes { p in mosquitto_publish(handle, &mid, topic, size, p.baseAddress, qos, retain) }
        guard rc == 0 else {
            box.pending.subtract(1, ordering: .relaxed)
            throw MQTTError(code: rc)
        }
        return mid
    }

    /// Publishes with QoS 1 and waits (at most `timeout` s of real time: the broker answers in real time,
    /// whatever the client's clock) for the broker's acknowledgement; true when it came. For the last words
    /// before `disconnect`.
    public func publishAndWait(_ topic: String, _ payload: Data, retain: Bool, timeout: Double) -> Bool {
        guard let mid = try? publish(topic, payload, qos: 1, retain: retain) else { return false }
        let real = SystemClock.shared
        let deadline = real.now + timeout
        while real.now < deadline {
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
        network.stopping.store(true, ordering: .relaxed)
        network.wakeup.signal()
        _ = mosquitto_disconnect(handle)
    }

    /// Stops the network thread (after `disconnect`, or it may wait for a reconnect attempt under way); idempotent.
    /// No handler runs after it returns.
    public func close() {
        let stop = lifecycle.withLock { l in
            defer { l.closed = true }
            return l.started && !l.closed
        }
        guard stop else { return }
        disconnect()  // the thread ends instead of retrying; a back-off wait ends at once
        network.ended.wait()
        box.connected.store(false, ordering: .relaxed)
    }

    // MARK: - The network thread

    /// The handle, for the network thread (libmosquitto guards it: `mosquitto_threaded_set`).
    struct Handle: @unchecked Sendable { let raw: OpaquePointer }

    /// What the network thread shares with the client (it holds no reference to the client, so `deinit` runs).
    final class Network: Sendable {
        let clock: any HostClock
        let backoff: Backoff
        /// Set by `disconnect`/`close`: no more attempts, the thread ends once the connection is gone.
        let stopping = Atomic<Bool>(false)
        /// Ends a back-off wait when stopping.
        let wakeup = Wakeup()
        /// Signalled when the thread has ended.
        let ended = DispatchSemaphore(value: 0)
        /// Reconnect attempts made.
        let attempts = Atomic<Int>(0)
        init(clock: any HostClock, backoff: Backoff) { self.clock = clock; self.backoff = backoff }
    }

    /// libmosquitto's errors after which `mosquitto_loop_forever` gives up instead of reconnecting (the same list).
    static let fatal: Set<Int32> = Set(
        [
            MOSQ_ERR_NOMEM, MOSQ_ERR_PROTOCOL, MOSQ_ERR_INVAL, MOSQ_ERR_NOT_FOUND, MOSQ_ERR_TLS, MOSQ_ERR_PAYLOAD_SIZE,
            MOSQ_ERR_NOT_SUPPORTED, MOSQ_ERR_AUTH, MOSQ_ERR_ACL_DENIED, MOSQ_ERR_UNKNOWN, MOSQ_ERR_EAI, MOSQ_ERR_PROXY,
        ].map { Int32($0.rawValue) })

    /// The network thread: `mosquitto_loop` (reads, writes, keep-alive pings, callbacks) while the connection
    /// lasts; when it ends, reconnect attempts after the back-off's delays (reset once the broker accepted a
    /// connection) until one connects or the client stops. As `mosquitto_loop_forever`, with our clock.
    private static func run(_ handle: Handle, box: Box, network: Network) {
        defer { network.ended.signal() }
        var backoff = network.backoff
        var acceptedBefore = box.accepted.load(ordering: .relaxed)
        var acceptedAtAttempt = acceptedBefore
        var afterStop = 0
        while true {
            let rc = mosquitto_loop(handle.raw, 1000, 1)
            if network.stopping.load(ordering: .relaxed) {
                // Let the DISCONNECT go out (the connection closes after it), a few rounds at most.
                afterStop += 1
                if rc != Int32(MOSQ_ERR_SUCCESS.rawValue) || afterStop > 5 { return }
                continue
            }
            if rc == Int32(MOSQ_ERR_SUCCESS.rawValue) { continue }
            let proto = errno == EPROTO
            // A TLS error before the broker accepted this connection is the handshake's (an unknown CA, a name
            // that does not match): no later attempt can mend it. One after is a lost connection like any.
            // EPROTO alone (the broker ended the handshake before OpenSSL read its alert) is the same failure.
            let line = box.tlsError.withLock { t in defer { t = nil }; return t }
            let handshake = line != nil || (proto && box.tls.load(ordering: .relaxed))
            if handshake && box.accepted.load(ordering: .relaxed) == acceptedAtAttempt {
                box.handlers.onGaveUp("TLS: \(line ?? "handshake failed (Protocol error)")")
                return
            }
            if fatal.contains(rc) || proto {
                box.handlers.onGaveUp(proto ? "protocol error" : MQTTError(code: rc).message)
                return
            }
            // The connection ended (or never came up): attempts until one connects.
            let accepted = box.accepted.load(ordering: .relaxed)
            if accepted != acceptedBefore {
                backoff.reset()
                acceptedBefore = accepted
            }
            while true {
                if network.clock.sleep(seconds: backoff.next(), unlessSignalled: network.wakeup) { return }
                if network.stopping.load(ordering: .relaxed) { return }
                network.attempts.add(1, ordering: .relaxed)
                acceptedAtAttempt = box.accepted.load(ordering: .relaxed)
                if mosquitto_reconnect(handle.raw) == Int32(MOSQ_ERR_SUCCESS.rawValue) { break }
            }
        }
    }
}
