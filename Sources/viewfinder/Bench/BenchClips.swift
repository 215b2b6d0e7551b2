import Foundation
import Host
import ViewfinderBench

/// `bench clips`: the clip recorder on a 720p30 stream against the same session without it (see `Bench.clips`).
struct BenchClips: BenchKind {
    static let name = "clips"
    static let takesSeconds = true
    let seconds: Double

    init(_ arguments: BenchArguments) { seconds = arguments.seconds ?? 24 }

    func run() throws {
        print(
            "bench clips: live 1280x720 30 fps videotestsrc (smpte, scrolling) ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bitrate=4000 ! h264parse ! tee, "
                + "into mp4mux (the recording) and clips pre=3 post=2; clips asked for at 5, 9, 10 (overlaps 9), 15 and 20.2 s (back to back with 15); "
                + "against the same session without clips")
        let r = try Bench.clips(seconds: seconds)
        var allIdentical = true, startsOK = true, endsOK = true
        for c in r.clips {
            allIdentical = allIdentical && c.identical
            // Start: at most one key interval before the requested pre-roll, never after it; end: the last frame before
            // moment + post (one frame short of it), at most one key interval after.
            let startOK = c.startOffset <= 0.001 && c.startOffset > -r.keyInterval - 0.001
            let endOK = c.endOffset < 0.001 && c.endOffset > -0.04 - 0.001 || (c.endOffset >= 0 && c.endOffset <= r.keyInterval)
            startsOK = startsOK && startOK
            endsOK = endsOK && endOK
            print(
                String(
                    format: "clip %d: moment %.3f s, %d trigger%@; start %+.3f s from moment - pre (%@), end %+.3f s from moment + post (%@); %d frames from frame %d of the recording; byte-identical: %@",
                    c.id, c.moment, c.triggers, c.triggers == 1 ? "" : "s", c.startOffset, startOK ? "ok" : "OUT", c.endOffset, endOK ? "ok" : "OUT",
                    c.frames, c.firstFrame, c.identical ? "yes" : "NO"))
        }
        let expected = r.pre * r.bitrate / 8
        print(
            String(
                format: "ring: %.2f MiB for %.1f s (pre %.0f s x %.2f Mbit/s = %.2f MiB; the ring keeps pre + 2 s of slack, cut at keyframes): ratio %.2f",
                Double(r.ringBytes) / 1_048_576, r.ringSeconds, r.pre, r.bitrate / 1e6, expected / 1_048_576, Double(r.ringBytes) / max(expected, 1)))
        print(
            String(
                format: "CPU: the ring's thread %.2f%% of one core (goal < 2%%); the process %.1f%% with clips, %.1f%% without: ratio %.3f",
                r.ringThreadCPU * 100, r.processCPU * 100, r.peerProcessCPU * 100, r.processCPU / max(r.peerProcessCPU, 0.0001)))
        print(
            "clips \(r.clips.count) (expected 4: 9 and 10 share one); byte-identical \(allIdentical ? "met" : "NOT met"); starts \(startsOK ? "met" : "NOT met"); ends \(endsOK ? "met" : "NOT met"); frames lost between back-to-back clips: \(r.lostBetween); ring CPU < 2 % \(r.ringThreadCPU < 0.02 ? "met" : "NOT met")"
        )
    }
}
