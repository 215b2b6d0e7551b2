import Foundation
import TestSupport
import Testing

/// `viewfinder bench cameras N` through the real binary: one serve process against N launch processes, the figures
/// read from their /metrics are real (frames, analyses, CPU, memory). No threshold that depends on the machine's speed.
@Suite(.serialized, .tags(.live, .process), .tier) struct CamerasBenchTests {
    /// "NAME: fps per camera A B (slowest X); analyses per second per camera ...; D dropped; CPU C% of P processors; RSS R MB".
    static func side(_ name: String, in out: String) -> (fps: [Double], analyses: [Double], cpu: Double, rss: Double)? {
        for line in out.split(separator: "\n") where line.hasPrefix(name) {
            guard
                let m = line.firstMatch(
                    of: #/: fps per camera ([-\d. a-z]+) \(slowest [-\d.a-z]+\); analyses per second per camera ([-\d. a-z]+) \(slowest [-\d.a-z]+\); -?\d+ dropped; CPU (-?\d+)% of \d+ processors; RSS (-?\d+) MB$/#
                ),
                let cpu = Double(m.3), let rss = Double(m.4)
            else { return nil }
            return (m.1.split(separator: " ").compactMap { Double($0) }, m.2.split(separator: " ").compactMap { Double($0) }, cpu, rss)
        }
        return nil
    }

    @Test func twoCamerasBothWays() throws {
        let r = try Tools.vf("bench", "cameras", "2", "--seconds", "3", timeout: 180)
        #expect(r.code == 0, "\(r.err)")
        let serve = try #require(Self.side("serve (1 process)", in: r.out), "\(r.out)")
        let launch = try #require(Self.side("launch (2 processes)", in: r.out), "\(r.out)")
        for s in [serve, launch] {
            #expect(s.fps.count == 2 && s.fps.allSatisfy { $0 > 10 }, "\(r.out)")
            #expect(s.analyses.count == 2 && s.analyses.contains { $0 > 0 }, "\(r.out)")
            #expect(s.cpu > 5 && s.rss > 50, "\(r.out)")
        }
        // The launch side is two processes: more memory than the one serve process holding both.
        #expect(launch.rss > serve.rss, "\(r.out)")
        #expect(r.out.contains("serve memory: ") && r.out.contains("for each further camera"), "\(r.out)")
        #expect(r.out.contains("goal (2 cameras in one process"), "\(r.out)")
    }
}
