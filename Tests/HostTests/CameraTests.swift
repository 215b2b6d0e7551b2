import Foundation
import Stages
import Synchronization
import Testing
import Timing

@testable import Host

/// A named pipeline's loop with real sessions (non-live sources: nothing waits on the wall clock) and its restarts
/// on a manual clock: after an error 1 s, 2 s, 4 s...; end-of-stream ends it unless `restart: always`; stop, start,
/// restart and remove as a user gives them.
@Suite(.serialized) struct CameraTests {
    /// Everything a camera announced, and a real-time wait for a state.
    final class Announcements: Sendable {
        let all = Mutex<[PipelineMessage]>([])
        func add(_ m: PipelineMessage) { all.withLock { $0.append(m) } }
        var states: [PipelineMessage.State] { all.withLock { $0.map(\.state) } }
        /// Waits (real time, bounded) until `state` has been announced `count` times.
        @discardableResult
        func wait(for state: PipelineMessage.State, count: Int = 1, timeout: Double = 20) -> Bool {
            let limit = Date().addingTimeInterval(timeout)
            while Date() < limit {
                if all.withLock({ $0.filter { $0.state == state }.count }) >= count { return true }
                usleep(5000)
            }
            return false
        }
    }

    static func camera(_ description: String, settings: SettingsFile? = nil, clock: ManualClock, _ heard: Announcements) -> Camera {
        Camera(
            spec: CameraSpec(name: "cam", description: description, settings: settings), running: true, clock: clock,
            build: { spec throws(HostError) in
                let s = try Session(description: spec.description, options: SessionOptions())
                try s.prepare()
                return s
            },
            announce: { heard.add($0) })
    }

    @Test func anErrorRestartsOnTheBackOffAndSaysWhy() throws {
        let clock = ManualClock()
        let heard = Announcements()
        // identity fails the run after 5 frames, every run.
        let camera = Self.camera("videotestsrc ! identity error-after=5 ! grid ! fakesink", clock: clock, heard)
        camera.launch()
        #expect(heard.wait(for: .restarting))
        let first = try #require(heard.all.withLock { $0.first { $0.state == .restarting } })
        #expect(first.retryIn == 1)
        #expect(first.restarts == 1)
        #expect(first.error.contains("identity0"))
        #expect(camera.status.state == .restarting)
        // Nothing starts before the delay is over.
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 0.9)
        usleep(50_000)
        #expect(heard.states.filter { $0 == .starting }.count == 1, "only the first run's start")
        clock.advance(by: 0.1)
        #expect(heard.wait(for: .restarting, count: 2))
        #expect(heard.all.withLock { $0.filter { $0.state == .restarting }.map(\.retryIn) } == [1, 2])
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 2)
        #expect(heard.wait(for: .restarting, count: 3))
        #expect(heard.all.withLock { $0.filter { $0.state == .restarting }.map(\.retryIn) } == [1, 2, 4])
        #expect(camera.status.restarts == 3)
        #expect(camera.remove())
        #expect(heard.states.last == .removed)
    }

    @Test func endOfStreamEndsItUnlessItsSettingsSayAlways() throws {
        let clock = ManualClock()
        let heard = Announcements()
        let camera = Self.camera("videotestsrc num-buffers=10 ! grid ! fakesink", clock: clock, heard)
        camera.launch()
        #expect(heard.wait(for: .ended))
        usleep(100_000)
        #expect(!heard.states.contains(.restarting))
        #expect(camera.status.state == .ended)
        // A user's start runs it again.
        camera.start()
        #expect(heard.wait(for: .ended, count: 2))
        #expect(camera.remove())

        var settings = SettingsFile(path: "/nonexistent/cam.json")
        settings.restart = .always
        let again = Announcements()
        let looping = Self.camera("videotestsrc num-buffers=10 ! grid ! fakesink", settings: settings, clock: clock, again)
        looping.launch()
        #expect(again.wait(for: .restarting))
        #expect(again.all.withLock { $0.first { $0.state == .restarting }?.error } == "")
        #expect(looping.remove())
    }

    @Test func stopWaitsForAStartAndRestartRunsANewSession() throws {
        let clock = ManualClock()
        let heard = Announcements()
        let camera = Self.camera("videotestsrc is-live=true ! video/x-raw,width=160,height=120 ! grid ! fakesink", clock: clock, heard)
        camera.launch()
        #expect(heard.wait(for: .playing))
        let first = camera.session
        camera.restart()
        #expect(heard.wait(for: .playing, count: 2))
        #expect(camera.session !== first)
        #expect(!heard.states.contains(.restarting))
        camera.stop()
        #expect(heard.wait(for: .stopped))
        #expect(camera.session == nil)
        camera.start()
        #expect(heard.wait(for: .playing, count: 3))
        #expect(camera.remove(final: .stopped))
        #expect(heard.states.suffix(2) == [.stopping, .stopped])
    }

    @Test func aSpecThatNoLongerBuildsFailsAndWaits() throws {
        let clock = ManualClock()
        let heard = Announcements()
        let camera = Self.camera("videotestsrc num-buffers=5 ! grid ! filesink location=/nonexistent-dir/x.raw", clock: clock, heard)
        camera.launch()
        #expect(heard.wait(for: .failed))
        let failed = try #require(heard.all.withLock { $0.first { $0.state == .failed } })
        #expect(failed.error.contains("/nonexistent-dir"))
        #expect(camera.status.state == .failed)
        #expect(camera.remove())
    }

    @Test func aRestartThatCannotBuildIsOneMoreAttemptOnTheBackOff() throws {
        let clock = ManualClock()
        let heard = Announcements()
        let builds = Mutex(0)
        let camera = Camera(
            spec: CameraSpec(name: "cam", description: "videotestsrc ! identity error-after=5 ! grid ! fakesink"), running: true,
            clock: clock,
            build: { spec throws(HostError) in
                // The first build runs (and fails at run time); the directory its restarts need is gone.
                guard builds.withLock({ n in n += 1; return n }) == 1 else { throw HostError(.usage, "cannot write in /gone") }
                let s = try Session(description: spec.description, options: SessionOptions())
                try s.prepare()
                return s
            },
            announce: { heard.add($0) })
        camera.launch()
        #expect(heard.wait(for: .restarting))
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 1)
        #expect(heard.wait(for: .restarting, count: 2))
        let second = try #require(heard.all.withLock { $0.filter { $0.state == .restarting }.last })
        #expect(second.retryIn == 2)
        #expect(second.error == "cannot write in /gone")
        #expect(!heard.states.contains(.failed))
        #expect(camera.remove())
    }
}
