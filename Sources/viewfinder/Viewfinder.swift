import ArgumentParser
import Control
import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization
import ViewfinderBench

/// The `viewfinder` command: run gst-launch descriptions with Swift stages spliced in.
@main
struct Viewfinder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewfinder",
        abstract: "Run GStreamer pipelines (gst-launch syntax) with Viewfinder stages spliced in.",
        discussion: """
            Exit codes: 0 after end-of-stream, 1 runtime error (or abort), 2 bad description or usage.
            Ctrl-C sends end-of-stream (files are finalised); a second Ctrl-C aborts.
            """,
        subcommands: [Launch.self, Run.self, StagesCommand.self, Inspect.self, Card.self, BenchCommand.self])

    /// Runs the chosen subcommand; maps errors to exit codes (2 usage, 1 runtime).
    static func main() {
        ConsoleLogging.install()
        SignalPipe.install()
        do {
            // launch: options may follow the description; they are moved before it here.
            let arguments: [String]
            switch try LaunchArguments.normalize(Array(CommandLine.arguments.dropFirst())) {
            case .help:
                print(helpMessage(for: Launch.self))
                Foundation.exit(0)
            case .arguments(let a): arguments = a
            }
            var command = try parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch {
            finish(error)
        }
    }

    /// Exit code 2 for usage errors, as gst-launch-1.0 does for bad descriptions.
    static func finish(_ error: any Error) -> Never {
        if let e = error as? HostError {
            AppendFile.writeStandardError("viewfinder: \(e.message)\n")
            Foundation.exit(e.exitCode)
        }
        if let e = error as? ExitCode { Foundation.exit(e.rawValue) }
        let code = exitCode(for: error)
        let text = fullMessage(for: error)
        if !text.isEmpty { AppendFile.writeStandardError("\(text)\n") }
        Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
    }
}

/// Options shared by `launch` and `run`.
struct RunOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the segments the host really runs, then run them.")
    var printExpanded = false
    @Flag(name: .long, help: "Print the expanded segments and exit without running.")
    var dryRun = false
    @Flag(name: .long, help: "Print a live status line every second.")
    var progress = false
    @Flag(name: [.short, .customLong("messages")], help: "Print element messages as they arrive.")
    var messages = false
    @Option(name: .long, help: "Hand-off policy between segments and stages: auto (leaky when live), leaky, lossless.")
    var queue: String = "auto"
    @Option(name: .long, help: "Frames held between a segment and a stage worker.")
    var queueSize: Int = 2
    @Option(name: .customLong("set"), help: "Override a property: target.prop=value (target: a name= or a stage/element used once).")
    var overrides: [String] = []
    @Flag(name: .long, help: "Do not print the end-of-run figures.")
    var quiet = false
    @Option(name: .long, help: "Serve the control API (JSON over HTTP) on HOST:PORT while running, e.g. 127.0.0.1:8080.")
    var http: String?
    @Option(name: .long, help: "Bearer token the control API demands (required when --http binds anything but 127.0.0.1).")
    var token: String?
    @Option(
        name: .long,
        help: "Settings file (JSON): stage properties, server defaults (the command line wins); run X.pipeline uses X.json if present.")
    var config: String?
    @Flag(name: .long, help: "Write live property changes back to the settings file (atomically), so the next start restores them.")
    var saveSettings = false
    @Option(name: .long, help: "Publish events and state to the MQTT broker at HOST:PORT and take commands from it, e.g. 127.0.0.1:1883.")
    var mqtt: String?
    @Option(
        name: .long,
        help: "MQTT topic prefix (default viewfinder): TOPIC/events/NAME, TOPIC/state (retained), TOPIC/cmd/capture|set|stop, TOPIC/reply.")
    var topic: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Restart a lost source while the rest keeps running, showing a slate meanwhile (default: on for network sources).")
    var reconnect: Bool?
    @Option(name: .long, help: "Attempts after a source loss before the run ends (0: never gives up).")
    var reconnectAttempts: Int = 0

    func sessionOptions() throws -> SessionOptions {
        var o = SessionOptions()
        guard reconnectAttempts >= 0 && reconnectAttempts <= 1_000_000 else {
            throw HostError(.usage, "bad value '\(reconnectAttempts)' for --reconnect-attempts: expected 0 (never give up) - 1000000")
        }
        o.reconnect = reconnect.map { $0 ? .on : .off } ?? .auto
        o.reconnectAttempts = reconnectAttempts
        guard let q = SessionOptions.QueuePolicy(rawValue: queue) else {
            throw HostError(.usage, "bad value '\(queue)' for --queue: expected auto, leaky or lossless")
        }
        guard queueSize >= 1 && queueSize <= 1000 else {
            throw HostError(.usage, "bad value '\(queueSize)' for --queue-size: expected 1 - 1000")
        }
        o.queue = q
        o.queueSize = queueSize
        o.progress = progress
        o.printMessages = messages
        o.overrides = overrides
        o.interactive = true
        return o
    }

    /// The settings file in use: `--config FILE`, else `beside` (the .json beside a .pipeline) when it exists;
    /// nil for none. `--save-settings` needs one; a `--config` file that does not exist is created on the first
    /// change with `--save-settings` (its directory checked now), and cannot be read without. Usage errors.
    func settingsFile(beside: String?) throws(HostError) -> SettingsFile? {
        let path: String
        if let config {
            path = config
        } else if let beside, FileManager.default.fileExists(atPath: beside) {
            path = beside
        } else {
            guard !saveSettings else {
                throw HostError(
                    .usage, "--save-settings needs a settings file: expected --config FILE" + (beside.map { " (or \($0))" } ?? ""))
            }
            return nil
        }
        let settings: SettingsFile
        if saveSettings && !FileManager.default.fileExists(atPath: path) {
            settings = SettingsFile(path: path)
        } else {
            settings = try SettingsFile.load(path: path)
        }
        if saveSettings { try SettingsFile.checkWritable(path: path) }
        AppendFile.writeStandardError("settings: \(path)\n")
        return settings
    }

    /// Where the control API listens, nil without `--http` (or `server.http` in the settings file); a
    /// `--token` without either is refused. Command-line values win over the file's; the token comes from
    /// `--token`, else `server.token`, else `server.tokenFile`.
    func controlAddress(_ settings: SettingsFile? = nil) throws(HostError) -> ControlAddress? {
        let server = settings?.server ?? SettingsFile.Server()
        guard let address = http ?? server.http else {
            if token != nil { throw HostError(.usage, "--token without --http: expected --http HOST:PORT too") }
            return nil
        }
        var secret = token ?? server.token
        if secret == nil, let settings { secret = try settings.tokenFromFile() }
        do { return try ControlAddress(parsing: address, token: secret) } catch {
            guard let settings, http == nil || (token == nil && secret != nil) else { throw error }
            throw HostError(.usage, "settings \(settings.path) (server): \(error.message)")
        }
    }

    /// The MQTT broker and topic, nil without `--mqtt` (or the settings file's `server.mqtt`); a topic
    /// without a broker is refused. The command line wins over the settings file.
    func mqttAddress(_ settings: SettingsFile?) throws -> MQTTAddress? {
        guard let broker = mqtt ?? settings?.server.mqtt else {
            if topic != nil { throw HostError(.usage, "--topic without --mqtt: expected --mqtt HOST:PORT too") }
            return nil
        }
        return try MQTTAddress(parsing: broker, topic: topic ?? settings?.server.topic ?? MQTTAddress.defaultTopic)
    }

    /// The `hls: URL` lines printed next to the page's URL: the first HLS output at `/hls/index.m3u8`, every
    /// other by its element name at `/hls/NAME/index.m3u8` (a name the routes cannot carry is said so).
    static func hlsLines(_ outputs: [HLSOutput], server: String) -> [String] {
        outputs.enumerated().map { i, o in
            let plain = o.name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
            }
            if i == 0 { return "hls: \(server)hls/index.m3u8 (\(o.name), \(o.playlist))" }
            guard plain else { return "hls: \(o.name) not served: its name has characters other than A-Z a-z 0-9 . _ -" }
            return "hls: \(server)hls/\(o.name)/index.m3u8 (\(o.playlist))"
        }
    }

    func execute(_ description: String, besideFile: String? = nil) throws {
        let settings = try settingsFile(beside: besideFile)
        let control = try controlAddress(settings)
        let broker = try mqttAddress(settings)
        var options = try sessionOptions()
        options.settings = settings
        let session = try Session(description: description, options: options)
        if let web = session.webrtcServer {
            // The browser reaches webrtcserve only through the control server's /api/webrtc.
            guard let control else {
                throw HostError(
                    .usage, "webrtcserve needs --http HOST:PORT: browsers connect through the control server (GET /api/webrtc), e.g. --http 127.0.0.1:8080")
            }
            // On loopback ICE uses 127.0.0.1 only (libnice skips loopback interfaces unless told; nothing leaves the machine).
            web.loopbackOnly.withLock { $0 = control.host.hasPrefix("127.") }
            web.onError.withLock { $0 = { AppendFile.writeStandardError("\($0)\n") } }
        }
        if printExpanded || dryRun { print(session.plan.render()) }
        // --dry-run writes nothing: no settings writer either.
        if dryRun { return }
        // Without a display autovideosink would crash in DirectFB's sink: say so before anything runs.
        try DisplayCheck.check(session, description: description, overrides: overrides)
        let ends = StreamEndCheck(session, description: description)
        // --save-settings: live changes (HTTP PATCH, later MQTT) go to the writer, which writes off this thread.
        var writer: SettingsWriter?
        if saveSettings, let settings {
            let w = SettingsWriter(settings)
            session.onPropertiesChanged = { stage, changes in w.record(stage: stage, changes) }
            writer = w
        }
        var server: ControlServer?
        var controlURL = ""
        if let control {
            let s = ControlServer(session: session, address: control, fire: { Triggers.shared.fire() })
            let url = try s.start()
            controlURL = url
            AppendFile.writeStandardError("control: \(url)\n")
            for line in Self.hlsLines(session.hlsOutputs, server: url) { AppendFile.writeStandardError("\(line)\n") }
            if control.token != nil && control.host != "127.0.0.1" {
                AppendFile.writeStandardError(
                    "control: warning: plain HTTP on \(control.host): the token and everything else cross the network unencrypted; put a TLS proxy in front or use an SSH tunnel\n"
                )
            }
            server = s
        }
        if session.webrtcServer != nil, server != nil {
            AppendFile.writeStandardError("webrtc: the page at \(controlURL) shows the preview over WebRTC (signalling: GET /api/webrtc)\n")
        }
        for r in session.rtspServers {
            AppendFile.writeStandardError("rtsp: \(r.url)\n")
            if !(r.address.hasPrefix("127.") || r.address == "::1") {
                AppendFile.writeStandardError(
                    "rtsp: warning: serving on \(r.address) without authentication or encryption: anyone who reaches port \(r.port) can watch; keep bind=127.0.0.1 and use an SSH tunnel, or firewall the port\n"
                )
            }
        }
        var bridge: MQTTBridge?
        if let broker {
            let b = MQTTBridge(session: session, address: broker, fire: { Triggers.shared.fire() })
            b.start()
            bridge = b
        }
        let code = Interactive.run(session)
        bridge?.stop()
        server?.stop()
        writer?.flush()
        DisplayCheck.releaseProbes()
        if code == 0 && !session.stopRequested { for w in ends.warnings() { AppendFile.writeStandardError("\(w)\n") } }
        if !quiet, let r = session.report { AppendFile.writeStandardError("\(r.text)\n") }
        if !quiet {
            for r in session.rtspServers {
                let c = r.counts
                AppendFile.writeStandardError("rtsp: \(r.url): \(c.received) packets, \(c.forwarded) sent into \(c.medias) shared media\n")
            }
        }
        if !quiet, let web = session.webrtcServer {
            let c = web.counts
            AppendFile.writeStandardError("webrtc: \(c.received) frames, \(c.forwarded) into the encoder, \(c.encoded) encoded\n")
        }
        for e in session.errors { AppendFile.writeStandardError("viewfinder: \(e)\n") }
        if code != 0 { throw ExitCode(session.wasAborted ? abortExitCode : code) }
    }
}

struct Launch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline description, like gst-launch-1.0 (the description may span several arguments).",
        discussion: """
            Options may come before or after the description.
            Example: viewfinder launch videotestsrc is-live=true ! grid lines=thirds ! videoconvert ! autovideosink
            """)
    @OptionGroup var options: RunOptions
    @Argument(parsing: .captureForPassthrough, help: "The pipeline description.")
    var description: [String] = []

    func run() throws {
        guard !description.isEmpty else {
            throw HostError(.usage, "empty description: expected e.g. 'videotestsrc ! grid ! autovideosink'")
        }
        try options.execute(ParsedDescription.joinArguments(description))
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a .pipeline file (gst-launch syntax, '#' comments allowed).")
    @OptionGroup var options: RunOptions
    @Argument(help: "The pipeline file.")
    var file: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw HostError(.usage, "cannot read pipeline file '\(file)'")
        }
        let description: String
        do { description = try PipelineFile.description(fromFileText: text) } catch {
            throw HostError(.usage, "\(file): \(error.message)")
        }
        let beside = SettingsFile.beside(pipelineFile: file)
        try options.execute(description, besideFile: beside == file ? nil : beside)
    }
}

struct StagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stages", abstract: "List the Viewfinder stages.")
    func run() throws {
        for t in StageRegistry.all {
            let d = t.descriptor
            print("\(d.kind.padding(toLength: 14, withPad: " ", startingAt: 0)) \(d.blurb)")
        }
    }
}

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a stage's properties, outputs and formats (like gst-inspect-1.0).")
    @Argument(help: "Stage name, e.g. grid.")
    var stage: String
    func run() throws {
        guard let t = StageRegistry.type(of: stage) else {
            throw HostError(
                .usage, "unknown stage '\(stage)'; stages are: \(StageRegistry.all.map { $0.descriptor.kind }.joined(separator: ", "))")
        }
        print(StageInspector.text(for: t.descriptor))
    }
}

struct Card: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a 1080x1440 share card for a captured photo (photo, rule diagram, score, advice, date).")
    @Argument(help: "A photo file, or a photo id from DIR/records.json.")
    var photo: String
    @Option(name: .shortAndLong, help: "Photo directory holding records.json (for ids).")
    var directory: String = "photos"
    @Option(name: .shortAndLong, help: "Card file: .png or .jpg (default: the photo's name with _card.jpg).")
    var output: String?
    func run() throws {
        if let output { try ShareCard.checkOutput(output) }
        let content = try ShareCard.content(for: photo, directory: directory)
        let out = output ?? ((content.photo as NSString).deletingPathExtension + "_card.jpg")
        try ShareCard.checkOutput(out)
        try ShareCard.write(content, to: out)
        print("card: \(out) (\(ShareCard.width)x\(ShareCard.height)) for \(content.photo)")
    }
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure a stage against its GStreamer peer in one run.")
    @Argument(help: "What to measure: bridge, compose, plugin, faces, chromakey, capture, control, latency, streams.")
    var what: String
    @Argument(help: "bench streams: the number of streams (with --max: the largest number tried, default 16).")
    var count: Int?
    @Option(help: "Frames per run (bench control: per window).") var frames: Int = 300
    @Option(help: "Rounds (best of; bench control: pairs of windows, 0 then 1 viewer).") var rounds: Int = 3
    @Option(help: "Video for bench faces (default .testdata/vtest.avi).") var video: String?
    @Option(help: "Seconds measured per side (bench latency, bench streams; default 10), after 1 s of warm-up.") var seconds: Double?
    @Flag(name: .customLong("max"), help: "bench streams: step the number of streams up from 1 to the largest that holds 30 fps.")
    var searchMax = false

    /// Refuses what only some benchmarks take (a count and --max: streams; --seconds: latency and streams), and bad values.
    func checkArguments() throws(HostError) {
        guard (1...100_000).contains(frames) else { throw HostError(.usage, "bad value '\(frames)' for --frames: expected 1 - 100000") }
        guard (1...100).contains(rounds) else { throw HostError(.usage, "bad value '\(rounds)' for --rounds: expected 1 - 100") }
        if let seconds {
            guard what == "latency" || what == "streams" else {
                throw HostError(.usage, "--seconds is for bench latency and bench streams only")
            }
            guard seconds.isFinite && (0.5...3600).contains(seconds) else {
                throw HostError(.usage, "bad value '\(seconds)' for --seconds: expected 0.5 - 3600")
            }
        }
        if what != "streams" {
            if let count { throw HostError(.usage, "unexpected '\(count)' after 'bench \(what)': only bench streams takes a count") }
            if searchMax { throw HostError(.usage, "--max is for bench streams only") }
        } else if let count, !(1...64).contains(count) {
            throw HostError(.usage, "bad stream count '\(count)' for bench streams: expected 1 - 64")
        } else if count == nil && !searchMax {
            throw HostError(.usage, "bench streams needs a count: expected e.g. 'bench streams 2', or --max")
        }
    }

    func run() throws {
        try checkArguments()
        let seconds = self.seconds ?? 10
        switch what {
        case "bridge":
            print("bench bridge: 1920x1080 I420, \(frames) frames per run, best of \(rounds); peer: identity")
            let r = try Bench.bridge(frames: frames, rounds: rounds) { print($0) }
            print(
                "zero-copy: \(r.copies) buffer copies; \(r.identical)/\(r.reachedSink) buffers reached fakesink with the very memory the appsink received"
            )
            print(String(format: "identity %.1f fps, passthrough stage %.1f fps, ratio %.3f", r.identityFPS, r.stageFPS, r.ratio))
        case "plugin":
            print("bench plugin: 1920x1080 I420, \(frames) frames per run, best of \(rounds); stock gst-launch-1.0 vs the host, peer: identity")
            let r = try PluginBench.run(frames: frames, rounds: rounds) { print($0) }
            print("plugin: \(r.plugin)")
            print(
                String(
                    format: "identity %.1f fps; vfpassthrough %.1f fps (%.3f of identity); vfgrid %.1f fps (%.3f); host passthrough %.1f fps (%.3f); host grid %.1f fps (%.3f); vfgrid / host grid %.3f",
                    r.identity, r.vfpassthrough, r.ofIdentity(r.vfpassthrough), r.vfgrid, r.ofIdentity(r.vfgrid), r.hostPassthrough,
                    r.ofIdentity(r.hostPassthrough), r.hostGrid, r.ofIdentity(r.hostGrid), r.hostGrid > 0 ? r.vfgrid / r.hostGrid : 0))
        case "compose":
            print("bench compose: 1920x1080 I420, \(frames) frames, analysis at 320 px (engine auto)")
            let r = try Bench.compose(frames: frames)
            print(String(format: "analysis thread: %d analyses, mean %.2f ms each", r.analyses, r.analysisMeanMs))
            print(
                String(
                    format: "compose on the video thread: mean %.3f ms, p95 %.3f ms per 1080p frame (goal <= 5 ms mean)", r.meanMs, r.p95Ms)
            )
            print(
                String(
                    format: "buffer copies per frame: compose %.2f, passthrough %.2f (goal: 0 for both: drawing writes in place)",
                    r.copiesPerFrame, r.passthroughCopiesPerFrame))
        case "faces":
            let video = URL(fileURLWithPath: video ?? ".testdata/vtest.avi").path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: video, isDirectory: &isDirectory) else {
                throw HostError(
                    .usage,
                    "bench faces: video '\(video)' does not exist (run launch/testdata for opencv-doc's vtest.avi, or pass --video FILE)")
            }
            guard !isDirectory.boolValue else {
                throw HostError(.usage, "bench faces: video '\(video)' is a directory: expected a video file")
            }
            print(
                "bench faces: \(video) at 640x480, \(frames) frames; facedetect (OpenCV) vs compose engine=faces, scale 1.1, 5 neighbours, 24 px"
            )
            let r = try Bench.faces(video: video, frames: frames)
            print("hits: facedetect \(r.facedetectHits), ours \(r.ourHits); frames agreeing \(r.agreeingFrames)/\(r.frames)")
            if let c = r.cnn {
                print(
                    String(
                        format:
                            "cnn (YuNet, compose engine=cnn, 1 thread): %.1f fps, %.2fx facedetect; hits %d; "
                            + "frames agreeing with facedetect %d/%d",
                        c.fps, r.facedetectFPS > 0 ? c.fps / r.facedetectFPS : 0, c.hits, c.agreeingFrames, r.frames))
            } else if let why = r.cnnMissing {
                print("cnn: not measured: \(why)")
            }
            if let p = r.people {
                print(
                    String(
                        format: "people (HOG, compose engine=people, searched at 960x720): %.1f fps, %.2fx facedetect; "
                            + "frames with people %d/%d",
                        p.fps, r.facedetectFPS > 0 ? p.fps / r.facedetectFPS : 0, p.framesWithPeople, p.frames))
            }
            print(String(format: "facedetect %.1f fps, ours %.1f fps, ratio %.2f", r.facedetectFPS, r.oursFPS, r.ratio))
            let labels = URL(fileURLWithPath: "Tests/FrameAnalysisTests/Fixtures/face_labels.json")
            let photos = URL(fileURLWithPath: ".testdata/faces")
            if FileManager.default.fileExists(atPath: labels.path), FileManager.default.fileExists(atPath: photos.path) {
                print("face recall on the labelled real photos (\(labels.path), \(photos.path), 640 px, IoU 0.5):")
                for (engine, s) in try Bench.faceRecall(labels: labels, photos: photos) {
                    print("  \(engine): \(s.line)")
                }
            } else {
                print("face recall: not measured (run from the repository after launch/testdata: needs \(labels.path) and \(photos.path))")
            }
        case "chromakey":
            print("bench chromakey: 1920x1080 RGBA green screen, \(frames) frames; peer: alpha method=custom, same colour")
            let r = try Bench.chromakey(frames: frames)
            let testdata = URL(fileURLWithPath: ".testdata")
            if FileManager.default.fileExists(atPath: testdata.appendingPathComponent("keying/.complete").path) {
                print("matte IoU on real composites (labelme's VOC photos, people pasted by their polygons; \(testdata.path)/keying):")
                for m in try Bench.chromakeyMattes(testdata: testdata) { print(m.line) }
            } else {
                print("matte IoU: not measured (run from the repository after launch/testdata: needs .testdata/keying)")
            }
            print(String(format: "alpha %.1f fps, chromakey %.1f fps, ratio %.2f", r.alphaFPS, r.oursFPS, r.ratio))
        case "capture":
            print(
                "bench capture: 1920x1080 I420, \(frames) frames, 5 photos/s, best of \(rounds); peer: tee ! videorate ! jpegenc ! jifmux ! multifilesink"
            )
            let r = try Bench.capture(frames: frames, rounds: rounds)
            print(
                String(
                    format: "capture on the video thread: %.2f ms mean, %.2f ms p95 without saving; %.2f ms mean, %.2f ms p95 while saving",
                    r.quiet.mean, r.quiet.p95, r.saving.mean, r.saving.p95))
            print(
                String(
                    format:
                        "peer %.1f fps (%d photos), capture %.1f fps (%d photos + thumbnails + records.json, %d triggers refused as busy), ratio %.2f",
                    r.peerFPS, r.peerPhotos, r.oursFPS, r.ourPhotos, r.refused, r.ratio))
        case "control":
            print(
                "bench control: live videotestsrc pattern=ball 1280x720 I420 30 fps ! compose ! fakesink, control server on 127.0.0.1; "
                    + "\(frames) frames per window, \(rounds) rounds alternating 0 and 1 preview viewer (curl on /api/preview.mjpeg)")
            let r = try Bench.control(frames: frames, rounds: rounds) { print($0) }
            Self.printControl(r)
        case "latency":
            print(
                "bench latency: live \(Bench.liveSource(name: "src")) ! compose ! fakesink sync=false, against the same without stages; "
                    + String(
                        format: "both sessions at once, %.1f s (longer until each side has %d frames) after 1 s of warm-up; ", seconds,
                        Int(seconds * 30))
                    + "delay = the sink's running time when a frame reaches its pad - the frame's running time (pts)")
            let r = try Bench.latency(seconds: seconds)
            Self.printLatency(r)
        case "streams":
            let largest = count ?? 16
            print(
                "bench streams: live 1280x720 I420 30 fps videotestsrc (smpte, scrolling) ! compose ! x264enc tune=zerolatency "
                    + "speed-preset=ultrafast ! fakesink sync=false, N chains in one session, against the same without compose; "
                    + String(
                        format: "%.1f s per side after 1 s of warm-up; a stream holds 30 fps at >= %.1f frames out per second", seconds,
                        Bench.holdingFPS))
            // --max: up from 1 until compose's slowest stream falls below 29.5 fps (or N reaches the count).
            var held = 0
            for n in searchMax ? Array(1...largest) : [largest] {
                let r = try Bench.streams(count: n, seconds: seconds)
                Self.printStreams(r)
                guard r.ours.holds else { break }
                held = n
            }
            if searchMax {
                print(
                    "largest N holding >= \(Bench.holdingFPS) fps on every stream with compose: \(held)"
                        + (held == largest ? " (the largest tried; pass a larger count to go on)" : ""))
            }
        default:
            throw HostError(
                .usage, "unknown benchmark '\(what)': expected bridge, compose, plugin, faces, chromakey, capture, control, latency or streams")
        }
    }

    /// The figures of `bench latency`: both distributions, their difference, the latency queries.
    static func printLatency(_ r: Bench.LatencyResult) {
        print(
            String(
                format: "machine: %d processors, load average %.1f at the start, %.1f at the end", r.processors, r.loadAverage.start,
                r.loadAverage.end))
        for (name, s) in [("without stages", r.peer), ("compose", r.ours)] {
            print(
                String(
                    format: "%@: %d frames measured, delay p50 %.2f ms, p95 %.2f ms, mean %.2f ms, min %.2f ms, max %.2f ms; "
                        + "source %.1f fps; %d dropped by the host over the whole run", name, s.frames, s.p50, s.p95, s.mean, s.min,
                    s.max, s.sourceFPS, s.dropped))
        }
        print(String(format: "added by compose: p50 %+.2f ms, p95 %+.2f ms (measured over %.1f s)", r.addedP50, r.addedP95, r.seconds))
        func q(_ a: Bench.LatencyAnswer?) -> String { a?.text ?? "no answer" }
        print("latency query upstream from fakesink's pad, without stages: \(q(r.peer.sinkLatency))")
        print(
            "latency query upstream from fakesink's pad, compose: \(q(r.ours.sinkLatency)) (appsrc: the source's + the stage budget); "
                + "from the source segment's appsink: \(q(r.ours.sourceLatency))")
    }

    /// The figures of one round of `bench streams`, compose then the peer.
    static func printStreams(_ r: Bench.StreamsResult) {
        for (name, s) in [("compose", r.ours), ("without stages", r.peer)] {
            let each = s.fps.map { String(format: "%.1f", $0) }.joined(separator: " ")
            let sources = s.sourceFPS.map { String(format: "%.1f", $0) }.joined(separator: " ")
            print(
                String(
                    format: "streams %d, %@: fps per stream %@ (slowest %.2f); sources %@ fps; %d frames out, "
                        + "%d dropped by the host (whole run), %d not out; CPU %.0f%% of %d processors; holds 30 fps: %@", r.count, name,
                    each, s.minFPS, sources, s.framesOut,
                    s.dropped, s.lost, s.cpuShare * 100, r.processors, s.holds ? "yes" : "no"))
        }
    }

    /// The figures of `bench control`, peers side by side (1 viewer against 0).
    static func printControl(_ r: Bench.ControlResult) {
        let kb = r.jpegMeanBytes / 1024
        print(
            String(
                format: "machine: %d processors, load average %.1f at the start, %.1f at the end (wall times include waiting for the CPUs)",
                r.processors, r.loadAverage.start, r.loadAverage.end))
        print(
            String(
                format:
                    "preview: 0 viewers %.5f ms/frame in offer (p95 %.5f), CPU %.2f ms/frame; 1 viewer %.4f ms/frame in offer (p95 %.3f), "
                    + "CPU %.2f ms/frame; CPU ratio (1 viewer / 0) %.2f; %.1f JPEG/s, %dx%d, %.1f KB",
                r.idle.offerMeanMs, r.idle.offerP95Ms, r.idle.cpuMsPerFrame, r.watched.offerMeanMs, r.watched.offerP95Ms,
                r.watched.cpuMsPerFrame, r.cpuRatio, r.jpegPerSecond, r.jpegWidth, r.jpegHeight, kb))
        print(
            "preview frames: \(r.idle.frames) offered with 0 viewers (\(r.idle.offered) reduced), \(r.watched.frames) with 1 viewer "
                + "(\(r.watched.offered) reduced, \(r.watched.encoded) encoded, \(r.partsReceived) received by the viewer)")
        print(
            String(
                format: "preview reduction (1 viewer): worker CPU %.3f ms per reduced frame (p95 %.3f) over %d; one clock read %.0f ns "
                    + "(offer's own timing is two)", r.watched.reductionCPUMeanMs, r.watched.reductionCPUP95Ms, r.watched.reductions,
                r.clockReadNs))
        print(
            String(
                format:
                    "api: %.0f requests/s for %.0f s, open loop (latency from the planned send time to the parsed answer), URLSession, "
                    + "kept-alive connections, then %.0f s with a new connection each:",
                r.requestRate, r.requestSeconds, r.requestSeconds))
        for l in r.latencies {
            print(
                String(
                    format: "  %@: %d answers, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms; %d errors", l.request, l.count, l.p50,
                    l.p95,
                    l.p99, l.max, l.errors))
        }
        print("api errors: \(r.requestErrors)" + (r.firstRequestError.map { " (first: \($0))" } ?? ""))
        print(
            String(
                format:
                    "events: %d viewfinder/composition events, delay from the bus loop handing the message to the server "
                    + "(Session.onElementMessage; the bus loop polls every 5 ms, not counted) to curl's event line parsed: "
                    + "p50 %.2f ms, p95 %.2f ms, max %.2f ms",
                r.events, r.eventP50, r.eventP95, r.eventMax))
    }
}
