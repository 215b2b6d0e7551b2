import ArgumentParser
import Host

/// `viewfinder bench WHAT`: finds the `BenchKind` named WHAT, which checks its arguments, measures and prints.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure a stage against its GStreamer peer in one run.")
    @Argument(help: "What to measure: bridge, compose, plugin, faces, chromakey, capture, control, latency, streams, rtsp, cameras, analysis, clips, reframe, redact.")
    var what: String
    @Argument(help: "bench streams: the number of streams (with --max: the largest number tried, default 16); bench cameras: the cameras (default 7).")
    var count: Int?
    @Option(help: "Frames per run (bench control: per window; bench analysis: analyses per frame and side).") var frames: Int = 300
    @Option(help: "Rounds (best of; bench control: pairs of windows, 0 then 1 viewer).") var rounds: Int = 3
    @Option(help: "Video for bench faces (default .testdata/vtest.avi).") var video: String?
    @Option(help: "bench faces: recall on the first N labelled photos (default: all 39).") var photos: Int?
    @Option(help: "Seconds measured per side (bench latency, bench streams, bench rtsp; default 10), after 1 s of warm-up.") var seconds: Double?
    @Flag(name: .customLong("max"), help: "bench streams: step the number of streams up from 1 to the largest that holds 30 fps.")
    var searchMax = false
    @Flag(help: "bench reframe, bench redact: print the figures as JSON.") var json = false

    /// Every kind, in the order the usage error lists them.
    static let kinds: [any BenchKind.Type] = [
        BenchBridge.self, BenchCompose.self, BenchPlugin.self, BenchFaces.self, BenchChromakey.self, BenchCapture.self,
        BenchControl.self, BenchLatency.self, BenchStreams.self, BenchRTSP.self, BenchCameras.self, BenchAnalysis.self, BenchClips.self,
        BenchReframe.self, BenchRedact.self,
    ]

    func run() throws {
        let arguments = BenchArguments(
            what: what, count: count, frames: frames, rounds: rounds, video: video, photos: photos, seconds: seconds,
            searchMax: searchMax, json: json)
        guard let kind = Self.kinds.first(where: { $0.name == what }) else {
            // An unknown word gets the checks of a kind taking neither --seconds nor a count, then is named.
            try arguments.checkCommon(takesSeconds: false)
            try arguments.refuseCount()
            let names = Self.kinds.map { $0.name }
            throw HostError(
                .usage, "unknown benchmark '\(what)': expected \(names.dropLast().joined(separator: ", ")) or \(names.last!)")
        }
        try kind.measure(arguments)
    }
}
