import Foundation
import Host
import Testing
import Timing

@testable import Control

/// The single picture (`/api/preview.jpg`): fresh is measured and the wait bounded on the hub's clock.
@Suite(.serialized) struct PreviewHubTests {
    /// A hub on `clock` over the tap of a session that is built, never run.
    static func hub(_ clock: ManualClock) throws -> (PreviewHub, Session) {
        // A session with a stage group has a preview (a PreviewService).
        let session = try Session(description: "videotestsrc num-buffers=1 ! passthrough ! fakesink")
        return (PreviewHub(tap: try #require(session.preview), clock: clock), session)
    }

    @Test func aFreshPictureIsAnsweredAtOnceAStaleOneWaitsForTheNext() async throws {
        let clock = ManualClock()
        let (hub, _) = try Self.hub(clock)
        hub.publish(Data("A".utf8))
        clock.advance(by: 0.4)
        #expect(await hub.picture(maxAge: 0.5, timeout: 3) == Data("A".utf8))
        clock.advance(by: 0.2)  // A is 0.6 s old now
        let waiting = Task { await hub.picture(maxAge: 0.5, timeout: 3) }
        try await Task.sleep(nanoseconds: 100_000_000)
        hub.publish(Data("B".utf8))
        #expect(await waiting.value == Data("B".utf8))
        hub.close()
    }

    @Test func noPictureWithinTheTimeoutOfTheClockIsNil() async throws {
        let clock = ManualClock()
        let (hub, _) = try Self.hub(clock)
        hub.publish(Data("old".utf8))
        clock.advance(by: 10)
        let waiting = Task { await hub.picture(maxAge: 0.5, timeout: 3) }
        // Real time passes, the clock does not: still waiting.
        try await Task.sleep(nanoseconds: 200_000_000)
        clock.advance(by: 2.9)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(clock.now == 12.9)
        clock.advance(by: 0.1)
        #expect(await waiting.value == nil)
        hub.close()
    }
}
