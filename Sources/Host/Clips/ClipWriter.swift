import Foundation
import GStreamerKit
import Timing

/// Writes one clip: the encoded frames it is given, as they are (no decode, no encode), into an MP4 with its index
/// at the front (`mp4mux faststart=true`), through a pipeline of its own:
/// `appsrc ! h264parse|h265parse ! mp4mux faststart=true ! filesink`. The parser only repackages (byte-stream to
/// `avc`/`hvc1`): the frames' bytes are the encoder's. Pushes never block (appsrc's queue is unbounded; the clip's
/// length bounds it); a failed write (a full disk) is read from the bus at the next push or at `finish`.
final class ClipWriter: @unchecked Sendable {
    /// The file being written.
    let path: String
    private let pipeline: Pipeline
    private let source: AppSource
    private let caps: Caps
    private let segment: Segment
    /// The audio input's appsrc, caps and segment, when the clip has sound.
    private let audio: (source: AppSource, caps: Caps, segment: Segment)?
    /// The first error of the writer's pipeline.
    private(set) var failure: String?

    /// A writer into `path` for frames of `caps`, whose running time starts at `start` (ns); fails when the
    /// pipeline cannot be built or started (a missing parser or muxer, a file that cannot be opened).
    /// `audio`: the audio input's caps and the start in its own times (AAC through aacparse; what else mp4mux takes
    /// as it comes).
    init(path: String, caps: Caps, start: UInt64, audio: (caps: Caps, start: UInt64)? = nil) throws(HostError) {
        self.path = path
        self.caps = caps
        segment = Segment(start: start)
        let names = caps.structureNames
        let parser = names.contains("video/x-h264") ? "h264parse ! " : names.contains("video/x-h265") ? "h265parse ! " : ""
        let audioParser = audio.map { $0.caps.structureNames.contains("audio/mpeg") ? "aacparse ! " : "" }
        let audioBranch = audioParser.map { " appsrc name=vf_clip_audio ! \($0)vf_clip_mux." } ?? ""
        // mp4mux keeps the frames in `faststart-file` until the end, then writes the index and copies them after it: by
        // default that file is in /tmp (another disk, and left behind by a kill); beside the clip in `.partial/` it is
        // on the clip's own disk and removed with it at the next start.
        let text =
            "appsrc name=vf_clip_src ! \(parser)mp4mux name=vf_clip_mux faststart=true faststart-file=\(Pipeline.quoted(path + ".mdat")) "
            + "! filesink sync=false location=\(Pipeline.quoted(path))\(audioBranch)"
        do { pipeline = try Pipeline.parse(text) } catch {
            throw HostError(.runtime, "cannot build the clip writer (\(text)): \(error.message)")
        }
        guard let src = pipeline.appSource(named: "vf_clip_src") else { throw HostError(.runtime, "the clip writer has no appsrc") }
        source = src
        Self.configure(source, caps: caps)
        if let audio, let a = pipeline.appSource(named: "vf_clip_audio") {
            Self.configure(a, caps: audio.caps)
            self.audio = (a, audio.caps, Segment(start: audio.start))
        } else {
            self.audio = nil
        }
        if case .failure = pipeline.setState(.playing) {
            let why = drainBus() ?? "the pipeline did not start"
            pipeline.setState(.null)
            throw HostError(.runtime, "cannot write '\(path)': \(why)")
        }
        if let why = drainBus() {
            pipeline.setState(.null)
            throw HostError(.runtime, "cannot write '\(path)': \(why)")
        }
    }

    /// Unbounded, non-blocking, in time format with the stream's caps, sending the segment each push carries: without
    /// `handle-segment-change` appsrc keeps its own segment from 0, and an encoder's 1000-hour offset reaches the muxer
    /// as the clip's start (two streams then sit 1000 hours apart).
    private static func configure(_ source: AppSource, caps: Caps) {
        try? source.set("format", "time")
        source.set("handle-segment-change", true)
        source.set("is-live", false)
        source.set("block", false)
        source.set("max-buffers", uint64: 0)
        source.set("max-bytes", uint64: 0)
        source.set("max-time", uint64: 0)
        source.setCaps(caps)
    }

    /// Queues one audio buffer (nothing when the clip has no audio or the writer failed).
    func writeAudio(_ buffer: Buffer) {
        guard failure == nil, let audio else { return }
        audio.source.push(buffer, caps: audio.caps, segment: audio.segment)
    }

    /// Queues one frame; false once the writer failed (the reason is `failure`).
    @discardableResult
    func write(_ buffer: Buffer) -> Bool {
        if failure != nil { return false }
        if let why = drainBus() {
            failure = why
            return false
        }
        return source.push(buffer, caps: caps, segment: segment)
    }

    /// Ends the file and waits (at most `seconds`, real time) for the muxer to write its index; nil when the file is
    /// complete, else why not. The pipeline is stopped either way.
    func finish(seconds: Double = 60) -> String? {
        defer {
            pipeline.setState(.null)
            unlink(path + ".mdat")
        }
        if let failure { return failure }
        source.endOfStream()
        audio?.source.endOfStream()
        let bus = pipeline.bus
        let real = SystemClock.shared
        let deadline = real.now + seconds
        while real.now < deadline {
            guard let m = bus.pop(timeout: 100_000_000) else { continue }
            switch m.kind {
            case .eos: return nil
            case .error(let text, _): return "\(m.source): \(text)"
            default: continue
            }
        }
        return "the muxer did not finish within \(Int(seconds)) s"
    }


    /// The first error waiting on the bus, if any (never waits).
    private func drainBus() -> String? {
        let bus = pipeline.bus
        while let m = bus.pop() {
            if case .error(let text, _) = m.kind { return "\(m.source): \(text)" }
        }
        return nil
    }
}
