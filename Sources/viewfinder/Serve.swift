import ArgumentParser
import Control
import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization

/// `viewfinder serve DIR`: every `DIR/NAME.pipeline` (with `NAME.json` beside it) runs as pipeline NAME, each a
/// session of its own, in one process; `--http` serves the pipelines API (`PipelinesServer`), `--mqtt` bridges each
/// pipeline under `TOPIC/NAME/...`. Ctrl-C ends every pipeline with end-of-stream (recordings finalised); a second
/// aborts.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every DIR/NAME.pipeline as pipeline NAME in one process; add, switch and remove pipelines while running.",
        discussion: """
            Example: viewfinder serve cameras/ --http 127.0.0.1:8080
            Then: curl 127.0.0.1:8080/api/pipelines; POST /api/pipelines {"name": "door", "description": "..."};
            DELETE /api/pipelines/door. Pipelines added or removed are written back to DIR.
            """)
    @OptionGroup var options: RunOptions
    @Argument(help: "The directory of NAME.pipeline files (and NAME.json settings).")
    var directory: String
    @Option(
        name: .long,
        help: "This process's name on the MQTT broker when several serve processes share one TOPIC: TOPIC/pipelines/NAME, TOPIC/cmd/NAME/VERB.")
    var instance: String?

    func run() throws {
        for (given, option) in [(options.config != nil, "--config"), (!options.overrides.isEmpty, "--set"), (options.printExpanded, "--print-expanded")]
        where given {
            throw HostError(.usage, "\(option) is not for serve: expected NAME.json settings beside each NAME.pipeline in \(directory)")
        }
        if let instance {
            do { try CameraSpec.check(name: instance) } catch { throw HostError(.usage, "--instance: \(error.message)") }
            guard options.mqtt != nil else { throw HostError(.usage, "--instance without --mqtt: expected --mqtt HOST:PORT too") }
        }
        let store = try CameraStore(directory: directory)
        let base = try options.sessionOptions()
        let control = try options.controlAddress(nil)
        let broker = try options.mqttAddress(nil)
        let access = try options.mqttAccess()
        let discovery = try options.discoveryPrefix()
        if discovery != nil && broker == nil { throw HostError(.usage, "--discovery without --mqtt: expected --mqtt HOST:PORT too") }
        let registry = discovery.map { _ in HomeAssistantRegistry() }
        let server = control.map { PipelinesServer(address: $0) }
        let saveSettings = options.saveSettings
        let host = CameraHost(store: store) { spec throws(HostError) in
            var o = base
            o.interactive = false
            o.progress = false
            o.settings = spec.settings ?? (saveSettings ? SettingsFile(path: store.settingsFile(spec.name)) : nil)
            var services: [any ServiceFactory] = []
            if saveSettings, let s = o.settings { services.append(SettingsWriterFactory(settings: s)) }
            if let server { services.append(CameraEndpointFactory(context: server.context, pipeline: spec.name)) }
            if let broker {
                services.append(MQTTBridgeFactory(address: try broker.beneath(spec.name), access: access, fire: nil))
                if let discovery {
                    let photos = control.flatMap { RunOptions.photoBase($0).map { "\($0)/api/pipelines/\(spec.name)" } }
                    services.append(
                        HomeAssistantFactory(
                            address: try broker.beneath(spec.name), access: access, prefix: discovery, photoBase: photos, registry: registry))
                }
            }
            o.services = services
            return o
        }
        if options.dryRun {
            let specs = try store.load()
            for spec in specs {
                let session: Session
                do { session = try Session(description: spec.description, options: try host.sessionOptions(spec)) } catch {
                    throw HostError(.usage, "\(store.pipelineFile(spec.name)): \(error.message)")
                }
                print("# \(spec.name)\n\(session.plan.render())")
            }
            return
        }
        host.listen { m in AppendFile.writeStandardError(ServeLines.line(m)) }
        let fleet = broker.map { PipelinesMQTT(host: host, address: $0, access: access, instance: instance, discovery: registry) }
        do {
            // Every pipeline is built before the server binds or anything plays: a bad one is exit 2 with nothing done.
            try host.startAll { () throws(HostError) in
                if let server {
                    let url = try server.start(host: host, extra: [OverviewRoutes(address: server.context.address)])
                    AppendFile.writeStandardError("control: \(url)\n")
                }
                fleet?.start()
            }
        } catch {
            fleet?.stop()
            server?.stop()
            throw error
        }
        AppendFile.writeStandardError("serve: \(host.cameras.count) pipeline(s) from \(directory)\n")
        let finished = DispatchSemaphore(value: 0)
        let interrupts = Atomic<Int>(0)
        SignalPipe.route { signo in
            if signo == SIGUSR1 { Triggers.shared.fire(); return }
            if interrupts.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                AppendFile.writeStandardError("\nviewfinder: stopping every pipeline: sending end-of-stream (Ctrl-C again to abort)\n")
                Thread.detachNewThread {
                    host.shutdown()
                    finished.signal()
                }
            } else {
                AppendFile.writeStandardError("viewfinder: aborting\n")
                host.abortAll()
                Thread.detachNewThread {
                    usleep(abortGraceMicroseconds)
                    AppendFile.writeStandardError("viewfinder: aborted (the pipelines did not stop in time)\n")
                    _exit(abortExitCode)
                }
            }
        }
        signal(SIGXFSZ, SIG_IGN)
        finished.wait()
        SignalPipe.route(nil)
        fleet?.stop()
        server?.stop()
    }
}

/// The lines `serve` writes on stderr for each pipeline's changes.
enum ServeLines {
    static func line(_ m: PipelineMessage) -> String {
        switch m.state {
        case .restarting:
            "pipeline \(m.name): ended with an error: \(m.error); restarting in \(String(format: "%.1f", m.retryIn)) s (restart \(m.restarts))\n"
        case .failed: "pipeline \(m.name): cannot run: \(m.error)\n"
        default: "pipeline \(m.name): \(m.state.rawValue)\n"
        }
    }
}
