import Diagnostics
import Foundation
import FrameAnalysis
import GStreamerKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The second half of a capture: follows each photo to disk and files it. The default branches'
/// multifilesinks write into `DIR/.partial/` and report each file on the bus (`busMessage`); once a
/// photo's files are all in, they are synced, moved into DIR (renumbered rather than replacing a photo
/// already there), read back and added to `records.json`. A branch that fails (`outputFailed`) fails its
/// pending photos and removes their partial files. Every outcome goes to `report` for the stage.
///
/// Threads and locks: `register`, `cancel`, `dropOutputs` from `process` on the group's worker;
/// `busMessage`, `outputFailed`, `outputsPlanned` on the host's thread. The pending list and the planned
/// outputs are each behind a mutex held only briefly; files are moved, read back and indexed on the
/// saver's own serial `writer` queue (so saving never blocks the video), which alone touches the index.
/// `report` is called on that queue (or the host's thread) with no saver lock held.
final class PhotoSaver: Sendable {
    /// Capture's outputs, whose files the saver follows.
    typealias Output = CaptureStage.Output

    /// One capture on its way to disk.
    struct Pending: Sendable {
        var number: Int
        var pts: UInt64?
        var trigger: CaptureTrigger
        /// The photo's own analysis, its subject box in the photo's pixels (after the crop).
        var composition: FrameComposition?
        var crop: FrameComposition.Window?
        var date: Date
        /// Outputs whose default branch writes a file for it.
        var expected: Set<Output>
        /// Files reported complete by multifilesink, by output.
        var files: [Output: String] = [:]
        /// False when the snapshot branch is the user's own: the record is made if a multifilesink reports it.
        var tracked: Bool
        /// Every expected file reported (a user's branch: its one file).
        var complete: Bool { !tracked || expected.isSubset(of: Set(files.keys)) }
    }

    /// What became of saves, for the stage's state machine and bus.
    struct Report: Sendable {
        /// Events for the state machine (`.saved`, `.saveFailed`), in order.
        var events: [CaptureStateMachine.Event]
        /// The message to post, if any.
        var message: CaptureMessage?
    }

    private let stage: String
    private let directory: String
    private let keepIndex: Bool
    private let cropName: String
    private let maxPending: Int
    private let pending = Mutex<[Pending]>([])
    /// Default branches the planner gave outputs (outputs nothing linked).
    private let defaultOutputs = Mutex<Set<Output>>([])
    private let openedIndex = Mutex<PhotoIndex?>(nil)
    private let warnings = Mutex<[String]>([])
    private let saved = Mutex(0)
    private let listener = Mutex<(@Sendable (Report) -> Void)?>(nil)
    private let writer: DispatchQueue

    /// A saver for stage `stage` writing into `directory`; `index`: keep `records.json`; `cropName`: the
    /// crop written in each record; at most `maxPending` photos saving at once.
    init(stage: String, directory: String, index: Bool, cropName: String, maxPending: Int) {
        self.stage = stage; self.directory = directory; keepIndex = index; self.cropName = cropName; self.maxPending = maxPending
        writer = DispatchQueue(label: "vf-\(stage)-writer")
    }

    /// Where outcomes go (set once by the stage, after it is made).
    func onReport(_ report: @escaping @Sendable (Report) -> Void) { listener.withLock { $0 = report } }

    /// multifilesink name of the default branch of `output`.
    func sinkName(_ output: Output) -> String { "\(stage)_\(output.rawValue)_files" }

    /// Directory, `thumbs/` and the `.partial/` work area, created by `open()`.
    var createsDirectories: [String] {
        let partial = FilePaths.join(directory, ".partial")
        return [directory, FilePaths.join(directory, "thumbs"), partial, FilePaths.join(partial, "thumbs")]
    }

    /// The default branch of `output`, writing into `DIR/.partial/` (files are moved into DIR once
    /// complete) from number `firstNumber`: snapshot `jpegenc ! jifmux ! multifilesink`, thumbnail
    /// `videoscale ! <=300 px ! jpegenc ! multifilesink` (when `thumbnails`), full like snapshot with
    /// `_full` names (when `full`); nil for any other output.
    func defaultBranch(for name: String, firstNumber: Int, quality: Int, thumbnails: Bool, full: Bool) -> String? {
        guard let output = Output(rawValue: name) else { return nil }
        let partial = FilePaths.join(directory, ".partial")
        let sink = { (pattern: String) in
            "multifilesink name=\(self.sinkName(output)) location=\(Pipeline.quoted(FilePaths.join(partial, pattern))) index=\(firstNumber) post-messages=true"
        }
        switch output {
        case .snapshot:
            return "queue max-size-buffers=8 ! jpegenc quality=\(quality) ! jifmux ! " + sink("IMG_%05d.jpg")
        case .thumbnail:
            guard thumbnails else { return nil }
            return
                "queue max-size-buffers=8 ! videoscale ! video/x-raw,width=[1,300],height=[1,300],pixel-aspect-ratio=1/1 ! jpegenc quality=85 ! "
                + sink("thumbs/IMG_%05d.jpg")
        case .full:
            guard full else { return nil }
            return "queue max-size-buffers=8 ! jpegenc quality=\(quality) ! jifmux ! " + sink("IMG_%05d_full.jpg")
        }
    }

    /// Opens and reconciles the index (creating the directory); its warnings are printed and kept.
    func open() throws(StageError) {
        let idx: PhotoIndex
        do { idx = try PhotoIndex(directory: directory) } catch { throw StageError(error.domain, "\(stage): \(error.message)") }
        let found = keepIndex ? idx.warnings : []
        warnings.withLock { $0 = found }
        for w in found { Log.stages.say(.warning, "WARNING from stage \(stage): \(w)") }
        writer.sync { openedIndex.withLock { $0 = keepIndex ? idx : nil } }
    }

    /// Messages the index had while opening (reconcile).
    var openingWarnings: [String] { warnings.withLock { $0 } }
    /// Records in the index (read on the writer queue, so it includes every photo already saved).
    var records: [PhotoRecord] { writer.sync { openedIndex.withLock { $0 }?.records ?? [] } }
    /// Photos saved (file complete) during this run.
    var savedPhotos: Int { saved.withLock { $0 } }

    /// Remembers which outputs feed a default branch: their photos are tracked file by file.
    func outputsPlanned(_ plans: [String: OutputPlan]) {
        defaultOutputs.withLock { d in
            d = Set(plans.compactMap { if case .defaultBranch = $0.value { return Output(rawValue: $0.key) } else { return nil } })
        }
    }

    /// Registers photo `number` before it is pushed (a fast branch may report its file before the push
    /// returns). Returns whether the snapshot branch is a default one (its files are tracked).
    func register(
        number: Int, pts: UInt64?, trigger: CaptureTrigger, composition: FrameComposition?,
        crop: FrameComposition.Window?, full: Bool, thumbnails: Bool, date: Date
    ) -> Bool {
        let defaults = defaultOutputs.withLock { $0 }
        let tracked = defaults.contains(.snapshot)
        var expected: Set<Output> = tracked ? [.snapshot] : []
        if thumbnails && defaults.contains(.thumbnail) { expected.insert(.thumbnail) }
        if full && defaults.contains(.full) { expected.insert(.full) }
        guard keepIndex || tracked else { return tracked }
        pending.withLock { list in
            list.append(
                Pending(
                    number: number, pts: pts, trigger: trigger, composition: composition,
                    crop: crop, date: date, expected: expected, tracked: tracked))
            // Bounded: tracked saves are limited by max-pending; untracked leftovers by this.
            if list.count > 4 * maxPending { list.removeFirst(list.count - 4 * maxPending) }
        }
        return tracked
    }

    /// Photo `number` was not handed over: forgotten.
    func cancel(_ number: Int) { pending.withLock { $0.removeAll { $0.number == number } } }

    /// Outputs that did not take photo `number`: no file is awaited from them (the photo may be complete now).
    func dropOutputs(_ missing: Set<Output>, of number: Int) {
        guard !missing.isEmpty else { return }
        let done: Pending? = pending.withLock { list in
            guard let i = list.firstIndex(where: { $0.number == number }) else { return nil }
            list[i].expected.subtract(missing)
            return list[i].tracked && list[i].complete ? list.remove(at: i) : nil
        }
        if let done { writer.async { [self] in self.finish(done) } }
    }

    /// multifilesink reports each file it closed: the photo it belongs to is filed once complete.
    func busMessage(_ message: BusMessage) {
        let m = message.structure, source = message.source
        guard m.name == "GstMultiFileSink", let file = m.string("filename") else { return }
        let ts = m.integer("timestamp").map { UInt64(bitPattern: $0) }
        let output = Output.allCases.first { sinkName($0) == source }
        let done: Pending? = pending.withLock { list in
            // Our default sinks name their output; any other multifilesink is the user's snapshot branch.
            let kind = output ?? .snapshot
            guard
                let i = list.firstIndex(where: { p in
                    p.pts == ts && p.files[kind] == nil && (output != nil ? p.expected.contains(kind) : !p.tracked)
                })
            else { return nil }
            list[i].files[kind] = file
            guard list[i].complete else { return nil }
            return list.remove(at: i)
        }
        if let done { writer.async { [self] in self.finish(done) } }
    }

    /// A branch stopped with an error (full disk, unwritable directory): its pending photos are failed
    /// and their unfinished files removed; the stream goes on.
    func outputFailed(_ output: String, reason text: String) {
        let named = Output(rawValue: output)
        let hit = { (p: Pending) in named.map { p.expected.contains($0) } == true || named == .snapshot }
        let failed: [Pending] = pending.withLock { list in
            let f = list.filter(hit)
            list.removeAll(where: hit)
            return f
        }
        let why = "\(output) branch: \(text)"
        var events = failed.filter(\.tracked).map { CaptureStateMachine.Event.saveFailed(why, time: $0.pts ?? 0) }
        if failed.isEmpty { events = [.saveFailed(why, time: 0)] }
        listener.withLock { $0 }?(Report(events: events, message: nil))
        let partial = (directory as NSString).appendingPathComponent(".partial")
        writer.async {
            for p in failed {
                for rel in [
                    String(format: "IMG_%05d.jpg", p.number), String(format: "IMG_%05d_full.jpg", p.number),
                    String(format: "thumbs/IMG_%05d.jpg", p.number),
                ] {
                    try? FileManager.default.removeItem(atPath: (partial as NSString).appendingPathComponent(rel))
                }
            }
        }
    }

    /// Waits for the files in hand to be indexed.
    func close() { writer.sync {} }

    /// Moves the files of a complete capture into place, reads the photo back, indexes it. On `writer`.
    private func finish(_ p: Pending) {
        let dir = directory
        var final: [Output: String] = [:]
        var problem: String?
        // Never replace a photo already in DIR (a restarted branch may count from an old number):
        // such a capture takes the next free number for all of its files.
        var renumber: Int?
        if p.tracked, let photo = p.files[.snapshot],
            FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent((photo as NSString).lastPathComponent))
        {
            renumber = PhotoIndex.highestNumber(in: dir) + 1
        }
        for (output, file) in p.files.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard PhotoIndex.syncFile(file) else { problem = "cannot read back '\(file)'"; break }
            guard p.tracked else { final[output] = file; continue }
            var base = (file as NSString).lastPathComponent
            if let n = renumber { base = String(format: output == .full ? "IMG_%05d_full.jpg" : "IMG_%05d.jpg", n) }
            let rel = output == .thumbnail ? "thumbs/" + base : base
            let dest = (dir as NSString).appendingPathComponent(rel)
            if rename(file, dest) != 0 { problem = "cannot move '\(file)' to '\(dest)'"; break }
            final[output] = dest
        }
        if problem == nil {
            PhotoIndex.syncDirectory(dir)
            PhotoIndex.syncDirectory((dir as NSString).appendingPathComponent("thumbs"))
        }
        var record: PhotoRecord?
        if problem == nil, let photo = final[.snapshot] {
            // A branch of the user's own may write PNG (pngenc): its header gives the size, it has no EXIF.
            if let info = JPEGFile.read(photo) ?? JPEGFile.readPNG(photo), info.complete {
                record = self.record(p, photo: photo, files: final, info: info)
            } else {
                problem = "'\(photo)' is not a complete JPEG or PNG"
            }
        }
        if problem == nil, let record, let index = openedIndex.withLock({ $0 }) {
            do { try index.add(record) } catch { problem = error.message }
        }
        if problem == nil, let f = final[.snapshot] {
            // Say what happened: one line per photo (the CLI's stderr, the plugin's debug log).
            let how = p.composition.map { String(format: ", %@ %.2f", $0.rule, $0.score) } ?? ""
            Log.stages.say(.info, "saved \(f) (\(p.trigger.rawValue)\(how))")
            saved.withLock { $0 += 1 }
        }
        let events: [CaptureStateMachine.Event] = !p.tracked ? [] : problem.map { [.saveFailed($0, time: p.pts ?? 0)] } ?? [.saved]
        let message =
            problem.map { CaptureMessage(.error(number: p.number, file: final[.snapshot], reason: $0)) }
            ?? CaptureMessage(.saved(number: p.number, file: final[.snapshot]))
        listener.withLock { $0 }?(Report(events: events, message: message))
    }

    /// The index record of a photo read back as `info`, its paths relative to DIR.
    private func record(_ p: Pending, photo: String, files: [Output: String], info: JPEGFile) -> PhotoRecord {
        let rel: (String) -> String = { [directory] path in
            let dir = (directory as NSString).standardizingPath + "/"
            let std = (path as NSString).standardizingPath
            return std.hasPrefix(dir) ? String(std.dropFirst(dir.count)) : std
        }
        let c = p.composition
        return PhotoRecord(
            id: PhotoIndex.number(of: photo) ?? p.number, file: rel(photo), thumbnail: files[.thumbnail].map(rel),
            full: files[.full].map(rel), time: PhotoIndex.timeText(p.date), pts: p.pts, width: info.width, height: info.height,
            rule: c?.rule, score: c?.score, advice: c?.advice,
            subject: c?.subject.map { PhotoRecord.Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
            analysisPts: c?.analysisPts, subjectID: c?.subjectID,
            trigger: p.trigger.rawValue, crop: cropName,
            cropWindow: p.crop.map {
                PhotoRecord.Rect(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height))
            },
            exif: info.tags)
    }
}
