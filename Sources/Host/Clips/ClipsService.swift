import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// One `clips` element: keeps the last `pre` seconds of the encoded stream that reaches it (its relay appsink, read
/// by a thread of its own) and writes a clip of `pre` + `post` seconds on each trigger, without re-encoding.
///
/// Triggers: capture's photos (`viewfinder/capture` event=capture: the clip is centred on the photo's frame), the
/// composition trigger (`score=`: `viewfinder/composition` scores, steady per capture's phase), `trigger(kind:)`
/// (Control's `POST /api/clips` and MQTT `cmd/clip`), SIGUSR2 and the `c` key (`ClipRequests.shared`, polled by the
/// bus loop). The directory is opened (reconciled, `.partial/` emptied) when the run starts.
public final class ClipsService: SessionService, @unchecked Sendable {
    public var name: String { element }
    /// The relay appsink's name (`name=` as written, else `vf_clipsN`): the recorder's name in URLs and messages.
    public let element: String
    public let settings: ClipsSettings
    /// Whether the session has a capture stage (the composition trigger's steadiness).
    public let measuresSteadiness: Bool
    private let sink: AppSink
    /// The relay appsink of the audio input (`NAME.audio`), when the description links one.
    private let audioSink: AppSink?
    private let clock: any HostClock
    private let requests: ClipRequests
    private let seen = Mutex<(signal: Int, key: Int)>((0, 0))
    private let parts = Mutex<(recorder: ClipRecorder, finisher: ClipFinisher)?>(nil)
    private let stopping = Atomic<Bool>(false)
    /// Why the directory could not be opened (the run ends with it).
    private let openFailure = Mutex<String?>(nil)
    private var readers: [Thread] = []
    private let readerDone = DispatchSemaphore(value: 0)
    private let logger = Log.host

    init(
        element: String, settings: ClipsSettings, sink: AppSink, audioSink: AppSink? = nil, measuresSteadiness: Bool, clock: any HostClock,
        requests: ClipRequests = .shared
    ) {
        self.element = element
        self.settings = settings
        self.sink = sink
        self.audioSink = audioSink
        self.measuresSteadiness = measuresSteadiness
        self.clock = clock
        self.requests = requests
        seen.withLock { $0 = (requests.signal.count, requests.key.count) }
    }

    /// Every recorder of the session (this one included), in description order, weakly (`check`).
    private let peers = Mutex<[WeakClips]>([])
    public var siblings: [ClipsService] { peers.withLock { $0.compactMap(\.value) } }

    public func check(_ services: [any SessionService]) throws(HostError) {
        let all = services.compactMap { $0 as? ClipsService }.map(WeakClips.init)
        peers.withLock { $0 = all }
    }

    /// The index of the directory, once the run started.
    public var index: ClipIndex? { parts.withLock { $0?.finisher.index } }

    /// Sets what goes in front of `/clips/ELEMENT/FILE` in the URLs of saved clips (the control server's mount).
    public func setURLPrefix(_ prefix: String) {
        urlPrefix.withLock { $0 = prefix }
        parts.withLock { $0 }?.finisher.urlPrefix.withLock { $0 = prefix }
    }
    private let urlPrefix = Mutex<String>("")

    /// The path a clip file is served under (without the control server's mount).
    public func path(of file: String) -> String { "/clips/\(element)/\(file)" }

    /// Asks for a clip of the moment now (`kind`: `api`, `mqtt`, `signal`, `key`); what it did, nil before the run.
    @discardableResult
    public func trigger(kind: String) -> ClipAnswer? { parts.withLock { $0 }?.recorder.trigger(ClipTrigger(kind: kind)) }

    public func willPlay(_ session: Session) {
        let index: ClipIndex
        do { index = try ClipIndex(directory: settings.directory, clock: clock) } catch {
            // The run ends (exit 1) at the bus loop's next pass, naming the element; the reader drains meanwhile.
            openFailure.withLock { $0 = "\(element): \(error.message)" }
            startReader(nil)
            return
        }
        for w in index.warnings { logger.say(.warning, "clips: \(element): \(w)") }
        let finisher = ClipFinisher(element: element, index: index, thumbnails: settings.thumbnails)
        finisher.urlPrefix.withLock { $0 = urlPrefix.withLock { $0 } }
        let recorder = ClipRecorder(element: element, settings: settings, clock: clock, finisher: finisher, firstID: index.nextID)
        parts.withLock { $0 = (recorder, finisher) }
        startReader(recorder)
    }

    /// Pulls the relay appsinks (each holds end-of-stream until drained) into the recorder: video, and audio when linked.
    private func startReader(_ recorder: ClipRecorder?) {
        readers.append(pull(sink, name: "vf-clips") { buffer, caps, segment in recorder?.add(buffer, caps: caps, segment: segment) } ended: {
            recorder?.endOfStream()
        })
        if let audioSink {
            readers.append(pull(audioSink, name: "vf-clips-audio") { buffer, caps, segment in recorder?.addAudio(buffer, caps: caps, segment: segment) } ended: {})
        }
    }

    private func pull(
        _ sink: AppSink, name: String, _ take: @escaping @Sendable (Buffer, Caps?, Segment) -> Void, ended: @escaping @Sendable () -> Void
    ) -> Thread {
        WorkerThread.start(name) { [self] in
            defer { readerDone.signal() }
            while true {
                switch sink.pull(timeout: 50_000_000) {
                case .sample(let buffer, let caps, let segment): take(buffer, caps, segment)
                case .eos:
                    ended()
                    return
                case .timeout, .stopped:
                    if stopping.load(ordering: .relaxed) { return }
                }
            }
        }
    }

    public func elementMessage(_ message: BusMessage) {
        guard let recorder = parts.withLock({ $0?.recorder }) else { return }
        if let c = message.decode(CaptureMessage.self) {
            switch c.event {
            case .capture(let number, let trigger, let pts, _, _, _, _, _, _) where settings.photos:
                recorder.trigger(
                    ClipTrigger(kind: "photo", capture: trigger.rawValue, pts: pts == UInt64.max ? nil : pts, photo: .init(stage: message.structure.string("stage") ?? message.source, id: number)))
            case .state(let phase, _, _, _, _, _): recorder.phase(phase.rawValue)
            default: break
            }
        } else if let m = message.decode(CompositionMessage.self), let pts = m.pts {
            if recorder.score(pts: pts, score: m.score) { recorder.trigger(ClipTrigger(kind: "composition", pts: pts)) }
        }
    }

    public func poll(_ out: inout ServicePoll) {
        let now = (requests.signal.count, requests.key.count)
        let before = seen.withLock { s in defer { s = now }; return s }
        if now.0 != before.signal { trigger(kind: "signal") }
        if now.1 != before.key { trigger(kind: "key") }
        if let failure = openFailure.withLock({ $0 }), out.failure == nil { out.failure = failure }
        guard let finisher = parts.withLock({ $0?.finisher }) else { return }
        for m in finisher.takeMessages() { out.record.append((BusMessage(source: element, structure: m.structure), false)) }
    }

    public func runEnded() {
        stopping.store(true, ordering: .relaxed)
        for _ in readers { _ = readerDone.wait(timeout: .now() + 5) }
        // The pipelines are stopped: a clip still open ends with what it has.
        guard let (recorder, finisher) = parts.withLock({ $0 }) else { return }
        recorder.endOfStream()
        finisher.drain(seconds: 60)
    }

    public func stateFields() -> [String: Any] {
        guard let recorder = parts.withLock({ $0?.recorder }) else { return [:] }
        let f = recorder.figures
        return ["clips": [element: ["ringBytes": f.bytes, "ringSeconds": (f.seconds * 10).rounded() / 10, "open": f.open?.id as Any, "saved": parts.withLock { $0?.finisher.saved } ?? 0]]]
    }

    public var metricSamples: [MetricSample] {
        guard let (recorder, finisher) = parts.withLock({ $0 }) else { return [] }
        let f = recorder.figures
        let labels = [("element", element)]
        return [
            MetricSample("viewfinder_clip_ring_bytes", .gauge, help: "Encoded video the clip recorder's ring holds", labels: labels, value: Double(f.bytes)),
            MetricSample("viewfinder_clip_ring_seconds", .gauge, help: "Seconds of video the clip recorder's ring holds", labels: labels, value: f.seconds),
            MetricSample("viewfinder_clips_saved_total", .counter, help: "Clips written and listed", labels: labels, value: Double(finisher.saved)),
            MetricSample("viewfinder_clips_failed_total", .counter, help: "Clips that could not be written", labels: labels, value: Double(finisher.failedCount)),
        ]
    }

    public var startLines: [String] {
        var lines = ["clips: \(element): \(settings.directory) (\(ClipCutter<Int>.text(settings.pre)) s before, \(ClipCutter<Int>.text(settings.post)) s after; ring at most \(settings.ringBytes >> 20) MiB)"]
        if settings.score > 0, !measuresSteadiness {
            lines.append("clips: \(element): warning: no capture stage measures steadiness: the composition trigger counts the score alone")
        }
        return lines
    }

    public var reportLines: [String] {
        guard let (recorder, finisher) = parts.withLock({ $0 }) else { return [] }
        let f = recorder.figures
        var line = "clips: \(element): \(finisher.saved) saved in \(settings.directory)"
        if finisher.failedCount > 0 { line += ", \(finisher.failedCount) failed" }
        line += String(format: "; ring %.1f MiB for %.1f s", Double(f.bytes) / 1_048_576, f.seconds)
        if f.shortened > 0 { line += " (\(f.shortened) groups dropped early for ring-size)" }
        return [line]
    }
}

/// A recorder held weakly (the session holds them all).
struct WeakClips: Sendable {
    weak var value: ClipsService?
}

extension Session {
    /// The clip recorders, in description order.
    public var clipRecorders: [ClipsService] { services(ClipsService.self) }
}
