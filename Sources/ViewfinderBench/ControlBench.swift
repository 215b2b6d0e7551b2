import Control
import Foundation
import Host
import Stages
import Synchronization
import Timing

extension Bench {
    /// Result of `bench control`: the live preview's cost, the control API's latency and the event delay,
    /// measured on one live session with its control server on 127.0.0.1.
    public struct ControlResult: Sendable {
        /// One side of the preview comparison (0 or 1 viewer), summed over its rounds.
        public struct Preview: Sendable {
            /// Frames the last group offered to the preview (every frame it pushed).
            public var frames: Int
            /// Mean ms per frame the worker spent in `PreviewTap.offer`.
            public var offerMeanMs: Double
            /// 95th percentile of the same (upper edge of its bucket: within 25 %).
            public var offerP95Ms: Double
            /// Frames reduced for the encoder, and the worker's CPU time (not wall time) per reduction, ms.
            public var reductions: Int
            /// Mean and 95th percentile of that CPU time, ms.
            public var reductionCPUMeanMs: Double, reductionCPUP95Ms: Double
            /// Process CPU time (user + system, every thread: jpegenc's too) per frame, ms.
            public var cpuMsPerFrame: Double
            /// Frames reduced and handed to the encoder.
            public var offered: Int
            /// JPEGs the encoder made.
            public var encoded: Int
            /// Wall-clock seconds measured.
            public var seconds: Double
        }

        /// Latency of one method under the paced load.
        public struct Latency: Sendable {
            /// `GET /api/state` or `PATCH /api/stages/compose0`.
            public var request: String
            /// Answers received (2xx with a JSON body).
            public var count: Int
            /// Percentiles and maximum, ms, from the planned send time to the parsed answer.
            public var p50: Double, p95: Double, p99: Double, max: Double
            /// Transport errors, non-2xx or non-JSON answers, or no answer.
            public var errors: Int
        }

        /// Frames per window.
        public var frames: Int
        /// Rounds (each: one window with 0 viewers, one with 1).
        public var rounds: Int
        /// No viewer.
        public var idle: Preview
        /// One viewer reading `/api/preview.mjpeg`.
        public var watched: Preview
        /// JPEG parts the viewer received during its windows, and per second.
        public var partsReceived: Int
        /// Parts per second received by the viewer.
        public var jpegPerSecond: Double
        /// Size of the preview pictures (from the JPEG's start-of-frame), 0 when none came.
        public var jpegWidth: Int, jpegHeight: Int
        /// Mean bytes of a received JPEG.
        public var jpegMeanBytes: Double
        /// Planned request rate and duration.
        public var requestRate: Double, requestSeconds: Double
        /// Per method, kept-alive connections first, then a new connection per request.
        public var latencies: [Latency]
        /// The first failed request, described (nil: none failed).
        public var firstRequestError: String?
        /// `viewfinder/composition` events timed, and their delay (ms): bus loop hand-over to the parsed SSE line.
        public var events: Int
        /// Percentiles of the event delay, ms.
        public var eventP50: Double, eventP95: Double, eventMax: Double
        /// Cost of one `DispatchTime.now()` here, ns: `offer`'s own timing is two of them.
        public var clockReadNs: Double
        /// The last phase: requests while hostile clients are attached.
        public struct Attack: Sendable {
            /// Attached throughout: idle connections, slowloris clients, stream clients that never read.
            public var idle: Int, slowloris: Int, streams: Int
            /// GET and PATCH latency on kept-alive connections meanwhile (same pacing as the API phase).
            public var latencies: [Latency]
            /// Connections the server closed during the window, per kind (each replaced at once).
            public var evictedIdle: Int, evictedSlowloris: Int, evictedStreams: Int
            /// Stream clients answered 503 (the hubs' client limits) and streaming at the end.
            public var refusedStreams: Int, streaming: Int
            /// Attacker connections the kernel refused or timed out.
            public var failedConnects: Int
            /// Seconds the window lasted.
            public var seconds: Double
        }
        /// Requests under attack (nil when no attacker was asked for).
        public var attack: Attack?
        /// The machine's 1-minute load average at the start and the end, and its processors.
        public var loadAverage: (start: Double, end: Double)
        /// Processors online.
        public var processors: Int
        /// Request errors over all methods (under attack too).
        public var requestErrors: Int { (latencies + (attack?.latencies ?? [])).reduce(0) { $0 + $1.errors } }
        /// CPU per frame with a viewer / without.
        public var cpuRatio: Double { idle.cpuMsPerFrame > 0 ? watched.cpuMsPerFrame / idle.cpuMsPerFrame : 0 }
    }

    /// The description `bench control` runs: a live 720p source as a camera, compose, fakesink.
    public static let controlDescription =
        "videotestsrc is-live=true pattern=ball ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! compose ! fakesink"

    /// Runs `controlDescription` live with a `ControlServer` on 127.0.0.1:0 and measures, one after the
    /// other on the same session: (1) the preview's cost per frame in `rounds` alternating windows of
    /// `frames` frames with 0 viewers and with 1 (a `curl` reading `/api/preview.mjpeg`); (2) request latency
    /// at `requestRate` a second for `requestSeconds`, alternating `GET /api/state` and
    /// `PATCH /api/stages/compose0 {"analysis-fps": 10}` (open loop), on kept-alive connections, then again
    /// with a new connection per request; (3) the delay of `events`
    /// `viewfinder/composition` events from the bus loop's hand-over to a `curl` on `/api/events`.
    public static func control(
        frames: Int = 300, rounds: Int = 3, requestRate: Double = 50, requestSeconds: Double = 10, events: Int = 100,
        attack: (idle: Int, slowloris: Int, streams: Int) = (300, 100, 50), log: (String) -> Void = { _ in }
    ) throws(HostError) -> ControlResult {
        let loadAtStart = loadAverage()
        let clockReadNs = clockReadCost()
        var options = SessionOptions()
        options.services = [ControlServerFactory(address: try ControlAddress(parsing: "127.0.0.1:0", token: nil), fire: {})]
        let session = try Session(description: controlDescription, options: options)
        try session.prepare()
        guard let server = session.services(ControlServer.self).first, let url = server.url, let tap = session.preview else {
            throw HostError(.runtime, "bench control: the session has no control server or no preview")
        }
        let base = String(url.dropLast())  // no trailing slash
        // The bus loop's hand-over: chained after the server's own hook, stamped just before it runs.
        let stamps = EventStamps()
        let serverHook = session.onElementMessage
        session.onElementMessage = { message in
            if let c = message.decode(CompositionMessage.self) { stamps.record(frame: c.frame) }
            serverHook?(message)
        }
        let playing = DispatchSemaphore(value: 0)
        session.onPlaying = { _ in playing.signal() }
        let ended = DispatchSemaphore(value: 0)
        let runner = Thread {
            _ = session.run()
            ended.signal()
        }
        runner.name = "vf-bench-session"
        runner.start()
        defer {
            session.requestStop()
            if ended.wait(timeout: .now() + 10) == .timedOut {
                session.abort()
                _ = ended.wait(timeout: .now() + 5)
            }
            session.close()
        }
        guard playing.wait(timeout: .now() + 20) == .success else {
            throw HostError(.runtime, "bench control: the session did not play within 20 s: \(session.errors.joined(separator: "; "))")
        }

        // 1. The preview: 0 viewers, then 1, per round.
        var idle = PreviewWindow.Sum(), watched = PreviewWindow.Sum()
        var received = (parts: 0, bytes: 0), size = (width: 0, height: 0)
        for round in 1...max(1, rounds) {
            let a = try PreviewWindow.measure(tap: tap, frames: frames, viewer: nil)
            idle.add(a)
            let viewer = ViewerFigures()
            let client = try CurlStream(url: base + "/api/preview.mjpeg") { viewer.add($0) }
            // Steady state: a JPEG made after the viewer came (the first part may be the stored newest one).
            let encodedAtConnect = tap.figures.encoded
            let deadline = SystemClock.shared.now + 10
            while tap.figures.encoded <= encodedAtConnect + 1 || viewer.parts == 0 {
                guard SystemClock.shared.now < deadline else {
                    client.stop()
                    throw HostError(.runtime, "bench control: the preview viewer got no picture within 10 s")
                }
                usleep(10_000)
            }
            let b = try PreviewWindow.measure(tap: tap, frames: frames, viewer: viewer)
            watched.add(b)
            client.stop()
            let got = viewer.windowTotals
            received = (received.parts + got.parts, received.bytes + got.bytes)
            if size.width == 0 { size = viewer.size }
            let gone = SystemClock.shared.now + 5
            while tap.viewers > 0 {
                guard SystemClock.shared.now < gone else { throw HostError(.runtime, "bench control: the preview viewer still counted 5 s after it left") }
                usleep(10_000)
            }
            log(
                String(
                    format:
                        "round %d: 0 viewers %.5f ms/frame in offer, CPU %.2f ms/frame; 1 viewer %.4f ms/frame in offer, CPU %.2f ms/frame",
                    round, a.timing.meanMs, a.cpuMs / Double(max(1, a.timing.calls)), b.timing.meanMs,
                    b.cpuMs / Double(max(1, b.timing.calls))))
        }

        // 2. Request latency under a paced load: on kept-alive connections (as a page's fetches), then with
        // a new connection for each request (`Connection: close`), which shows what Nagle's algorithm costs.
        let patch = Data(#"{"analysis-fps": 10}"#.utf8)
        var latencies: [ControlResult.Latency] = []
        var firstRequestError: String?
        for close in [false, true] {
            let requests = PacedRequests.run(
                base: base,
                plans: [
                    .init(method: "GET", path: "/api/state", body: nil), .init(method: "PATCH", path: "/api/stages/compose0", body: patch),
                ],
                rate: requestRate, seconds: requestSeconds, closeEach: close)
            let suffix = close ? ", new connection each" : ""
            for (method, name) in [("GET", "GET /api/state"), ("PATCH", "PATCH /api/stages/compose0")] {
                let ms = (requests.latencies[method] ?? []).sorted()
                latencies.append(
                    ControlResult.Latency(
                        request: name + suffix, count: ms.count, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95),
                        p99: percentile(ms, 0.99), max: ms.last ?? 0, errors: requests.errors[method] ?? 0))
            }
            if let unanswered = requests.errors["unanswered"], unanswered > 0 {
                latencies.append(.init(request: "unanswered" + suffix, count: 0, p50: 0, p95: 0, p99: 0, max: 0, errors: unanswered))
            }
            firstRequestError = firstRequestError ?? requests.firstError
        }

        // 3. Event delay: bus loop hand-over to the client's parsed line.
        let delays = Mutex<[Double]>([])
        let lines = Mutex(EventLineSplitter())
        let sse = try CurlStream(url: base + "/api/events") { chunk in
            let payloads = lines.withLock { $0.add(chunk) }
            for p in payloads {
                guard let o = try? JSONSerialization.jsonObject(with: p) as? [String: Any],
                    o["name"] as? String == CompositionMessage.structureName,
                    let frame = (o["fields"] as? [String: Any])?["frame"] as? Int
                else { continue }
                let now = DispatchTime.now().uptimeNanoseconds
                guard let at = stamps.take(frame: frame) else { continue }
                delays.withLock { $0.append(Double(now &- at) / 1e6) }
            }
        }
        // Stamp only once the client is connected: earlier messages would wait for nobody.
        let connected = SystemClock.shared.now + 5
        while server.hub.count == 0 && SystemClock.shared.now < connected { usleep(5_000) }
        stamps.start()
        let enough = SystemClock.shared.now + (Double(events) / 5 + 15)
        while delays.withLock({ $0.count }) < events && SystemClock.shared.now < enough { usleep(20_000) }
        stamps.stop()
        sse.stop()
        let d = delays.withLock { $0 }.sorted()

        // 4. Requests while hostile clients are attached (replaced as soon as the server closes them).
        var underAttack: ControlResult.Attack?
        if attack.idle + attack.slowloris + attack.streams > 0, let port = URLComponents(string: url)?.port.flatMap({ UInt16(exactly: $0) }) {
            Self.raiseDescriptorLimit()
            let attackers = ControlAttack(port: port, idle: attack.idle, slowloris: attack.slowloris, streams: attack.streams)
            usleep(1_000_000)
            attackers.resetFigures()
            let started = DispatchTime.now().uptimeNanoseconds
            let requests = PacedRequests.run(
                base: base,
                plans: [
                    .init(method: "GET", path: "/api/state", body: nil), .init(method: "PATCH", path: "/api/stages/compose0", body: patch),
                ],
                rate: requestRate, seconds: requestSeconds)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            let figures = attackers.current
            let streams = attackers.streams
            attackers.stop()
            var lat: [ControlResult.Latency] = []
            for (method, name) in [("GET", "GET /api/state"), ("PATCH", "PATCH /api/stages/compose0")] {
                let ms = (requests.latencies[method] ?? []).sorted()
                lat.append(
                    ControlResult.Latency(
                        request: name, count: ms.count, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), p99: percentile(ms, 0.99),
                        max: ms.last ?? 0, errors: requests.errors[method] ?? 0))
            }
            if let unanswered = requests.errors["unanswered"], unanswered > 0 {
                lat.append(.init(request: "unanswered", count: 0, p50: 0, p95: 0, p99: 0, max: 0, errors: unanswered))
            }
            firstRequestError = firstRequestError ?? requests.firstError
            underAttack = ControlResult.Attack(
                idle: attack.idle, slowloris: attack.slowloris, streams: attack.streams, latencies: lat, evictedIdle: figures.evicted[0],
                evictedSlowloris: figures.evicted[1], evictedStreams: figures.evicted[2], refusedStreams: figures.refused,
                streaming: streams.streaming, failedConnects: figures.failedConnects, seconds: seconds)
        }

        return ControlResult(
            frames: frames, rounds: max(1, rounds), idle: idle.result, watched: watched.result, partsReceived: received.parts,
            jpegPerSecond: watched.seconds > 0 ? Double(received.parts) / watched.seconds : 0, jpegWidth: size.width,
            jpegHeight: size.height, jpegMeanBytes: received.parts > 0 ? Double(received.bytes) / Double(received.parts) : 0,
            requestRate: requestRate, requestSeconds: requestSeconds,
            latencies: latencies,
            firstRequestError: firstRequestError, events: d.count, eventP50: percentile(d, 0.5), eventP95: percentile(d, 0.95),
            eventMax: d.last ?? 0, clockReadNs: clockReadNs, attack: underAttack, loadAverage: (loadAtStart, loadAverage()),
            processors: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Raises this process's soft limit of open descriptors to its hard limit: the attack holds two per client
    /// (its end and the server's) in this one process.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The 1-minute load average (0 when unknown).
    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) >= 1 ? loads[0] : 0
    }

    /// Mean ns of one `DispatchTime.now()` over 100 000 reads.
    static func clockReadCost() -> Double {
        let n = 100_000
        var sink: UInt64 = 0
        let t0 = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<n { sink &+= DispatchTime.now().uptimeNanoseconds }
        let t1 = DispatchTime.now().uptimeNanoseconds
        return sink == 0 ? 0 : Double(t1 &- t0) / Double(n)
    }

    /// The value below which a fraction `q` of sorted `values` lie (nearest rank), 0 when empty.
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * q).rounded(.up)) - 1))]
    }
}

/// When the bus loop handed each `viewfinder/composition` message (by frame number) to the server, while
/// recording; the SSE client takes its entry when it parses the event. At most 4096 waiting entries.
final class EventStamps: Sendable {
    private let state = Mutex<(on: Bool, at: [Int: UInt64])>((false, [:]))
    /// Starts recording.
    func start() { state.withLock { $0.on = true } }
    /// Stops recording (entries no client took are dropped).
    func stop() { state.withLock { $0 = (false, [:]) } }
    /// The bus loop's thread: notes now for `frame` (one brief lock, never waits on the client).
    func record(frame: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { s in
            guard s.on, s.at.count < 4096 else { return }
            s.at[frame] = now
        }
    }
    /// The client's thread: the hand-over time of `frame`, removed.
    func take(frame: Int) -> UInt64? { state.withLock { $0.at.removeValue(forKey: frame) } }
}

/// What one preview viewer (one client) received: parts, bytes and the picture size, counted on its reader thread.
final class ViewerFigures: Sendable {
    private struct State {
        var splitter = MultipartSplitter()
        var parts = 0, bytes = 0
        var width = 0, height = 0
        /// Parts and bytes received inside measured windows.
        var windowParts = 0, windowBytes = 0
        var partsAtStart = 0, bytesAtStart = 0
    }
    private let state = Mutex(State())

    /// Bytes of the multipart body as curl wrote them.
    func add(_ chunk: Data) {
        state.withLock { s in
            for jpeg in s.splitter.add(chunk) {
                s.parts += 1; s.bytes += jpeg.count
                if s.width == 0, let size = MultipartSplitter.jpegSize(jpeg) { (s.width, s.height) = (size.width, size.height) }
            }
        }
    }
    /// Parts received so far.
    var parts: Int { state.withLock { $0.parts } }
    /// The preview's picture size.
    var size: (width: Int, height: Int) { state.withLock { ($0.width, $0.height) } }
    /// A measured window starts.
    func beginWindow() {
        state.withLock { s in
            s.partsAtStart = s.parts; s.bytesAtStart = s.bytes
        }
    }
    /// A measured window ends: its parts and bytes are added to the totals.
    func endWindow() {
        state.withLock { s in
            s.windowParts += s.parts - s.partsAtStart; s.windowBytes += s.bytes - s.bytesAtStart
        }
    }
    /// Parts and bytes received inside every window.
    var windowTotals: (parts: Int, bytes: Int) { state.withLock { ($0.windowParts, $0.windowBytes) } }
}

/// One measured window of the preview comparison.
enum PreviewWindow {
    /// The figures of one window.
    struct Figures {
        var timing: OfferTiming.Figures
        var reductionCPU: OfferTiming.Figures
        var cpuMs: Double
        var offered: Int, encoded: Int
        var seconds: Double
    }

    /// Sums of windows of one side.
    struct Sum {
        var timing = OfferTiming.Figures.zero
        var reductionCPU = OfferTiming.Figures.zero
        var cpuMs = 0.0, seconds = 0.0
        var offered = 0, encoded = 0

        mutating func add(_ f: Figures) {
            timing = timing + f.timing
            reductionCPU = reductionCPU + f.reductionCPU
            cpuMs += f.cpuMs; seconds += f.seconds; offered += f.offered; encoded += f.encoded
        }

        var result: Bench.ControlResult.Preview {
            Bench.ControlResult.Preview(
                frames: timing.calls, offerMeanMs: timing.meanMs, offerP95Ms: timing.quantileMs(0.95), reductions: reductionCPU.calls,
                reductionCPUMeanMs: reductionCPU.meanMs, reductionCPUP95Ms: reductionCPU.quantileMs(0.95),
                cpuMsPerFrame: timing.calls > 0 ? cpuMs / Double(timing.calls) : 0, offered: offered, encoded: encoded, seconds: seconds)
        }
    }

    /// Waits for `frames` offers (bounded: 3x real time + 10 s) and returns what they cost.
    static func measure(tap: PreviewTap, frames: Int, viewer: ViewerFigures?) throws(HostError) -> Figures {
        let r0 = tap.reductionCPU.figures
        let t0 = tap.timing.figures, f0 = tap.figures, c0 = cpuMs(), w0 = DispatchTime.now().uptimeNanoseconds
        viewer?.beginWindow()
        let deadline = SystemClock.shared.now + (Double(frames) / 10 + 10)
        while tap.timing.figures.calls - t0.calls < frames {
            guard SystemClock.shared.now < deadline else {
                throw HostError(
                    .runtime,
                    "bench control: only \(tap.timing.figures.calls - t0.calls) of \(frames) frames reached the preview tap in time")
            }
            usleep(5_000)
        }
        let r1 = tap.reductionCPU.figures
        let t1 = tap.timing.figures, f1 = tap.figures, c1 = cpuMs(), w1 = DispatchTime.now().uptimeNanoseconds
        viewer?.endWindow()
        return Figures(
            timing: t1.since(t0), reductionCPU: r1.since(r0), cpuMs: c1 - c0, offered: f1.offered - f0.offered,
            encoded: f1.encoded - f0.encoded,
            seconds: Double(w1 - w0) / 1e9)
    }

    /// User + system CPU time of the whole process so far, ms.
    static func cpuMs() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1e3 + Double(t.tv_usec) / 1e3 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }
}
