import GStreamerKit
import Synchronization

/// Source recovery's gate on a supervised group (`SourceKeeper` installs it when it starts watching): frames whose
/// running time is not after the last one passed on are dropped (live frames arriving behind the placeholders that
/// stood in for them); before a live frame that comes back further on than the placeholders reached, `filler`'s
/// placeholders fill the hole, so a recording never has one.
///
/// Threads and locks: `admit` runs on the group's worker (its own state is the worker's); `lastLiveRunningTime`
/// and `livePassed` are atomics the keeper's thread reads; `filler` is set once before the gate is installed.
final class SourceGate: GroupInputGate, @unchecked Sendable {
    /// Running time of the last live (not placeholder) frame passed on, and how many were: what the keeper fills
    /// up to and counts for "restored".
    let lastLiveRunningTime = Atomic<UInt64>(0)
    let livePassed = Atomic<Int>(0)
    /// While lost, the placeholders between the last frame passed on and a live frame at a later running time.
    let filler: @Sendable (UInt64, UInt64, Caps, Segment) -> [Buffer]
    /// Worker only.
    private var lastRunningTime: UInt64?

    init(filler: @escaping @Sendable (UInt64, UInt64, Caps, Segment) -> [Buffer]) { self.filler = filler }

    func admit(_ buffer: Buffer, caps: Caps?, segment: Segment) -> (buffers: [Buffer], behind: Int) {
        var candidates: [Buffer] = []
        if !buffer.isPlaceholder, let last = lastRunningTime, let caps, let rt = buffer.pts.flatMap({ segment.runningTime($0) }) {
            candidates = filler(last, rt, caps, segment)
        }
        candidates.append(buffer)
        var out: [Buffer] = []
        var behind = 0
        for b in candidates {
            guard let rt = b.pts.flatMap({ segment.runningTime($0) }) else {
                out.append(b)
                continue
            }
            if let last = lastRunningTime, rt <= last {
                behind += 1
                continue
            }
            lastRunningTime = rt
            if !b.isPlaceholder {
                lastLiveRunningTime.store(rt, ordering: .relaxed)
                livePassed.add(1, ordering: .relaxed)
            }
            out.append(b)
        }
        return (out, behind)
    }
}
