import ArgumentParser
import Control
import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization

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
        version: ViewfinderVersion.string,
        subcommands: [Launch.self, Run.self, Serve.self, StagesCommand.self, Inspect.self, Card.self, BenchCommand.self])

    /// Runs the chosen subcommand; maps errors to exit codes (2 usage, 1 runtime).
    static func main() {
        ProcessMemory.limitArenas()
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
        // --help and --version end as a clean exit: their text is the output asked for (stdout), not an error.
        if code == .success {
            if !text.isEmpty { print(text) }
            Foundation.exit(0)
        }
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
    @Option(name: .long, help: "User name for the MQTT broker (with --mqtt).")
    var mqttUsername: String?
    @Option(
        name: .long,
        help: "File whose first line is the MQTT password (with --mqtt-username; the password is never taken on the command line).")
    var mqttPasswordFile: String?
    @Option(name: .long, help: "TLS to the MQTT broker: the CA certificate (PEM) that signed the broker's certificate.")
    var mqttCafile: String?
    @Option(name: .long, help: "TLS client certificate (PEM) for the MQTT broker (with --mqtt-cafile and --mqtt-key).")
    var mqttCert: String?
    @Option(name: .long, help: "Key (PEM, unencrypted) of --mqtt-cert.")
    var mqttKey: String?
    @Option(
        name: .long,
        help: "MQTT discovery for home automation (with --mqtt): homeassistant publishes a Home Assistant device per camera, its entities made from the stages' properties (docs/control-api.md).")
    var discovery: String?

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
            let given: [(String, String?)] = [
                ("--mqtt-username", mqttUsername), ("--mqtt-password-file", mqttPasswordFile), ("--mqtt-cafile", mqttCafile),
                ("--mqtt-cert", mqttCert), ("--mqtt-key", mqttKey),
            ]
            if let (option, _) = given.first(where: { $0.1 != nil }) {
                throw HostError(.usage, "\(option) without --mqtt: expected --mqtt HOST:PORT too")
            }
            return nil
        }
        return try MQTTAddress(parsing: broker, topic: topic ?? settings?.server.topic ?? MQTTAddress.defaultTopic)
    }

    /// `--discovery`'s topic prefix (`homeassistant`), nil without it; any other word is refused naming it.
    func discoveryPrefix() throws(HostError) -> String? {
        guard let discovery else { return nil }
        guard discovery == "homeassistant" else {
            throw HostError(.usage, "bad value '\(Echo.value(discovery))' for --discovery: expected homeassistant")
        }
        return HomeAssistantConfigs.defaultPrefix
    }

    /// Where Home Assistant fetches the photos (`--http`'s address), nil when it cannot: a token guards the server (Home
    /// Assistant's image entity sends no header) or it listens on every address (0.0.0.0, ::: no address to fetch).
    static func photoBase(_ a: ControlAddress) -> String? {
        guard a.token == nil, a.host != "0.0.0.0", a.host != "::" else { return nil }
        return a.host.contains(":") ? "http://[\(a.host)]:\(a.port)" : "http://\(a.host):\(a.port)"
    }

    /// The MQTT login and TLS (`--mqtt-username`, `--mqtt-password-file`, `--mqtt-cafile`, `--mqtt-cert`,
    /// `--mqtt-key`), checked and the password file read now: usage errors naming the option.
    func mqttAccess() throws(HostError) -> MQTTAccess {
        try MQTTAccess(username: mqttUsername, passwordFile: mqttPasswordFile, caFile: mqttCafile, certFile: mqttCert, keyFile: mqttKey)
    }

    /// The services this process adds from the command line (and the settings file): the settings writer
    /// (`--save-settings`), the control server (`--http`, naming the session `pipeline` in `/metrics` and `/healthz`),
    /// the MQTT bridge (`--mqtt`).
    func services(_ settings: SettingsFile?, pipeline: String = ControlServer.defaultPipeline) throws -> [any ServiceFactory] {
        var out: [any ServiceFactory] = []
        if saveSettings, let settings { out.append(SettingsWriterFactory(settings: settings)) }
        if let control = try controlAddress(settings) {
            out.append(ControlServerFactory(address: control, pipeline: pipeline, fire: { Triggers.shared.fire() }))
        }
        if let broker = try mqttAddress(settings) {
            out.append(MQTTBridgeFactory(address: broker, access: try mqttAccess(), fire: { Triggers.shared.fire() }))
            if let prefix = try discoveryPrefix() {
                let photos = try controlAddress(settings).flatMap { Self.photoBase($0) }
                out.append(HomeAssistantFactory(address: broker, access: try mqttAccess(), prefix: prefix, photoBase: photos))
            }
        } else if discovery != nil {
            throw HostError(.usage, "--discovery without --mqtt: expected --mqtt HOST:PORT too")
        }
        return out
    }

    /// Runs `description`, named `pipeline` in `/metrics` and `/healthz` (`launch`: `main`; `run FILE`: FILE's base name).
    func execute(_ description: String, besideFile: String? = nil, pipeline: String = ControlServer.defaultPipeline) throws {
        let settings = try settingsFile(beside: besideFile)
        var options = try sessionOptions()
        options.settings = settings
        options.services = try services(settings, pipeline: pipeline)
        let session = try Session(description: description, options: options)
        if printExpanded || dryRun { print(session.plan.render()) }
        // --dry-run writes nothing and binds nothing: no service is prepared.
        if dryRun { return }
        // Without a display autovideosink would crash in DirectFB's sink: say so before anything runs.
        try DisplayCheck.check(session, description: description, overrides: overrides)
        let ends = StreamEndCheck(session, description: description)
        try session.prepare()
        for line in session.startLines { AppendFile.writeStandardError("\(line)\n") }
        let code = Interactive.run(session)
        session.close()
        DisplayCheck.releaseProbes()
        if code == 0 && !session.stopRequested { for w in ends.warnings() { AppendFile.writeStandardError("\(w)\n") } }
        if !quiet, let r = session.report { AppendFile.writeStandardError("\(r.text)\n") }
        if !quiet { for line in session.reportLines { AppendFile.writeStandardError("\(line)\n") } }
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
        // `/metrics` labels its figures `pipeline="NAME"`: the file's name without directory and extension.
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        try options.execute(description, besideFile: beside == file ? nil : beside, pipeline: name.isEmpty ? ControlServer.defaultPipeline : name)
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
