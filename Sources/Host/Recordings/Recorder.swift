import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// One `recordings` element while its session lives: its segments (what `recordings.json` lists), which one
/// splitmuxsink writes, and its retention (`RetentionPolicy`), run by `sweep()`.
///
/// It only ever deletes `REC_nnnnn.EXT` regular files (`SegmentName`) of its own directory that it lists: clips,
/// photos, the index, anything else there is never touched, nor a segment that is open or not yet seen closed by
/// this run (index `startIndex` or above).
///
/// Threads and locks: `state` (a mutex, held briefly) is changed by splitmuxsink's messages on the bus loop's
/// thread and read by the routes' tasks; `disk` (a lock held across file operations) serialises the sweeps (the
/// service's worker), deletes asked for by the control API (its gallery queue) and the index writes, so the bus
/// loop never waits for a disk.
public final class Recorder: @unchecked Sendable {
    /// The element as described.
    public let plan: RecordingsElement
    /// The first index this run's splitmuxsink writes (its `start-index`).
    let startIndex: Int
    let clock: any HostClock
    private struct State {
        var segments: [RecordingSegment] = []
        /// The last opened, not closed.
        var open: String?
        /// Files of this run splitmuxsink said closed.
        var closed: Set<String> = []
        /// Running time (ns) each was opened at.
        var openedAt: [String: UInt64] = [:]
        /// The index must be rewritten.
        var dirty = false
        /// Messages for the bus loop to record.
        var pending: [RecordingsMessage] = []
        var deleted: [RecordingsMessage.Reason: Int] = [:]
        var deletedBytes: Int64 = 0
    }
    private let state = Mutex(State())
    private let disk = NSLock()

    /// Removes one file (`AtomicFile.remove`; tests make it fail).
    private let remove: @Sendable (String) throws(AtomicFile.Failure) -> Void

    init(
        plan: RecordingsElement, startIndex: Int, clock: any HostClock,
        remove: @escaping @Sendable (String) throws(AtomicFile.Failure) -> Void = { path throws(AtomicFile.Failure) in
            try AtomicFile.remove(path)
        }
    ) {
        self.plan = plan; self.startIndex = startIndex; self.clock = clock; self.remove = remove
    }

    // MARK: life

    /// Makes the directory and lists what lies in it (`RecordingsIndex.rebuild`), written at once; problems are
    /// logged (the run goes on: splitmuxsink's own error ends it if it cannot write).
    func open() {
        disk.lock()
        defer { disk.unlock() }
        do { try FileManager.default.createDirectory(atPath: plan.directory, withIntermediateDirectories: true) } catch {
            Log.host.say(.warning, "recordings \(plan.name): cannot create '\(plan.directory)': \(error.localizedDescription)")
            return
        }
        let (found, warnings) = RecordingsIndex.rebuild(directory: plan.directory)
        for w in warnings { Log.host.say(.notice, "recordings \(plan.name): \(w)") }
        state.withLock {
            $0.segments = found; $0.dirty = true
        }
        writeIndexLocked()
    }

    /// The run is over (the pipelines are NULL): nothing is open any more; the index is written.
    func finish() {
        disk.lock()
        defer { disk.unlock() }
        state.withLock { s in
            s.open = nil
            s.closed.formUnion(s.segments.map(\.file))
            for i in s.segments.indices where s.segments[i].open { s.segments[i].open = false; s.dirty = true }
        }
        refreshLocked()
        writeIndexLocked()
    }

    // MARK: splitmuxsink's messages

    /// Takes `splitmuxsink-fragment-opened` / `-closed` of this element (true), leaves any other message (false).
    func take(_ message: BusMessage) -> Bool {
        guard message.source == plan.name, let location = message.structure.string("location") else { return false }
        let file = FilePaths.fileName(of: location)
        let runningTime = message.structure.integer("running-time").map { UInt64(bitPattern: $0) }
        switch message.structure.name {
        case "splitmuxsink-fragment-opened": opened(file, runningTime: runningTime)
        case "splitmuxsink-fragment-closed": closed(file, runningTime: runningTime)
        default: return false
        }
        return true
    }

    func opened(_ file: String, runningTime: UInt64?) {
        let start = RecordingsIndex.timeText(clock.wallNow)
        state.withLock { s in
            s.open = file
            if let rt = runningTime { s.openedAt[file] = rt }
            s.segments.removeAll { $0.file == file }
            s.segments.append(RecordingSegment(file: file, bytes: 0, start: start, open: true))
            s.dirty = true
        }
    }

    func closed(_ file: String, runningTime: UInt64?) {
        let path = FilePaths.join(plan.directory, file)
        let look = RecordingsIndex.look(at: path, name: file)
        state.withLock { s in
            s.closed.insert(file)
            if s.open == file { s.open = nil }
            guard let i = s.segments.firstIndex(where: { $0.file == file }) else { return }
            s.segments[i].open = false
            if let look { s.segments[i].bytes = look.bytes; s.segments[i].end = look.end; s.segments[i].problem = look.problem }
            if let rt = runningTime, let from = s.openedAt[file], rt >= from { s.segments[i].duration = Double(rt - from) / 1e9 }
            s.dirty = true
        }
    }

    // MARK: retention

    /// Looks at the files, deletes what the limits say (`RetentionPolicy`), rewrites the index if anything changed.
    /// Each deletion (or failure) is logged and queued as a `viewfinder/recordings` message (`drainMessages`).
    func sweep() {
        disk.lock()
        defer { disk.unlock() }
        refreshLocked()
        // The files' times are read outside the state's lock (the bus loop takes it too).
        let (files, protected) = state.withLock { s in (s.segments.map { ($0.file, $0.bytes) }, protectedFiles(s)) }
        let candidates = files.map { file, bytes in
            RetentionPolicy.Candidate(file: file, bytes: bytes, modified: RecordingsIndex.modified(FilePaths.join(plan.directory, file)))
        }
        let victims = RetentionPolicy.victims(
            candidates, protected: protected, maxAge: plan.maxAge, maxSize: plan.maxSize, now: clock.wallNow)
        for v in victims { _ = removeLocked(v.file, bytes: v.bytes, reason: v.reason) }
        writeIndexLocked()
    }

    /// Why a delete asked for through the control API was refused.
    public enum Refusal: Error, Equatable {
        /// The index lists no such segment.
        case notListed
        /// splitmuxsink is writing it.
        case open
        /// The file could not be removed (the reason).
        case failed(String)
    }

    /// Deletes a listed segment that is not being written (`DELETE /api/recordings/NAME/FILE`); announced and logged as
    /// retention's deletions are, with reason `request`.
    public func delete(file: String) -> Result<RecordingSegment, Refusal> {
        disk.lock()
        defer { disk.unlock() }
        let found = state.withLock { s -> Result<RecordingSegment, Refusal> in
            guard let seg = s.segments.first(where: { $0.file == file }) else { return .failure(.notListed) }
            return protectedFiles(s).contains(file) ? .failure(.open) : .success(seg)
        }
        guard case .success(let seg) = found else { return found }
        if let reason = removeLocked(file, bytes: seg.bytes, reason: .request) { writeIndexLocked(); return .failure(.failed(reason)) }
        writeIndexLocked()
        return .success(seg)
    }

    // MARK: what others read

    /// The segments, oldest first, and the one being written.
    public var snapshot: (segments: [RecordingSegment], open: String?) { state.withLock { ($0.segments, $0.open) } }

    /// Messages queued since the last call (deletions, failed deletions).
    func drainMessages() -> [RecordingsMessage] {
        state.withLock { s in
            defer { s.pending = [] }
            return s.pending
        }
    }

    /// Deletions so far by reason, and their bytes.
    var deletions: (byReason: [RecordingsMessage.Reason: Int], bytes: Int64) { state.withLock { ($0.deleted, $0.deletedBytes) } }

    // MARK: with `disk` held

    /// The open segment and every segment of this run not yet seen closed.
    private func protectedFiles(_ s: State) -> Set<String> {
        var p = Set(
            s.segments.filter { seg in
                guard let i = SegmentName.index(of: seg.file) else { return true }
                return i >= startIndex && !s.closed.contains(seg.file)
            }.map(\.file))
        if let open = s.open { p.insert(open) }
        return p
    }

    /// Sizes from disk; a listed file that is gone is dropped, a segment file not listed yet is added.
    private func refreshLocked() {
        let onDisk = SegmentName.list(in: plan.directory)
        let looks = Dictionary(
            onDisk.compactMap { n in RecordingsIndex.look(at: FilePaths.join(plan.directory, n), name: n).map { (n, $0) } },
            uniquingKeysWith: { a, _ in a })
        state.withLock { s in
            let before = s.segments
            s.segments.removeAll { looks[$0.file] == nil && !$0.open }
            for i in s.segments.indices {
                guard let l = looks[s.segments[i].file] else { continue }
                s.segments[i].bytes = l.bytes
                if !s.segments[i].open { s.segments[i].end = l.end }
                if s.segments[i].problem == "empty" && l.bytes > 0 { s.segments[i].problem = nil }
            }
            let listed = Set(s.segments.map(\.file))
            for n in onDisk where !listed.contains(n) { if let l = looks[n] { s.segments.append(l) } }
            s.segments.sort { (SegmentName.index(of: $0.file) ?? 0) < (SegmentName.index(of: $1.file) ?? 0) }
            if s.segments != before { s.dirty = true }
        }
    }

    /// Removes one segment file; nil when done (or already gone), else the reason it failed. Logged and queued.
    private func removeLocked(_ file: String, bytes: Int64, reason: RecordingsMessage.Reason) -> String? {
        let path = FilePaths.join(plan.directory, file)
        var failure: String?
        do { try remove(path) } catch { failure = error.reason }
        let message = RecordingsMessage(
            event: failure == nil ? .deleted : .deleteFailed, element: plan.name, file: file, bytes: bytes, reason: reason,
            text: failure ?? "")
        state.withLock { s in
            s.pending.append(message)
            guard failure == nil else { return }
            s.segments.removeAll { $0.file == file }
            s.deleted[reason, default: 0] += 1
            s.deletedBytes += bytes
            s.dirty = true
        }
        let why = Self.why(reason, plan)
        if let failure {
            Log.host.say(.warning, "recordings \(plan.name): cannot delete \(file) (\(why)): \(failure); the run goes on")
        } else {
            Log.host.say(.info, "recordings \(plan.name): deleted \(file) (\(bytes) bytes, \(why))")
        }
        return failure
    }

    private static func why(_ reason: RecordingsMessage.Reason, _ plan: RecordingsElement) -> String {
        switch reason {
        case .age: "older than max-age \(RecordingLimits.durationText(plan.maxAge))"
        case .size: "over max-size \(RecordingLimits.sizeText(plan.maxSize))"
        case .request: "asked for through the control API"
        }
    }

    /// Writes recordings.json when something changed; a failure is logged and tried again at the next change.
    private func writeIndexLocked() {
        let segments: [RecordingSegment]? = state.withLock { s in
            guard s.dirty else { return nil }
            s.dirty = false
            return s.segments
        }
        guard let segments else { return }
        do { try RecordingsIndex.write(segments, element: plan.name, directory: plan.directory) } catch {
            state.withLock { $0.dirty = true }
            Log.host.say(.warning, "recordings \(plan.name): cannot write \(RecordingsIndex.path(in: plan.directory)): \(error.reason)")
        }
    }
}
