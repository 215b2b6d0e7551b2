import Diagnostics
import Foundation
import GStreamerKit
import Synchronization
import Timing

/// Finishes clips off the video threads, one at a time on a queue of its own: the muxer's end (`ClipWriter.finish`),
/// the rename out of `.partial/`, the thumbnail, the record in `clips.json`, and the `viewfinder/clip` messages the
/// service hands to the bus loop. A failure (a full disk, a directory gone) removes the unfinished file, names the
/// clip in an `error` message and a log line, and the stream goes on.
final class ClipFinisher: @unchecked Sendable {
    let element: String
    let index: ClipIndex
    let thumbnails: Bool
    private let queue: DispatchQueue
    private let logger = Log.host
    /// Per open clip: its caps (the thumbnail's size) and first frame's wall time.
    private let opened = Mutex<[Int: (caps: Caps, startWall: Date)]>([:])
    /// Messages for the bus loop (bounded: the oldest go).
    private let messages = Mutex<[ClipMessage]>([])
    /// Saved and failed clips; jobs queued or running.
    private let counts = Mutex<(saved: Int, failed: Int, inFlight: Int)>((0, 0, 0))
    /// Put in front of `/clips/...` in a clip's URL (the control server's mount; empty in `launch`).
    let urlPrefix = Mutex<String>("")

    init(element: String, index: ClipIndex, thumbnails: Bool) {
        self.element = element
        self.index = index
        self.thumbnails = thumbnails
        queue = DispatchQueue(label: "vf-clips-\(element)")
    }

    var saved: Int { counts.withLock { $0.saved } }
    var failedCount: Int { counts.withLock { $0.failed } }

    /// The path the control server serves clip `file` of this recorder under.
    func url(_ file: String) -> String { "\(urlPrefix.withLock { $0 })/clips/\(element)/\(file)" }

    func opened(_ clip: OpenClip, caps: Caps, startWall: Date) { opened.withLock { $0[clip.id] = (caps, startWall) } }

    func announce(_ event: ClipMessage.Event, clip: OpenClip) {
        post(
            ClipMessage(
                event, element: element, id: clip.id, file: ClipRecord.fileName(clip.id), trigger: clip.triggers.first?.kind, startPts: clip.startShown,
                endPts: clip.end, notes: clip.notes))
    }

    /// A clip that could not begin: its file (if any) removed, an error announced.
    func failed(_ clip: OpenClip, path: String, reason: String) {
        unlink(path)
        counts.withLock { $0.failed += 1 }
        let file = ClipRecord.fileName(clip.id)
        logger.say(.error, "clips: \(element): clip \(clip.id) (\(file)) failed: \(reason)")
        post(ClipMessage(.error, element: element, id: clip.id, file: file, trigger: clip.triggers.first?.kind, reason: reason, notes: clip.notes))
    }

    /// Finishes `clip` on the queue.
    func finish(_ clip: OpenClip, writer: ClipWriter, timeline: [Double?], endWall: Date) {
        counts.withLock { $0.inFlight += 1 }
        queue.async { [self] in
            defer { counts.withLock { $0.inFlight -= 1 } }
            complete(clip, writer: writer, timeline: timeline, endWall: endWall)
        }
    }

    /// Waits (at most `seconds`, real time) until every queued clip is finished.
    func drain(seconds: Double) {
        let real = SystemClock.shared
        let deadline = real.now + seconds
        while counts.withLock({ $0.inFlight }) > 0 && real.now < deadline { usleep(10_000) }
    }

    /// Messages posted since the last call.
    func takeMessages() -> [ClipMessage] { messages.withLock { m in defer { m.removeAll() }; return m } }

    private func post(_ m: ClipMessage) {
        messages.withLock { list in
            list.append(m)
            if list.count > 64 { list.removeFirst(list.count - 64) }
        }
    }

    private func complete(_ clip: OpenClip, writer: ClipWriter, timeline: [Double?], endWall: Date) {
        let info = opened.withLock { $0.removeValue(forKey: clip.id) }
        if let why = writer.finish() {
            failed(clip, path: writer.path, reason: why)
            return
        }
        let file = ClipRecord.fileName(clip.id)
        let final = FilePaths.join(index.directory, file)
        guard rename(writer.path, final) == 0 else {
            failed(clip, path: writer.path, reason: "cannot move it into \(index.directory): \(String(cString: strerror(errno)))")
            return
        }
        var notes = clip.notes
        let thumb = thumbnails ? makeThumbnail(of: final, id: clip.id, caps: info?.caps, notes: &notes) : nil
        let duration = Double(clip.lastShown.subtractingClamped(clip.startShown)) / 1e9
        let start = info?.startWall ?? endWall.addingTimeInterval(-duration)
        let record = ClipRecord(
            id: clip.id, file: file, thumbnail: thumb, startPts: clip.startShown, endPts: clip.lastShown, duration: (duration * 1000).rounded() / 1000,
            startTime: ClipIndex.iso(start), endTime: ClipIndex.iso(endWall), trigger: clip.triggers.first?.kind ?? "api", triggers: clip.triggers,
            photo: clip.triggers.lazy.compactMap(\.photo).first, timeline: timeline, frames: clip.frames, bytes: clip.bytes, notes: notes)
        do { try index.add(record) } catch {
            unlink(final)
            if let thumb { unlink(FilePaths.join(index.directory, thumb)) }
            failed(clip, path: writer.path, reason: error.message)
            return
        }
        counts.withLock { $0.saved += 1 }
        logger.info("clips: \(element): saved \(file) (\(String(format: "%.1f", duration)) s, \(clip.frames) frames)")
        post(
            ClipMessage(
                .saved, element: element, id: clip.id, file: file, trigger: record.trigger, startPts: clip.startShown, endPts: clip.lastShown,
                duration: record.duration, frames: clip.frames, bytes: clip.bytes, url: url(file), notes: notes))
    }

    /// `thumbs/CLIP_nnnnn.jpg`: the clip's first frame, 320 pixels wide, decoded from the file just written.
    private func makeThumbnail(of path: String, id: Int, caps: Caps?, notes: inout [String]) -> String? {
        let width = 320
        var height = 180
        if let caps, let w = caps.fixatedField("width").flatMap(Int.init), let h = caps.fixatedField("height").flatMap(Int.init), w > 0 {
            height = max(2, (width * h / w) & ~1)
        }
        let name = "thumbs/" + ClipRecord.fileName(id).replacingOccurrences(of: ".mp4", with: ".jpg")
        do {
            let image = try ImageFile.decodeBGRA(path, width: width, height: height)
            try ImageFile.encodeBGRA(image.pixels, width: width, height: height, stride: image.stride, to: FilePaths.join(index.directory, name))
            return name
        } catch {
            notes.append("no thumbnail: \(error.message)")
            return nil
        }
    }
}
