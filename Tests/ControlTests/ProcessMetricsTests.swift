import Foundation
import Testing

@testable import Control

/// The process's own figures: `/proc` texts parsed as Linux writes them, and this test process read for real.
@Suite struct ProcessMetricsTests {
    /// A `/proc/self/stat` line whose command name holds a space and a parenthesis (fields are counted from the
    /// last `)`): utime 250, stime 3, starttime 12345, at 100 ticks per second.
    static let stat =
        "4242 (vf (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 3 0 0 20 0 7 0 12345 1297821696 22788 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n"

    @Test func statAndStatmAreReadFromTheLastParenthesis() throws {
        let m = try #require(
            ProcessMetrics.parse(
                stat: Self.stat, statm: "316851 22788 5300 4 0 30000 0\n", ticksPerSecond: 100, pageSize: 4096, bootTime: 1_795_000_000))
        #expect(m.cpuSeconds == 2.53)
        #expect(m.residentBytes == 22788 * 4096)
        #expect(m.virtualBytes == 316_851 * 4096)
        #expect(abs((m.startTime ?? 0) - 1_795_000_123.45) < 1e-6)
        // Without a boot time there is no start time; the rest stands.
        #expect(ProcessMetrics.parse(stat: Self.stat, statm: "1 2", ticksPerSecond: 100, pageSize: 4096, bootTime: nil)?.startTime == nil)
    }

    @Test func textsNotAsLinuxWritesThemGiveNothing() {
        #expect(ProcessMetrics.parse(stat: "4242 vf S 1", statm: "1 2", ticksPerSecond: 100, pageSize: 4096, bootTime: nil) == nil)
        #expect(ProcessMetrics.parse(stat: Self.stat, statm: "1", ticksPerSecond: 100, pageSize: 4096, bootTime: nil) == nil)
        #expect(ProcessMetrics.parse(stat: "1 (a) S 2 3", statm: "1 2", ticksPerSecond: 100, pageSize: 4096, bootTime: nil) == nil)
        #expect(ProcessMetrics.parse(stat: Self.stat, statm: "1 2", ticksPerSecond: 0, pageSize: 4096, bootTime: nil) == nil)
        #expect(ProcessMetrics.bootTime("cpu  1 2 3\nbtime 1795000000\nprocesses 9\n") == 1_795_000_000)
        #expect(ProcessMetrics.bootTime("cpu  1 2 3\n") == nil)
    }

    @Test func thisProcessIsReadForReal() throws {
        // Burn a little CPU so the counter cannot be 0 at 100 ticks per second.
        var x = 0.0
        for i in 0..<3_000_000 { x += sin(Double(i)) }
        #expect(x.isFinite)
        let m = try #require(ProcessMetrics.current())
        #expect(m.cpuSeconds > 0)
        // A Swift test process with Foundation and GStreamer linked in: tens of MB resident.
        #expect(m.residentBytes > 10_000_000 && m.residentBytes < m.virtualBytes)
        let started = try #require(m.startTime)
        let now = Date().timeIntervalSince1970
        #expect(started <= now + 1 && started > now - 24 * 3600, "\(started) vs \(now)")
        let open = try #require(m.openDescriptors)
        #expect(open >= 3)
        if let max = m.maxDescriptors { #expect(max >= open) }
        #expect(
            m.families.map(\.name).prefix(4) == [
                "process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_start_time_seconds",
            ])
    }
}
