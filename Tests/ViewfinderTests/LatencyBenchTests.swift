import Foundation
import TestSupport
import Testing

/// `viewfinder bench latency` through the real binary: the printed figures are real measurements (frames
/// measured, ordered percentiles, delays in a sane range, the upstream latency query answered). No timing
/// thresholds that depend on the machine's speed: the machine is shared.
@Suite(.serialized, .tags(.live, .process), .tier) struct LatencyBenchTests {
    /// The figures of one side's line: frames measured, p50, p95, source fps.
    struct SideLine {
        var frames: Int, p50: Double, p95: Double, sourceFPS: Double
    }

    /// Parses "NAME: F frames measured, delay p50 X ms, p95 Y ms, ... source Z fps; ...".
    static func side(_ name: String, in out: String) -> SideLine? {
        for line in out.split(separator: "\n") where line.hasPrefix(name + ": ") {
            guard
                let m = line.firstMatch(
                    of: #/(\d+) frames measured, delay p50 (-?[\d.]+) ms, p95 (-?[\d.]+) ms, .*; source ([\d.]+) fps/#),
                let f = Int(m.1), let a = Double(m.2), let b = Double(m.3), let s = Double(m.4)
            else { return nil }
            return SideLine(frames: f, p50: a, p95: b, sourceFPS: s)
        }
        return nil
    }

    @Test func printsBothDistributionsTheirDifferenceAndTheLatencyQuery() throws {
        let r = try Tools.vf("bench", "latency", "--seconds", "2", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.hasPrefix("bench latency: live videotestsrc"), "\(r.out)")
        let peer = try #require(Self.side("without stages", in: r.out), "\(r.out)")
        let ours = try #require(Self.side("compose", in: r.out), "\(r.out)")
        for s in [peer, ours] {
            // 2 s of a 30 fps source.
            #expect(s.frames > 30, "\(r.out)")
            #expect(s.p50 > 0 && s.p50 <= s.p95, "\(r.out)")
            #expect(s.p95 < 2000, "\(r.out)")
            #expect(s.sourceFPS > 0, "\(r.out)")
        }
        // The difference printed is the difference of the medians and of the 95th percentiles (each printed to 2 decimals).
        let added = try #require(
            r.out.firstMatch(of: #/added by compose: p50 ([+-][\d.]+) ms, p95 ([+-][\d.]+) ms/#), "\(r.out)")
        let d50 = try #require(Double(added.1)), d95 = try #require(Double(added.2))
        #expect(abs(d50 - (ours.p50 - peer.p50)) < 0.02)
        #expect(abs(d95 - (ours.p95 - peer.p95)) < 0.02)
        // The latency query upstream from fakesink: live, at least the source's one frame (33.3 ms) each;
        // with compose the appsrc adds the stage budget on top.
        let peerQuery = try #require(
            r.out.firstMatch(of: #/fakesink's pad, without stages: live, min ([\d.]+) ms/#), "\(r.out)")
        let oursQuery = try #require(r.out.firstMatch(of: #/fakesink's pad, compose: live, min ([\d.]+) ms/#), "\(r.out)")
        let peerMin = try #require(Double(peerQuery.1)), oursMin = try #require(Double(oursQuery.1))
        #expect(peerMin >= 33.3)
        #expect(oursMin > peerMin)
    }
}
