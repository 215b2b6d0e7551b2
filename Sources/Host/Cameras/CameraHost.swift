import Foundation
import Stages
import Synchronization
import Timing

/// The named pipelines of one `viewfinder serve` process: loaded from its `CameraStore`, added, started, stopped,
/// restarted and removed while the others run, each a `Camera` (a thread and a whole `Session` of its own).
/// Additions and removals are written back to the store before they are answered.
///
/// Threads and locks: commands come from the API's tasks, MQTT's thread and the signal thread. `table` (the cameras
/// by name) is taken briefly; `edits` serialises additions and removals (validation, the store's files, the table)
/// so two requests for one name cannot both win. No lock is held while a camera drains.
public final class CameraHost: @unchecked Sendable {
    /// Where the pipelines are kept.
    public let store: CameraStore
    /// The clock cameras time their restarts by.
    public let clock: any HostClock
    /// The options a camera's session is built with (its services: the control endpoint, MQTT...).
    let options: @Sendable (CameraSpec) throws(HostError) -> SessionOptions
    private let table = Mutex<[String: Camera]>([:])
    private let edits = NSLock()
    private let listeners = Mutex<[@Sendable (PipelineMessage) -> Void]>([])
    /// Most pipelines one process runs.
    public static let limit = 64

    /// A host on `store`; `options` makes each session's options (called for every run).
    public init(
        store: CameraStore, clock: any HostClock = SystemClock.shared,
        options: @escaping @Sendable (CameraSpec) throws(HostError) -> SessionOptions
    ) {
        self.store = store; self.clock = clock; self.options = options
    }

    /// Calls `listener` with every camera's changes of state (on the camera's or the caller's thread; must not block).
    public func listen(_ listener: @escaping @Sendable (PipelineMessage) -> Void) { listeners.withLock { $0.append(listener) } }

    /// Every camera, by name.
    public var cameras: [Camera] { table.withLock { $0.values.sorted { $0.name < $1.name } } }

    /// The camera named `name`.
    public func camera(named name: String) -> Camera? { table.withLock { $0[name] } }

    /// Builds every pipeline of the store (a usage error naming the file stops everything before anything plays or
    /// binds), calls `bind` (the server listens: the sessions' endpoints need its origins when prepared), then
    /// prepares and starts them all.
    public func startAll(bind: () throws(HostError) -> Void = {}) throws(HostError) {
        let specs = try store.load()
        guard specs.count <= Self.limit else {
            throw HostError(.usage, "serve: \(specs.count) pipelines in \(store.directory): expected at most \(Self.limit)")
        }
        var built: [(CameraSpec, Session)] = []
        for spec in specs {
            do { built.append((spec, try Session(description: spec.description, options: options(spec)))) } catch {
                throw HostError(.usage, "\(store.pipelineFile(spec.name)): \(error.message)")
            }
        }
        try bind()
        for (i, (spec, session)) in built.enumerated() {
            do { try session.prepare() } catch {
                for (_, s) in built[(i + 1)...] { s.close() }
                shutdown()
                throw HostError(.usage, "\(store.pipelineFile(spec.name)): \(error.message)")
            }
            launch(spec, running: true, first: session)
        }
    }

    /// Adds a pipeline: validated exactly like `launch` (parsed, expanded, every segment built; nothing plays on
    /// failure), written to the store, then started unless `start` is false.
    public func add(_ spec: CameraSpec, start: Bool = true) throws(PipelineRequestError) {
        do { try CameraSpec.check(name: spec.name) } catch { throw PipelineRequestError(.invalid, error.message, field: "name") }
        edits.lock()
        defer { edits.unlock() }
        guard camera(named: spec.name) == nil else {
            throw PipelineRequestError(.conflict, "a pipeline named '\(spec.name)' exists: expected a new name (or DELETE it first)", field: "name")
        }
        guard table.withLock({ $0.count }) < Self.limit else {
            throw PipelineRequestError(.conflict, "\(Self.limit) pipelines run: expected at most \(Self.limit)")
        }
        let session = try validated(spec)
        do { try store.save(spec) } catch {
            session.close()
            throw PipelineRequestError(.failed, error.message)
        }
        if start {
            launch(spec, running: true, first: session)
        } else {
            session.close()
            launch(spec, running: false, first: nil)
        }
    }

    /// Ends a pipeline (end-of-stream, recordings finalised), forgets it and removes its files from the store.
    public func remove(_ name: String) throws(PipelineRequestError) {
        edits.lock()
        defer { edits.unlock() }
        guard let camera = camera(named: name) else { throw Self.unknown(name) }
        camera.remove()
        table.withLock { _ = $0.removeValue(forKey: name) }
        do { try store.remove(name) } catch { throw PipelineRequestError(.failed, error.message) }
    }

    /// Ends every pipeline at once (end-of-stream each, in parallel), leaving the store as it is: the process's
    /// Ctrl-C. Returns when all have ended (each bounded by its drain limit).
    public func shutdown() {
        let all = cameras
        DispatchQueue.concurrentPerform(iterations: all.count) { all[$0].remove(final: .stopped) }
        table.withLock { $0.removeAll() }
    }

    /// Aborts every running session (a second Ctrl-C).
    public func abortAll() { for c in cameras { c.session?.abort() } }

    /// The camera named `name`, or the 404 saying which exist.
    public func existing(_ name: String) throws(PipelineRequestError) -> Camera {
        guard let c = camera(named: name) else { throw Self.unknown(name) }
        return c
    }

    // MARK: helpers

    /// Parses first (a parse error keeps its position and token), then builds the whole session.
    private func validated(_ spec: CameraSpec) throws(PipelineRequestError) -> Session {
        do { _ = try ParsedDescription.parse(spec.description) } catch {
            throw PipelineRequestError(
                .invalid, error.message, field: "description", position: error.offset >= 0 ? error.offset : nil, token: error.token)
        }
        do { return try makeSession(spec) } catch { throw PipelineRequestError(.invalid, error.message, field: "description") }
    }

    /// The options a session of `spec` is built with.
    public func sessionOptions(_ spec: CameraSpec) throws(HostError) -> SessionOptions { try options(spec) }

    private func makeSession(_ spec: CameraSpec) throws(HostError) -> Session {
        let session = try Session(description: spec.description, options: options(spec))
        try session.prepare()
        return session
    }

    private func launch(_ spec: CameraSpec, running: Bool, first: Session?) {
        let camera = Camera(
            spec: spec, running: running, clock: clock, build: { [weak self] spec throws(HostError) in
                guard let self else { throw HostError(.runtime, "the process is ending") }
                return try self.makeSession(spec)
            },
            announce: { [weak self] m in self?.announce(m) })
        table.withLock { $0[spec.name] = camera }
        camera.launch(first: first)
    }

    private func announce(_ m: PipelineMessage) { for l in listeners.withLock({ $0 }) { l(m) } }

    private static func unknown(_ name: String) -> PipelineRequestError {
        PipelineRequestError(.notFound, "no pipeline named '\(Echo.value(name))': expected one of GET /api/pipelines")
    }
}

/// A refused request about named pipelines, with the HTTP answer it maps to.
public struct PipelineRequestError: Error, Sendable {
    /// What kind of refusal.
    public enum Kind: Sendable {
        /// 400: a bad name, a description that does not parse or build.
        case invalid
        /// 404: no such pipeline.
        case notFound
        /// 409: the name exists, too many pipelines, not now.
        case conflict
        /// 500: the store could not be written.
        case failed
    }
    public var kind: Kind
    public var message: String
    /// The request field to blame.
    public var field: String?
    /// Where in the description the bad token starts (characters), for parse errors.
    public var position: Int?
    /// The bad token, for parse errors.
    public var token: String?

    public init(_ kind: Kind, _ message: String, field: String? = nil, position: Int? = nil, token: String? = nil) {
        self.kind = kind; self.message = message; self.field = field; self.position = position; self.token = token
    }
}
