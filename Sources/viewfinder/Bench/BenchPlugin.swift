import Foundation
import ViewfinderBench

/// `bench plugin`: stock gst-launch-1.0 with the plugin's elements against identity and the host.
struct BenchPlugin: BenchKind {
    static let name = "plugin"
    let frames: Int
    let rounds: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames; rounds = arguments.rounds }

    func run() throws {
        print("bench plugin: 1920x1080 I420, \(frames) frames per run, best of \(rounds); stock gst-launch-1.0 vs the host, peer: identity")
        let r = try PluginBench.run(frames: frames, rounds: rounds) { print($0) }
        print("plugin: \(r.plugin)")
        print(
            String(
                format: "identity %.1f fps; vfpassthrough %.1f fps (%.3f of identity); vfgrid %.1f fps (%.3f); host passthrough %.1f fps (%.3f); host grid %.1f fps (%.3f); vfgrid / host grid %.3f",
                r.identity, r.vfpassthrough, r.ofIdentity(r.vfpassthrough), r.vfgrid, r.ofIdentity(r.vfgrid), r.hostPassthrough,
                r.ofIdentity(r.hostPassthrough), r.hostGrid, r.ofIdentity(r.hostGrid), r.hostGrid > 0 ? r.vfgrid / r.hostGrid : 0))
    }
}
