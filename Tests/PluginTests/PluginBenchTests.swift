import Foundation
import TestTags
import Testing

/// `viewfinder bench plugin` through the real binary (debug build, few frames: the figures are not the point
/// here, the run and its report are): stock gst-launch-1.0 with the plugin against identity and the host.
@Suite(.serialized, .tags(.process), .tier) struct PluginBenchTests {
    @Test func benchPluginPrintsEachSideAndTheRatios() throws {
        let binary = PluginTools.root.appendingPathComponent(".build/debug/viewfinder").path
        let r = try PluginTools.run(binary, ["bench", "plugin", "--frames", "20", "--rounds", "1"], timeout: 60)
        try #require(r.code == 0, "\(r.err)\n\(PluginTools.loadDiagnosis())")
        #expect(r.out.contains("bench plugin: 1920x1080 I420, 20 frames per run, best of 1"), "\(r.out)")
        #expect(r.out.contains("round 1: gst-launch-1.0 identity "), "\(r.out)")
        #expect(r.out.contains("plugin: ") && r.out.contains("libgstviewfinder.so"), "\(r.out)")
        let last = try #require(r.out.split(separator: "\n").last.map(String.init))
        for part in ["identity ", "vfpassthrough ", "vfgrid ", "host passthrough ", "host grid ", "vfgrid / host grid "] {
            #expect(last.contains(part), "\(part): \(last)")
        }
        // Every figure is a positive number.
        let numbers = last.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
        #expect(numbers.count >= 10 && numbers.allSatisfy { $0 > 0 }, "\(last)")
    }
}
