import Testing

@testable import Host

/// Compose's scores as the clip recorder keeps them: per-second timelines and the composition trigger.
struct ClipScoresTests {
    private static func ns(_ seconds: Double) -> UInt64 { UInt64((seconds * 1e9).rounded()) }

    /// Feeds `score` every half second from `from` to `to` (inclusive); the moments (s) the trigger fired at.
    private static func feed(_ s: inout ClipScores, _ score: Double, from: Double, to: Double) -> [Double] {
        var fired: [Double] = []
        var t = from
        while t <= to {
            if s.add(pts: ns(t), score: score) { fired.append(t) }
            t += 0.5
        }
        return fired
    }

    @Test func theTimelineIsTheMeanOfEachSecondWithHoles() {
        var s = ClipScores(keep: 100, threshold: 0, hold: 2)
        for (t, score) in [(0.0, 0.5), (0.5, 0.7), (2.2, 1.0 / 3), (2.9, 0.1), (3.0, 0.9)] {
            let fired = s.add(pts: Self.ns(t), score: score)
            #expect(!fired)
        }
        // Second 0: (0.5 + 0.7) / 2; second 1: nothing; second 2: (0.3333 + 0.1) / 2 = 0.21667.
        #expect(s.timeline(from: 0, to: Self.ns(3)) == [0.6, nil, 0.217])
        // The end is excluded and the last second may be partial.
        #expect(s.timeline(from: 0, to: Self.ns(2.5)) == [0.6, nil, 0.333])
        #expect(s.timeline(from: 0, to: Self.ns(3) + 1) == [0.6, nil, 0.217, 0.9])
        // Seconds count from the start given.
        #expect(s.timeline(from: Self.ns(0.5), to: Self.ns(2.5)) == [0.7, 0.333])
        #expect(s.timeline(from: Self.ns(5), to: Self.ns(7)) == [nil, nil])
        #expect(s.timeline(from: Self.ns(3), to: Self.ns(3)).isEmpty)
        #expect(s.timeline(from: Self.ns(3), to: Self.ns(1)).isEmpty)
    }

    @Test func theScoresAreBoundedByKeep() {
        var s = ClipScores(keep: 2, threshold: 0, hold: 2)
        _ = Self.feed(&s, 0.5, from: 0, to: 10)
        #expect(s.scores.map { $0.pts } == [8, 8.5, 9, 9.5, 10].map(Self.ns))
        #expect(s.timeline(from: 0, to: Self.ns(10) + 1) == Array(repeating: nil, count: 8) + [0.5, 0.5, 0.5])
    }

    @Test func theCompositionTriggerFiresOnceAfterHoldWhileSteadyAndRearmsBelow() {
        var s = ClipScores(keep: 30, threshold: 0.7, hold: 2)
        s.phase("readyToCapture")
        #expect(s.steady == true)
        #expect(Self.feed(&s, 0.5, from: 0, to: 0.5).isEmpty)
        // At or above from 1 s: fires at 3 s, once.
        #expect(Self.feed(&s, 0.7, from: 1, to: 5) == [3])
        // Below, then above again from 6 s: fires at 8 s.
        #expect(Self.feed(&s, 0.69, from: 5.5, to: 5.5).isEmpty)
        #expect(Self.feed(&s, 0.9, from: 6, to: 10) == [8])
        // Other steady phases do not re-arm it.
        s.phase("capturingPhoto")
        s.phase("savingPhoto")
        #expect(Self.feed(&s, 0.9, from: 10.5, to: 14) == [])
    }

    @Test func itDoesNotFireWhileTheCameraMoves() {
        var s = ClipScores(keep: 30, threshold: 0.7, hold: 2)
        s.phase("waitingForStability")
        #expect(s.steady == false)
        #expect(Self.feed(&s, 0.9, from: 0, to: 5).isEmpty)
        // Steady from 5 s: the hold counts from the first score after it.
        s.phase("detectingRegion")
        #expect(Self.feed(&s, 0.9, from: 5.5, to: 9) == [7.5])
        // Moving again re-arms it; a hold interrupted by a move starts over.
        s.phase("waitingForStability")
        #expect(Self.feed(&s, 0.9, from: 9.5, to: 10).isEmpty)
        s.phase("templateReady")
        #expect(Self.feed(&s, 0.9, from: 10.5, to: 11.5).isEmpty)
        s.phase("idle")
        #expect(s.steady == false)
        #expect(Self.feed(&s, 0.9, from: 12, to: 12).isEmpty)
        s.phase("readyToCapture")
        #expect(Self.feed(&s, 0.9, from: 12.5, to: 16) == [14.5])
    }

    @Test func withoutAPhaseTheCameraCountsAsSteady() {
        var s = ClipScores(keep: 30, threshold: 0.5, hold: 1)
        #expect(s.steady == nil)
        #expect(Self.feed(&s, 0.5, from: 2, to: 6) == [3])
    }

    @Test func thresholdZeroIsOff() {
        var s = ClipScores(keep: 30, threshold: 0, hold: 0.1)
        #expect(Self.feed(&s, 1, from: 0, to: 10).isEmpty)
        #expect(s.scores.count == 21)
    }

    @Test func aStreamThatStartsAgainStartsTheScoresAndTheHoldOver() {
        var s = ClipScores(keep: 30, threshold: 0.7, hold: 2)
        // Above from 10 s, not yet held 2 s, when the stream starts again at 0.
        #expect(Self.feed(&s, 0.9, from: 10, to: 11).isEmpty)
        #expect(Self.feed(&s, 0.9, from: 0.5, to: 4) == [2.5])
        #expect(s.scores.first?.pts == Self.ns(0.5))
        #expect(s.scores.count == 8)
        // Fired, then the stream starts again: it may fire again in the new stream.
        #expect(Self.feed(&s, 0.9, from: 1, to: 3) == [3])
    }
}
