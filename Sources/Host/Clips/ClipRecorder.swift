import Foundation
import GStreamerKit
import Synchronization
import Timing

/// The clip recorder's moving parts under one lock: the cutter (ring, open clip, waiting triggers), compose's scores,
/// the caps of the stream, the writer of the open clip, and the stream-time-to-wall-time reference. The relay
/// appsink's reader calls `add` for every encoded frame; triggers come from any thread (`trigger`). A clip's file is
/// finished off the lock and off the reader (`ClipFinisher`): the reader never waits on a disk.
final class ClipRecorder: @unchecked Sendable {
    struct State {
        var cutter: ClipCutter<Buffer>
        var scores: ClipScores
        /// Caps by generation: the newest last.
        var caps: [(generation: Int, caps: Caps)] = []
        var writer: ClipWriter?
        /// A frame's stream time and the wall time it arrived at: dates clips.
        var reference: (pts: UInt64, wall: Date)?
        /// The audio input's last seconds (running time, buffer), its caps and segment; whether the open clip takes it.
        var audio: [(time: UInt64, buffer: Buffer)] = []
        var audioCaps: Caps?
        var audioSegment = Segment()
        var audioOpen = false
    }

    let element: String
    let settings: ClipsSettings
    let clock: any HostClock
    let finisher: ClipFinisher
    private let state: Mutex<State>

    init(element: String, settings: ClipsSettings, clock: any HostClock, finisher: ClipFinisher, firstID: Int) {
        self.element = element
        self.settings = settings
        self.clock = clock
        self.finisher = finisher
        let cutter = ClipCutter<Buffer>(
            pre: settings.pre, post: settings.post, maxLength: settings.maxLength, maxBytes: settings.ringBytes, firstID: firstID)
        let scores = ClipScores(keep: settings.pre + settings.maxLength + 4, threshold: settings.score, hold: settings.scoreSeconds)
        state = Mutex(State(cutter: cutter, scores: scores))
    }

    /// One encoded frame from the relay appsink. Its times are taken as running times (its segment applied): an
    /// encoder may shift its timestamps (GstVideoEncoder adds 1000 hours so that decoding times stay positive, and moves
    /// its segment by as much), while the stages' messages carry the raw frames' pts, which are running times when their
    /// segment starts at 0 (live sources, files played from their start).
    func add(_ buffer: Buffer, caps: Caps?, segment: Segment) {
        state.withLock { s in
            if let caps, s.caps.last?.caps != caps {
                s.caps.append(((s.caps.last?.generation ?? -1) + 1, caps))
                if s.caps.count > 4 { s.caps.removeFirst() }
            }
            let unit = ClipUnit(
                pts: buffer.pts.flatMap(segment.runningTime), dts: buffer.dts.flatMap(segment.runningTime), key: !buffer.isDeltaUnit, bytes: buffer.size, capsGeneration: s.caps.last?.generation ?? 0,
                payload: buffer)
            s.reference = (unit.shown, clock.wallNow)
            run(s.cutter.add(unit), &s)
        }
    }

    /// One encoded audio buffer from the audio input: kept as long as the video ring reaches back (at most 4096), and
    /// written into the open clip while it lasts.
    func addAudio(_ buffer: Buffer, caps: Caps?, segment: Segment) {
        state.withLock { s in
            guard let time = (buffer.pts ?? buffer.dts).flatMap(segment.runningTime) else { return }
            if let caps { s.audioCaps = caps }
            s.audioSegment = segment
            s.audio.append((time, buffer))
            let horizon = (s.cutter.ring.units.first?.time ?? time).subtractingClamped(500_000_000)
            if let keep = s.audio.firstIndex(where: { $0.time >= horizon }), keep > 0 { s.audio.removeFirst(keep) }
            if s.audio.count > 4096 { s.audio.removeFirst(s.audio.count - 4096) }
            if s.audioOpen, let clip = s.cutter.open, time >= clip.start, time < clip.end { s.writer?.writeAudio(buffer) }
        }
    }

    /// A trigger from anywhere; what it did.
    @discardableResult
    func trigger(_ t: ClipTrigger) -> ClipAnswer {
        state.withLock { s in
            let (answer, steps) = s.cutter.trigger(t)
            run(steps, &s)
            return answer
        }
    }

    /// The stream ended: the open clip is finished with what it has.
    func endOfStream() { state.withLock { s in run(s.cutter.endOfStream(), &s) } }

    /// Capture's phase changed / an analysis arrived; true when the composition trigger fires.
    func phase(_ name: String) { state.withLock { $0.scores.phase(name) } }
    func score(pts: UInt64, score: Double) -> Bool { state.withLock { $0.scores.add(pts: pts, score: score) } }

    /// What the ring holds now (bytes, seconds), the open clip, groups dropped for the size cap.
    var figures: (bytes: Int, seconds: Double, open: OpenClip?, shortened: Int) {
        state.withLock { s in (s.cutter.ring.bytes, s.cutter.ring.seconds, s.cutter.open, s.cutter.ring.shortened) }
    }

    /// The wall time of stream time `pts`, from the newest frame's arrival.
    private func wall(_ pts: UInt64, _ s: State) -> Date {
        guard let r = s.reference else { return clock.wallNow }
        return r.wall.addingTimeInterval((Double(pts) - Double(r.pts)) / 1e9)
    }

    private func run(_ steps: [ClipCutter<Buffer>.Step], _ s: inout State) {
        for step in steps {
            switch step {
            case .begin(let clip, let units):
                let caps = s.caps.last(where: { $0.generation == units.first?.capsGeneration })?.caps ?? s.caps.last?.caps
                let path = FilePaths.join(finisher.index.partialDirectory, ClipRecord.fileName(clip.id))
                finisher.announce(.opened, clip: clip)
                guard let caps else {
                    s.writer = nil
                    finisher.failed(clip, path: path, reason: "the stream has no caps")
                    continue
                }
                do {
                    // The writer's segment is in the buffers' own times (before the running-time mapping).
                    let first = units.first?.payload
                    // Audio from the clip's first frame on, in its own stream's times.
                    let audio = s.audioCaps.map { (caps: $0, start: s.audioSegment.position(runningTime: clip.start) ?? 0) }
                    let w = try ClipWriter(path: path, caps: caps, start: first?.dts ?? first?.pts ?? 0, audio: audio)
                    for u in units { w.write(u.payload) }
                    if audio != nil {
                        for a in s.audio where a.time >= clip.start && a.time < clip.end { w.writeAudio(a.buffer) }
                    }
                    s.audioOpen = audio != nil
                    s.writer = w
                    finisher.opened(clip, caps: caps, startWall: wall(clip.startShown, s))
                } catch {
                    s.writer = nil
                    finisher.failed(clip, path: path, reason: error.message)
                }
            case .write(let unit):
                s.writer?.write(unit.payload)
            case .finish(let clip):
                let timeline = s.scores.timeline(from: clip.startShown, to: max(clip.lastShown, clip.startShown) + 1)
                if let w = s.writer {
                    finisher.finish(clip, writer: w, timeline: timeline, endWall: wall(clip.lastShown, s))
                }
                s.writer = nil
                s.audioOpen = false
            }
        }
    }
}
