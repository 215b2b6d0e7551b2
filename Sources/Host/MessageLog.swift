import GStreamerKit
import Stages
import Synchronization

/// The element messages a session has seen, oldest first, bounded to the newest `limit`.
///
/// Threads and locks: the bus loop appends on the thread running `Session.run()`; any thread may read
/// (tests, `onPlaying` helpers) at any time. One mutex guards the list; nothing else is locked inside it.
final class MessageLog: Sendable {
    /// How many messages are kept (the oldest go first).
    let limit: Int
    private let kept = Mutex<[BusMessage]>([])

    /// An empty log keeping the newest `limit` messages.
    init(limit: Int = 1000) { self.limit = max(1, limit) }

    /// Adds one message, dropping the oldest beyond the limit.
    func append(_ message: BusMessage) {
        kept.withLock { k in
            if k.count >= limit { k.removeFirst(k.count - limit + 1) }
            k.append(message)
        }
    }

    /// Every message kept, oldest first.
    var all: [BusMessage] { kept.withLock { $0 } }

    /// The kept messages of kind `M` that decode, oldest first.
    func messages<M: ViewfinderMessage>(_ kind: M.Type) -> [M] { all.compactMap { $0.decode(kind) } }
}
