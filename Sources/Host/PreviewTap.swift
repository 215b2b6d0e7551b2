import Diagnostics
import Foundation
import GStreamerKit
import Synchronization
import Timing

/// The live preview of a running session (the control page's picture): the last stage group's output
/// frames, guidance drawn in, reduced to at most `maxWidth` pixels wide, at most `maxFps` a second,
/// encoded as JPEG by GStreamer's `jpegenc` in a small pipeline of its own.
///
/// It costs nothing without viewers: the group's worker calls `offer` for each frame it pushes, and with
/// no viewer that is two relaxed atomic loads (plus its own timing, `timing`: two clock reads, three
/// atomic adds). With viewers, a frame due (by its arrival time) is reduced on the worker thread by a
/// nearest-neighbour `VideoScaler` (a small copy, so the frame itself goes on untouched and writable)
/// and handed to the preview pipeline's `appsrc` (not blocking, leaky: the newest frame wins), which
/// converts and encodes it on its own streaming thread; a reader thread hands each JPEG to `onJPEG`.
/// The preview pipeline is built at the first offered frame and stopped with the session (`close`). It
/// is not part of the described pipelines: its state, clock, latency and EOS never touch them.
///
/// Threads and locks: `offer` runs on one group worker; `viewers`/`watch` from any thread (atomics);
/// the pipeline's lifetime is under `state`'s mutex (taken by the worker only when a frame is due).
public final class PreviewTap: @unchecked Sendable {
    /// Widest preview frame (pixels); narrower frames keep their size.
    public let maxWidth: Int
    /// Most preview frames a second.
    public let maxFps: Double
    /// JPEG quality (jpegenc's `quality`).
    public let quality: Int
    /// Receives every encoded frame (on the preview's reader thread); set before the session runs.
    public var onJPEG: (@Sendable (Data) -> Void)?

    private let viewerCount = Atomic<Int>(0)
    /// Until when (monotonic ns) single-picture requests keep the preview on without a connected viewer.
    private let wantedUntil = Atomic<UInt64>(0)
    private struct State {
        var pipeline: Pipeline?
        var source: AppSource?
        var scaler: VideoScaler?
        /// When the next preview frame is due (monotonic ns): due times advance by whole intervals, so
        /// frames arriving on another beat (30 fps vs 10) still give `maxFps` on average, never more.
        var nextNs: UInt64 = 0
        var failed = false
        var closed = false
        var reader: Thread?
    }
    private let state = Mutex(State())
    private let stopReader = Atomic<Bool>(false)
    /// Frames handed to the encoder, and JPEGs made.
    private let counts = Mutex<(offered: Int, encoded: Int)>((0, 0))

    /// A tap making frames of at most `maxWidth` pixels at at most `maxFps`.
    public init(maxWidth: Int = 640, maxFps: Double = 10, quality: Int = 75) {
        self.maxWidth = maxWidth; self.maxFps = maxFps; self.quality = quality
    }

    /// Viewers connected now (each open preview stream counts one).
    public var viewers: Int { viewerCount.load(ordering: .relaxed) }
    /// A viewer connected (starts the preview pipeline when it is the first).
    public func addViewer() {
        viewerCount.add(1, ordering: .relaxed)
        prepare()
    }
    /// A viewer left.
    public func removeViewer() { viewerCount.subtract(1, ordering: .relaxed) }
    /// Keeps the preview on for `seconds` without a connected viewer (a single picture was asked for).
    public func want(seconds: Double) {
        let until = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        wantedUntil.store(until, ordering: .relaxed)
        prepare()
    }

    /// Builds and plays the preview pipeline if it is not yet (on the caller's thread: a server task,
    /// never a video thread). A failure is said once and leaves the preview off.
    private func prepare() {
        state.withLock { (s: inout State) -> Void in
            guard s.pipeline == nil, !s.failed, !s.closed else { return }
            do throws(GStreamerError) { try start(&s) } catch {
                s.failed = true
                Log.host.say(.notice, "preview: off: \(error.message)")
            }
        }
    }
    /// Frames handed to the encoder and JPEGs made so far.
    public var figures: (offered: Int, encoded: Int) { counts.withLock { $0 } }
    /// What `offer` costs the worker: every call timed (two clock reads and three relaxed atomic adds, a few
    /// tens of ns), with or without viewers (`bench control`).
    public let timing = OfferTiming()
    /// The worker thread's CPU time (not wall time: no preemption in it) of each due frame's reduction and
    /// hand-over to the encoder; two `CLOCK_THREAD_CPUTIME_ID` reads per due frame only (`bench control`).
    public let reductionCPU = OfferTiming()

    /// Whether anyone wants pictures at `now` (monotonic ns).
    private func wanted(at now: UInt64) -> Bool {
        viewerCount.load(ordering: .relaxed) > 0 || now < wantedUntil.load(ordering: .relaxed)
    }

    /// Called by the last group's worker with each frame it is about to push (blended). Never blocks;
    /// two atomic loads when nobody watches. Each call is timed into `timing`.
    public func offer(_ frame: VideoFrame) {
        let start = DispatchTime.now().uptimeNanoseconds
        deliver(frame, now: start)
        timing.record(ns: DispatchTime.now().uptimeNanoseconds &- start)
    }

    /// `offer`'s work: nothing without a viewer; else, when a frame is due, reduce it and hand it to the encoder.
    private func deliver(_ frame: VideoFrame, now: UInt64) {
        guard wanted(at: now) else { return }
        let due = state.withLock { (s: inout State) -> (AppSource, VideoScaler)? in
            let interval = UInt64(1e9 / maxFps)
            // A quarter interval early counts as on time (a 30 fps frame lands up to 33 ms after a due time).
            guard s.source != nil, !s.closed, now + interval / 4 >= s.nextNs else { return nil }
            do throws(GStreamerError) {
                if s.scaler.map({ $0.input != frame.info }) ?? true {
                    let (w, h) = Self.size(width: frame.info.width, height: frame.info.height, maxWidth: maxWidth)
                    s.scaler = try VideoScaler(reducing: frame.info, width: w, height: h)
                }
            } catch {
                s.failed = true
                Log.host.say(.notice, "preview: off: \(error.message)")
                return nil
            }
            s.nextNs = s.nextNs + interval > now ? s.nextNs + interval : now + interval
            guard let src = s.source, let scaler = s.scaler else { return nil }
            return (src, scaler)
        }
        guard let (src, scaler) = due else { return }
        let cpu = Self.threadCPUNanoseconds()
        defer { reductionCPU.record(ns: Self.threadCPUNanoseconds() &- cpu) }
        guard let small = try? scaler.reduced(frame) else { return }
        counts.withLock { $0.offered += 1 }
        src.push(consuming: small.buffer, caps: small.caps, segment: small.segment)
    }

    /// CPU time the calling thread has used, ns (0 if the clock cannot be read).
    static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Even dimensions of at most `maxWidth` wide, aspect kept (4:2:0 encoders want even sizes).
    static func size(width: Int, height: Int, maxWidth: Int) -> (Int, Int) {
        guard width > maxWidth else { return (max(2, width & ~1), max(2, height & ~1)) }
        let h = Int((Double(height) * Double(maxWidth) / Double(width)).rounded())
        return (maxWidth & ~1, max(2, h & ~1))
    }

    /// Builds and plays the preview pipeline and starts its reader (under `state`'s lock).
    private func start(_ s: inout State) throws(GStreamerError) {
        let p = try Pipeline.parse(
            "appsrc name=in format=time ! queue max-size-buffers=1 leaky=downstream ! videoconvert "
                + "! jpegenc quality=\(quality) ! appsink name=out sync=false max-buffers=2 drop=true")
        guard let src = p.appSource(named: "in"), let sink = p.appSink(named: "out") else {
            throw GStreamerError(.core, "the preview pipeline lacks its appsrc or appsink")
        }
        src.set("block", false)
        src.set("max-buffers", uint64: 2)
        try? src.set("leaky-type", "downstream")
        guard p.setState(.playing) != .failure else { throw GStreamerError(.core, "the preview pipeline would not play") }
        s.pipeline = p
        s.source = src
        s.reader = WorkerThread.start("vf-preview") { [weak self] in self?.read(sink) }
    }

    /// Hands each JPEG to `onJPEG` until closed.
    private func read(_ sink: AppSink) {
        while !stopReader.load(ordering: .relaxed) {
            switch sink.pull(timeout: 100_000_000) {
            case .sample(let buffer, _, _):
                counts.withLock { $0.encoded += 1 }
                onJPEG?(Data(buffer.bytes()))
            case .eos: return
            case .timeout, .stopped: continue
            }
        }
    }

    /// Stops the preview pipeline (end of the session); later offers do nothing.
    public func close() {
        let p = state.withLock { s -> Pipeline? in
            s.closed = true
            defer { s.pipeline = nil; s.source = nil }
            return s.pipeline
        }
        stopReader.store(true, ordering: .relaxed)
        p?.setState(.null)
    }
}
