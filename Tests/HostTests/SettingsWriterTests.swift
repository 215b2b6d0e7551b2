import Foundation
import Stages
import Synchronization
import Testing
import Timing

@testable import Host

/// The coalescing writer behind `--save-settings`: bursts cost the caller nothing, one write at a time,
/// the last state lands, failures are reported once and the writer goes on. Slow saves wait on a manual clock,
/// so a save is "in flight" exactly as long as a test says, with no real waiting.
@Suite struct SettingsWriterTests {
    /// What a fake save saw.
    final class Saves: Sendable {
        let states = Mutex<[SettingsFile]>([])
        let inFlight = Atomic<Int>(0)
        let mostInFlight = Atomic<Int>(0)
        let failure = Mutex<String?>(nil)
        let reports = Mutex<[String]>([])

        /// A save that takes `seconds` of `clock` and fails with `failure` when set.
        func save(seconds: Double, on clock: any HostClock = SystemClock.shared) -> @Sendable (SettingsFile) throws(HostError) -> Void {
            { s throws(HostError) in
                let n = self.inFlight.add(1, ordering: .sequentiallyConsistent).newValue
                _ = self.mostInFlight.max(n, ordering: .sequentiallyConsistent)
                clock.sleep(seconds: seconds)
                self.inFlight.subtract(1, ordering: .sequentiallyConsistent)
                if let f = self.failure.withLock({ $0 }) { throw HostError(.runtime, f) }
                self.states.withLock { $0.append(s) }
            }
        }
    }

    @Test func aBurstIsCoalescedAndTheLastStateLands() {
        let saves = Saves()
        let clock = ManualClock()
        let writer = SettingsWriter(SettingsFile(path: "c.json"), save: saves.save(seconds: 0.05, on: clock), report: { _ in })
        writer.record(stage: "ringlight0", [("width", .int(0))])
        // The first save is in flight (it waits on the clock) while the rest of the burst comes.
        #expect(clock.waitForSleepers(1))
        let recorded = DispatchSemaphore(value: 0)
        let recording = Mutex(0.0)
        Thread.detachNewThread {
            let real = SystemClock.shared
            let start = real.now
            for i in 1..<50 { writer.record(stage: "ringlight0", [("width", .int(i))]) }
            recording.withLock { $0 = real.elapsed(since: start) }
            recorded.signal()
        }
        // 49 changes cost the caller nothing while a save is under way: they never wait for it.
        #expect(recorded.wait(timeout: .now() + 5) == .success)
        #expect(recording.withLock { $0 } < 0.04, "recording took \(recording.withLock { $0 }) s")
        #expect(saves.inFlight.load(ordering: .sequentiallyConsistent) == 1)
        // The first save ends; the 49 changes are one more round.
        clock.advance(by: 0.05)
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 0.05)
        writer.flush()
        let states = saves.states.withLock { $0 }
        #expect(states.count >= 1 && states.count <= 3, "\(states.count) writes")
        #expect(states.map { $0.stages["ringlight0"]?["width"] } == [.int(0), .int(49)])
        #expect(writer.writes == states.count)
        #expect(states.last?.stages["ringlight0"]?["width"] == .int(49))
        #expect(saves.mostInFlight.load(ordering: .sequentiallyConsistent) == 1)
        // Changes after a flush are written too, keeping the earlier ones.
        writer.record(stage: "compose0", [("rule", .choice("golden"))])
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 0.05)
        writer.flush()
        #expect(saves.states.withLock { $0.last?.stages } == ["ringlight0": ["width": .int(49)], "compose0": ["rule": .string("golden")]])
        #expect(writer.settings.stages["compose0"]?["rule"] == .string("golden"))
    }

    @Test func writesFromManyThreadsAreOneAtATime() {
        let saves = Saves()
        let clock = ManualClock()
        let writer = SettingsWriter(SettingsFile(path: "c.json"), save: saves.save(seconds: 0.002, on: clock), report: { _ in })
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in 0..<25 {
                writer.record(stage: "stage\(t)", [("n", .int(i))])
                usleep(500)
            }
        }
        // Each save takes 2 ms of the clock: move it on until the writer has nothing left.
        #expect(clock.advance(until: { !writer.isWriting }, step: 0.002, limit: 10))
        writer.flush()
        #expect(saves.mostInFlight.load(ordering: .sequentiallyConsistent) == 1)
        let last = saves.states.withLock { $0.last }
        #expect(last?.stages.count == 8)
        #expect(last?.stages.values.allSatisfy { $0["n"] == .int(24) } == true)
    }

    @Test func aFailedWriteIsReportedOnceAndTheWriterGoesOn() {
        let saves = Saves()
        saves.failure.withLock { $0 = "settings: cannot write c.json: No space left on device" }
        let writer = SettingsWriter(
            SettingsFile(path: "c.json"), save: saves.save(seconds: 0),
            report: { line in saves.reports.withLock { $0.append(line) } })
        for i in 0..<3 {
            writer.record(stage: "ringlight0", [("width", .int(i))])
            writer.flush()
        }
        #expect(writer.writes == 3)
        #expect(saves.reports.withLock { $0 } == ["settings: cannot write c.json: No space left on device"])
        // The disk has room again: the newest state lands, nothing is reported.
        saves.failure.withLock { $0 = nil }
        writer.record(stage: "ringlight0", [("opacity", .int(30))])
        writer.flush()
        #expect(saves.states.withLock { $0.last?.stages["ringlight0"] } == ["width": .int(2), "opacity": .int(30)])
        // A later failure is reported again.
        saves.failure.withLock { $0 = "settings: cannot write c.json: No space left on device" }
        writer.record(stage: "ringlight0", [("opacity", .int(40))])
        writer.flush()
        #expect(saves.reports.withLock { $0.count } == 2)
    }

    @Test func theRealSaveWritesTheFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-writer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let writer = SettingsWriter(SettingsFile(path: "\(dir)/c.json"))
        for i in 10...60 { writer.record(stage: "ringlight0", [("opacity", .int(i))]) }
        writer.flush()
        #expect(try SettingsFile.load(path: "\(dir)/c.json").stages == ["ringlight0": ["opacity": .int(60)]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["c.json"])
    }
}
