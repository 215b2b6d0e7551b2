import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Fans `viewfinder/*` element messages out to the `/api/events` clients as server-sent events.
///
/// Threads and locks: `publish` runs on the bus loop's thread (via `Session.onElementMessage`) and
/// never waits: it encodes the event once, then appends it to each client's bounded buffer (newest
/// only: the oldest is dropped and counted) under that client's mutex. Each client's stream is read by
/// its own server task. The hub's mutex (the client table) is taken alone, briefly; a client's mutex is
/// never taken while holding the hub's. A slow or stuck client therefore costs only its own buffer.
public final class EventHub: Sendable {
    /// Events kept per client before the oldest is dropped.
    public static let perClientLimit = 256
    /// Clients at once; more get 503.
    public static let clientLimit = 16

    private let clients = Mutex<(next: Int, all: [Int: EventClient])>((0, [:]))

    /// An empty hub.
    public init() {}

    /// Number of connected clients.
    public var count: Int { clients.withLock { $0.all.count } }

    /// Sends `message` to every client if it is a `viewfinder/*` message. Never blocks.
    public func publish(_ message: BusMessage) {
        guard message.structure.name.hasPrefix("viewfinder/") else { return }
        let targets = clients.withLock { Array($0.all.values) }
        guard !targets.isEmpty else { return }
        let data = Self.event(message)
        for c in targets { c.push(data) }
    }

    /// A comment line to every client, so a dead connection is noticed and dropped (heartbeat).
    public func ping() {
        let targets = clients.withLock { Array($0.all.values) }
        for c in targets { c.push(Data(": ping\n\n".utf8)) }
    }

    /// The heartbeat: `ping()` every `seconds` of `clock` until the task is cancelled (the server's stop).
    public func heartbeat(every seconds: Double, clock: any HostClock) -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                await clock.sleep(forAsync: seconds)
                if Task.isCancelled { break }
                self?.ping()
            }
        }
    }

    /// Ends every client's stream (end of run).
    public func close() {
        let targets = clients.withLock { c in
            defer { c.all.removeAll() }
            return Array(c.all.values)
        }
        for c in targets { c.close() }
    }

    /// A new client, or nil when `clientLimit` are connected.
    func subscribe() -> EventClient? {
        clients.withLock { c in
            guard c.all.count < Self.clientLimit else { return nil }
            let client = EventClient(id: c.next, limit: Self.perClientLimit, notesDrops: true) { [weak self] in self?.remove($0) }
            c.all[c.next] = client
            c.next += 1
            return client
        }
    }

    /// Forgets a client (its stream ended or its connection went away).
    func remove(_ id: Int) { _ = clients.withLock { $0.all.removeValue(forKey: id) } }

    /// `data: {"source": ..., "name": ..., "fields": {...}}` and a blank line.
    static func event(_ message: BusMessage) -> Data { Data("data: ".utf8) + json(message) + Data("\n\n".utf8) }

    /// `{"source": ..., "name": ..., "fields": {...}}`: the JSON of one message (SSE and MQTT).
    public static func json(_ message: BusMessage) -> Data {
        var fields: [String: Any] = [:]
        for (k, v) in message.structure.fields {
            switch v {
            case .int(let i): fields[k] = Int(i)
            case .uint64(let u): fields[k] = u <= UInt64(Int.max) ? Int(u) : String(u)
            case .double(let d): fields[k] = d.isFinite ? d : String(d)
            case .bool(let b): fields[k] = b
            case .string(let s): fields[k] = s
            }
        }
        let object: [String: Any] = ["source": message.source, "name": message.structure.name, "fields": fields]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}

/// One streaming connection (`/api/events`, the preview): a bounded newest-only buffer filled by a hub,
/// drained by the connection's task (`ControlStream`; the server calls `leave()` when the connection ends).
final class EventClient: Sendable {
    struct State {
        var items: [Data] = []
        var waiter: CheckedContinuation<Data?, Never>?
        var closed = false
        var dropped = 0
    }
    let id: Int
    /// Items kept before the oldest is dropped.
    let limit: Int
    /// Whether the next item after drops starts with an SSE comment saying how many were dropped.
    let notesDrops: Bool
    private let onLeave: @Sendable (Int) -> Void
    private let state = Mutex(State())

    init(id: Int, limit: Int, notesDrops: Bool, onLeave: @escaping @Sendable (Int) -> Void) {
        self.id = id; self.limit = limit; self.notesDrops = notesDrops; self.onLeave = onLeave
    }

    /// Adds an item; beyond `limit` the oldest waiting one is dropped. Never blocks.
    func push(_ data: Data) {
        let waiter: CheckedContinuation<Data?, Never>? = state.withLock { s in
            if s.closed { return nil }
            if let w = s.waiter { s.waiter = nil; return w }
            s.items.append(data)
            if s.items.count > limit { s.items.removeFirst(); s.dropped += 1 }
            return nil
        }
        waiter?.resume(returning: data)
    }

    /// The next event to write (waits for one), nil once closed.
    func next() async -> Data? {
        await withCheckedContinuation { (c: CheckedContinuation<Data?, Never>) in
            let ready: Data?? = state.withLock { s in
                if !s.items.isEmpty {
                    var d = s.items.removeFirst()
                    if s.dropped > 0 {
                        if notesDrops { d = Data(": dropped \(s.dropped)\n\n".utf8) + d }
                        s.dropped = 0
                    }
                    return .some(d)
                }
                if s.closed { return .some(nil) }
                s.waiter = c
                return .none
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// Ends the stream: the waiting read gets nil.
    func close() {
        let waiter = state.withLock { s in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Leaves the hub (called when the connection's stream is released).
    func leave() {
        close()
        onLeave(id)
    }
}
