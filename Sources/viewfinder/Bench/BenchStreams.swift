import Foundation
import Host
import ViewfinderBench

/// `bench streams N`: N live chains through compose and x264enc in one session, against the same without compose;
/// `--max` steps N up to the largest that holds 30 fps.
struct BenchStreams: BenchKind {
    static let name = "streams"
    static let takesSeconds = true
    let count: Int?
    let searchMax: Bool
    let seconds: Double

    init(_ arguments: BenchArguments) { count = arguments.count; searchMax = arguments.searchMax; seconds = arguments.seconds ?? 10 }

    /// The common checks, then the one kind that takes a count (1 - 64) or `--max`, and needs one of them.
    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        if let count = arguments.count, !(1...64).contains(count) {
            throw HostError(.usage, "bad stream count '\(count)' for bench streams: expected 1 - 64")
        } else if arguments.count == nil && !arguments.searchMax {
            throw HostError(.usage, "bench streams needs a count: expected e.g. 'bench streams 2', or --max")
        }
        if arguments.photos != nil { throw HostError(.usage, "--photos is for bench faces only") }
    }

    func run() throws {
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
            Self.printFigures(r)
            guard r.ours.holds else { break }
            held = n
        }
        if searchMax {
            print(
                "largest N holding >= \(Bench.holdingFPS) fps on every stream with compose: \(held)"
                    + (held == largest ? " (the largest tried; pass a larger count to go on)" : ""))
        }
    }

    /// The figures of one round of `bench streams`, compose then the peer.
    static func printFigures(_ r: Bench.StreamsResult) {
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
}
