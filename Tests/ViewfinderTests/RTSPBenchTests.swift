import Foundation
import TestSupport
import Testing

/// `viewfinder bench rtsp` through the real binary on a short run: both sides recorded, the figures read back from
/// real recordings, rtspserve's timing exact (it is behaviour, not speed: a 30 fps source steps 1/30 s).
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct RTSPBenchTests {
    /// One side's line: frames, DTS warnings, off steps, steps, smallest and largest step (ms).
    static func side(_ name: String, in out: String) -> (frames: Int, warnings: Int, off: Int, steps: Int, min: Double, max: Double)? {
        for line in out.split(separator: "\n") where line.hasPrefix(name + ": ") {
            guard
                let m = line.firstMatch(
                    of: #/(\d+) frames, (\d+) Non-monotonous DTS, (\d+) of (\d+) steps off 1/30 s by over 1 ms, steps ([\d.]+) - ([\d.]+) ms/#),
                let f = Int(m.1), let w = Int(m.2), let o = Int(m.3), let n = Int(m.4), let a = Double(m.5), let b = Double(m.6)
            else { return nil }
            return (f, w, o, n, a, b)
        }
        return nil
    }

    @Test func recordsBothServersAndPrintsTheirTimingSideBySide() throws {
        let r = try Tools.vf("bench", "rtsp", "--seconds", "3", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.hasPrefix("bench rtsp: live 640x360 30 fps"), "\(r.out)")
        let ours = try #require(Self.side("rtspserve", in: r.out), "\(r.out)")
        let stock = try #require(Self.side("stock", in: r.out), "\(r.out)")
        for s in [ours, stock] {
            #expect(s.frames >= 60 && s.steps == s.frames - 1 && s.min <= s.max, "\(r.out)")
        }
        #expect(ours.warnings == 0 && ours.off == 0, "\(r.out)")
        #expect(abs(ours.min - 1000.0 / 30) <= 1 && abs(ours.max - 1000.0 / 30) <= 1, "\(r.out)")
        #expect(r.out.contains("rtspserve / stock: DTS warnings \(ours.warnings) / \(stock.warnings), off steps \(ours.off) / \(stock.off)"), "\(r.out)")
    }
}
