import FrameAnalysis
import GStreamerKit

/// The recent clean frames `capture` picks its photo from: copies, newest last, bounded by time
/// (`ring-ms`) and bytes (`ring-mb`); plus the frames compose is still analysing on its own thread and
/// the newest frame whose own analysis arrived, kept aside even after they leave the ring.
///
/// A value with no lock of its own: the stage keeps it inside its runtime mutex, used from `process`
/// on the group's worker (and reset from `configure`).
struct FrameRing {
    /// One kept frame.
    struct Entry {
        var frame: VideoFrame
        /// Its running time (ns).
        var time: UInt64
        var candidate: CaptureChoice.Candidate
        /// compose's analysis of this very frame (arrives with a later frame's meta when compose analyses
        /// on its own thread); nil until then, or when this frame was not analysed.
        var composition: FrameComposition?
    }

    /// Frames in the ring, oldest first.
    private(set) var entries: [Entry] = []
    /// Their bytes.
    private(set) var bytes = 0
    /// Frames compose is analysing on its own thread (copies), until their result arrives.
    private var awaiting: [Entry] = []
    /// The newest frame whose own analysis arrived.
    private var analysed: Entry?
    /// The pts of the last frame taken as a photo.
    private(set) var lastTakenPts: UInt64?

    /// Forgets every frame (a new layout).
    mutating func reset() {
        entries.removeAll(); bytes = 0
        awaiting.removeAll(); analysed = nil
    }

    /// Whether a frame's buffer is held outside the ring (so the ring must not reuse its memory).
    private func isAside(_ f: VideoFrame) -> Bool {
        awaiting.contains { $0.frame.buffer === f.buffer } || analysed.map { $0.frame.buffer === f.buffer } ?? false
    }

    /// The buffer of the oldest frame when it is about to leave the ring at `time` (older than `keepMs`)
    /// and nothing else holds it: the next copy reuses its memory.
    mutating func spare(at time: UInt64, keepMs: Int) -> Buffer? {
        guard keepMs > 0, let first = entries.first, entries.count > 1 else { return nil }
        guard first.time &+ UInt64(keepMs) * 1_000_000 < time, !isAside(first.frame) else { return nil }
        bytes -= first.frame.buffer.size
        return entries.removeFirst().frame.buffer
    }

    /// compose dropped the analysis of the frame with pts `skipped`: it is no longer awaited.
    mutating func forget(skipped: UInt64) { awaiting.removeAll { $0.frame.pts == skipped } }

    /// An analysis that finished after its frame went by belongs to that frame: in the ring, and in
    /// the frames kept aside for it (a slow analysis may end after the frame left the ring).
    mutating func attach(_ c: FrameComposition, toFrameAt apts: UInt64) {
        if let i = entries.lastIndex(where: { $0.frame.pts == apts }), entries[i].composition == nil {
            entries[i].composition = c
            entries[i].candidate.score = c.score
        }
        if let i = awaiting.firstIndex(where: { $0.frame.pts == apts }) {
            var e = awaiting.remove(at: i)
            e.composition = c
            e.candidate.score = c.score
            analysed = e
        }
        awaiting.removeAll { ($0.frame.pts ?? 0) < apts }
    }

    /// Keeps `current` (whose frame is `copy` when one was made): in the ring when `keepMs` > 0, aside
    /// while compose is `analysing` it, or as the newest analysed frame when it carries its own analysis.
    mutating func add(_ current: Entry, copy: VideoFrame?, analysing: Bool, keepMs: Int, budget: Int) {
        if analysing, let copy {
            // Kept until its result arrives (or compose says the job was replaced by a newer one before it
            // ran). Bounded: compose runs one job and holds one more, so more than four waiting means
            // results were lost; the oldest goes.
            awaiting.append(Entry(frame: copy, time: current.time, candidate: current.candidate, composition: nil))
            if awaiting.count > 4 { awaiting.removeFirst() }
        } else if let own = current.composition, let copy {
            analysed = Entry(frame: copy, time: current.time, candidate: current.candidate, composition: own)
        }
        guard let copy, keepMs > 0 else { return }
        entries.append(current)
        bytes += copy.buffer.size
        let horizon = UInt64(keepMs) * 1_000_000
        while entries.count > 1, entries[0].time &+ horizon < current.time || bytes > budget {
            bytes -= entries.removeFirst().frame.buffer.size
        }
    }

    /// The frame to take for a `kind` capture, `current` when nothing better is kept; remembered as the
    /// last taken. The best of the ring; for the self-timer, of the frames at its deadline only (this one
    /// and the one before), so the photo is the moment the countdown promised. Frames whose own analysis
    /// is known come first, so the photo's record tells its truth.
    mutating func pick(for kind: CaptureTrigger, current: Entry) -> Entry {
        var all = kind == .timer ? Array(entries.suffix(2)) : entries
        // The latest analysed frame, when it has left the ring: the frame the verdict was about.
        if kind != .timer, let a = analysed, !all.contains(where: { $0.frame.pts == a.frame.pts }) { all.insert(a, at: 0) }
        // A new photo is of a later moment than the last one (a slow analysis must not make two of one frame).
        if let last = lastTakenPts { all.removeAll { ($0.frame.pts ?? UInt64.max) <= last } }
        let withAnalysis = all.filter { $0.composition != nil }
        let pool = withAnalysis.isEmpty ? all : withAnalysis
        let pick = pool.isEmpty ? current : pool[CaptureChoice.best(pool.map(\.candidate)) ?? (pool.count - 1)]
        if let p = pick.frame.pts { lastTakenPts = p }
        return pick
    }
}
