import GStreamerKit
import Synchronization

/// Records which pixel memories (GstMemory) pass a pad, to prove a path copies no frame: a
/// downstream trace counts buffers whose memory is the very object an upstream trace saw.
///
/// Threads and locks: `record` runs on GStreamer's streaming thread of the traced pad; the counters are
/// atomics read from any thread; the ring of recent identities is behind one mutex (a downstream trace
/// takes its reference's mutex while holding none of its own).
public final class BufferTrace: Sendable {
    private let ring = Mutex<(ids: [UInt], next: Int)>(([UInt](repeating: 0, count: 256), 0))
    private let seenCount = Atomic<Int>(0)
    private let matchedCount = Atomic<Int>(0)
    private let reference: BufferTrace?
    init(reference: BufferTrace?) { self.reference = reference }
    /// Buffers that passed.
    public var seen: Int { seenCount.load(ordering: .relaxed) }
    /// Buffers whose memory was identical to one the reference trace saw recently.
    public var matched: Int { matchedCount.load(ordering: .relaxed) }
    func contains(_ id: UInt) -> Bool { ring.withLock { $0.ids.contains(id) } }
    func record(_ id: UInt) {
        seenCount.add(1, ordering: .relaxed)
        if let reference, reference.contains(id) { matchedCount.add(1, ordering: .relaxed) }
        ring.withLock { r in
            r.ids[r.next] = id; r.next = (r.next + 1) % r.ids.count
        }
    }
}

extension Element {
    /// Traces buffers on a pad; with `reference`, counts those identical to the reference's.
    public func traceBuffers(pad: String = "sink", reference: BufferTrace? = nil) -> BufferTrace {
        let trace = BufferTrace(reference: reference)
        watchBuffers(pad: pad) { trace.record($0) }
        return trace
    }
}
