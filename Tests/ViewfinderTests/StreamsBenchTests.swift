import Foundation
import TestSupport
import Testing

/// `viewfinder bench streams N` through the real binary: the printed figures are real (the N asked, frames
/// out per stream, CPU share). No timing thresholds that depend on the machine's speed.
@Suite(.serialized, .tags(.live, .process), .tier) struct StreamsBenchTests {
    /// One side's line: the N printed, fps of each stream, frames out, dropped, CPU %.
    struct SideLine {
        var count: Int, fps: [Double], framesOut: Int, dropped: Int, cpu: Double, holds: Bool
    }

    /// Parses "streams N, NAME: fps per stream A B (slowest X); sources ...; F frames out, D dropped ...; CPU C% ...".
    static func side(_ name: String, in out: String) -> SideLine? {
        for line in out.split(separator: "\n") where line.hasPrefix("streams ") && line.contains(", \(name): ") {
            guard
                let m = line.firstMatch(
                    of: #/^streams (\d+), [^:]+: fps per stream ([\d. ]+) \(slowest.*; (\d+) frames out, (\d+) dropped.*; CPU (\d+)% of \d+ processors; holds 30 fps: (yes|no)$/#
                ),
                let n = Int(m.1), let f = Int(m.3), let d = Int(m.4), let c = Double(m.5)
            else { return nil }
            return SideLine(
                count: n, fps: m.2.split(separator: " ").compactMap { Double($0) }, framesOut: f, dropped: d, cpu: c, holds: m.6 == "yes")
        }
        return nil
    }

    @Test func oneStreamPrintsItsFiguresAndThePeers() throws {
        let r = try Tools.vf("bench", "streams", "1", "--seconds", "2", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.hasPrefix("bench streams: live 1280x720"), "\(r.out)")
        let ours = try #require(Self.side("compose", in: r.out), "\(r.out)")
        let peer = try #require(Self.side("without stages", in: r.out), "\(r.out)")
        for s in [ours, peer] {
            #expect(s.count == 1, "\(r.out)")
            #expect(s.fps.count == 1, "\(r.out)")
            #expect(s.fps.allSatisfy { $0 > 0 }, "\(r.out)")
            #expect(s.framesOut > 0, "\(r.out)")
            #expect(s.cpu > 0 && s.cpu <= 100, "\(r.out)")
        }
        // Without stages there is no hand-off to drop frames.
        #expect(peer.dropped == 0)
        // No --max: no search line.
        #expect(!r.out.contains("largest N"))
    }

    @Test func twoStreamsPrintTwoRates() throws {
        let r = try Tools.vf("bench", "streams", "2", "--seconds", "1", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        let ours = try #require(Self.side("compose", in: r.out), "\(r.out)")
        let peer = try #require(Self.side("without stages", in: r.out), "\(r.out)")
        #expect(ours.count == 2 && peer.count == 2, "\(r.out)")
        #expect(ours.fps.count == 2 && peer.fps.count == 2, "\(r.out)")
        #expect((ours.fps + peer.fps).allSatisfy { $0 > 0 }, "\(r.out)")
    }

    @Test func maxStepsUpToTheCountGiven() throws {
        // --max with a count of 1: N = 1 only, then the search line, whatever the machine held.
        let r = try Tools.vf("bench", "streams", "1", "--max", "--seconds", "1", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        let ours = try #require(Self.side("compose", in: r.out), "\(r.out)")
        #expect(ours.count == 1)
        #expect(r.out.components(separatedBy: "streams 1, compose:").count == 2, "one round: \(r.out)")
        let held = try #require(r.out.firstMatch(of: #/largest N holding >= 29.5 fps on every stream with compose: (\d+)/#), "\(r.out)")
        #expect(held.1 == (ours.holds ? "1" : "0"), "\(r.out)")
    }
}
