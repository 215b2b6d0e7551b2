import Foundation
import GStreamerKit
import Stages
import Testing
import Timing

@testable import Host

/// The photo-branch restart schedule on a manual clock: 5 s after a failure, doubling up to 60 s, nothing
/// restarted early, nothing restarted once the stream is ending. (A real branch failing mid-run and coming back:
/// `OutputMessageTests.aFailedPhotoBranchIsRecordedAndRestarted`.)
@Suite(.serialized) struct BranchSupervisorTests {
    /// A session that is built, never run: its snapshot branch is a segment of its own.
    static func session(_ dir: String) throws -> Session {
        try Session(description: "videotestsrc num-buffers=1 ! snapshot name=cam location=\(dir)/shot-%02d.jpg ! fakesink")
    }

    static func withSession(_ body: (Session) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-supervisor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try session(dir)
        defer { for p in s.pipelines { p.setState(.null) } }
        try body(s)
    }

    @Test func aFailedBranchIsRestartedAfterFiveSecondsDoublingToSixty() throws {
        try Self.withSession { s in
            let clock = ManualClock(now: 1000)
            let sup = BranchSupervisor(pipelines: s.pipelines, groups: s.groups, clock: clock)
            let branch = try #require(s.pipelines.indices.first { sup.owner(segment: $0) != nil })
            #expect(sup.owner(segment: branch)?.output == "cam.snapshot")
            var delays: [Double] = []
            for round in 0..<7 {
                let failedAt = clock.now
                let m = try #require(sup.branchFailed(segment: branch, source: "cam_snapshot_files", text: "No space left on device"))
                #expect(try OutputErrorMessage(structure: m.structure) == OutputErrorMessage(
                    stage: "cam", output: "snapshot", element: "cam_snapshot_files", text: "No space left on device"))
                let retryAt = try #require(sup.dead[branch]?.retryAt)
                delays.append(retryAt - failedAt)
                // Not a moment early.
                var eos: Set<Int> = [branch]
                clock.advance(by: retryAt - failedAt - 0.5)
                #expect(sup.restartDue(stopping: false, eos: &eos).isEmpty, "round \(round)")
                #expect(eos == [branch])
                clock.advance(by: 0.5)
                let restarted = sup.restartDue(stopping: false, eos: &eos)
                #expect(restarted.map(\.structure) == [OutputRestartedMessage(stage: "cam", output: "snapshot").structure])
                #expect(eos.isEmpty)
                #expect(sup.dead[branch]?.retryAt == nil)
                // Running again: nothing more to restart, however long it runs.
                clock.advance(by: 600)
                #expect(sup.restartDue(stopping: false, eos: &eos).isEmpty)
            }
            #expect(delays == [5, 10, 20, 40, 60, 60, 60])
            #expect(sup.errors.count == 7)
        }
    }

    @Test func aBranchDueWhileTheStreamEndsIsNotRestarted() throws {
        try Self.withSession { s in
            let clock = ManualClock()
            let sup = BranchSupervisor(pipelines: s.pipelines, groups: s.groups, clock: clock)
            let branch = try #require(s.pipelines.indices.first { sup.owner(segment: $0) != nil })
            _ = sup.branchFailed(segment: branch, source: "cam_snapshot_files", text: "gone")
            clock.advance(by: 5)
            var eos: Set<Int> = [branch]
            #expect(sup.restartDue(stopping: true, eos: &eos).isEmpty)
            #expect(eos == [branch])
            #expect(sup.dead[branch] == nil)
        }
    }

    @Test func onlyPhotoBranchesAreSupervised() throws {
        try Self.withSession { s in
            let sup = BranchSupervisor(pipelines: s.pipelines, groups: s.groups, clock: ManualClock())
            let others = s.pipelines.indices.filter { sup.owner(segment: $0) == nil }
            #expect(others.count == s.pipelines.count - 1)
            for i in others { #expect(sup.branchFailed(segment: i, source: "x", text: "y") == nil) }
            #expect(sup.dead.isEmpty)
        }
    }
}
