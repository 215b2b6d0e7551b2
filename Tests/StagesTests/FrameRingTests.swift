import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

@Suite struct FrameRingTests {
    static let info = try! VideoInfo(format: "RGBA", width: 4, height: 2, fpsN: 30, fpsD: 1)
    static let ms: UInt64 = 1_000_000

    /// A 32-byte frame numbered `i`, with pts and time `i` * 100 ms.
    static func entry(_ i: Int, score: Double? = nil, analysed: Bool = false) throws -> FrameRing.Entry {
        let buffer = Buffer(bytes: [UInt8](repeating: UInt8(i), count: info.size))
        buffer.pts = UInt64(i) * 100 * ms
        let frame = VideoFrame(buffer: buffer, info: info, caps: try Caps(info.capsString), segment: Segment(), index: i)
        let composition =
            analysed ? FrameComposition(rule: "thirds", score: score ?? 0, composed: true, advice: "", analysisPts: buffer.pts) : nil
        return FrameRing.Entry(
            frame: frame, time: UInt64(i) * 100 * ms, candidate: CaptureChoice.Candidate(score: score, sharpness: 1, motion: 0),
            composition: composition)
    }

    static func add(_ e: FrameRing.Entry, to ring: inout FrameRing, keepMs: Int = 250, budget: Int = 1 << 20) {
        ring.add(e, copy: e.frame, analysing: false, keepMs: keepMs, budget: budget)
    }

    @Test func keepsFramesForRingMillisecondsAndCountsTheirBytes() throws {
        var ring = FrameRing()
        for i in 0..<6 { Self.add(try Self.entry(i), to: &ring) }
        // At 500 ms, frames older than 250 ms (0, 100 and 200 ms) are gone.
        #expect(ring.entries.map(\.frame.index) == [3, 4, 5])
        #expect(ring.bytes == 3 * Self.info.size)
    }

    @Test func aByteBudgetKeepsAtLeastTheNewestFrame() throws {
        var ring = FrameRing()
        for i in 0..<3 { Self.add(try Self.entry(i), to: &ring, keepMs: 5000, budget: Self.info.size * 2) }
        #expect(ring.entries.map(\.frame.index) == [1, 2])
        Self.add(try Self.entry(3), to: &ring, keepMs: 5000, budget: 1)
        #expect(ring.entries.map(\.frame.index) == [3])
        #expect(ring.bytes == Self.info.size)
    }

    @Test func noRingMeansNoFramesKept() throws {
        var ring = FrameRing()
        Self.add(try Self.entry(0), to: &ring, keepMs: 0)
        #expect(ring.entries.isEmpty && ring.bytes == 0)
        let spare = ring.spare(at: 10_000 * Self.ms, keepMs: 0)
        #expect(spare == nil)
    }

    @Test func theOldestBufferIsReusedOnceItExpires() throws {
        var ring = FrameRing()
        for i in 0..<3 { Self.add(try Self.entry(i), to: &ring) }
        let early = ring.spare(at: 250 * Self.ms, keepMs: 250)
        #expect(early == nil)
        let expired = ring.spare(at: 251 * Self.ms, keepMs: 250)
        let spare = try #require(expired)
        #expect(spare.size == Self.info.size)
        #expect(ring.entries.map(\.frame.index) == [1, 2])
    }

    @Test func framesWithTheirOwnAnalysisAreTakenFirstAndNeverTwice() throws {
        var ring = FrameRing()
        Self.add(try Self.entry(0, score: 0.9), to: &ring)
        Self.add(try Self.entry(1, score: 0.5, analysed: true), to: &ring)
        let current = try Self.entry(2)
        Self.add(current, to: &ring)
        let first = ring.pick(for: .manual, current: current)
        #expect(first.frame.index == 1)
        #expect(ring.lastTakenPts == 100 * Self.ms)
        // Only frame 2 is later than the last photo.
        let second = ring.pick(for: .manual, current: current)
        #expect(second.frame.index == 2)
    }

    @Test func aLateAnalysisIsAttachedToItsFrame() throws {
        var ring = FrameRing()
        for i in 0..<3 { Self.add(try Self.entry(i), to: &ring) }
        ring.attach(
            FrameComposition(rule: "center", score: 0.7, composed: true, advice: "ok", analysisPts: 100 * Self.ms), toFrameAt: 100 * Self.ms
        )
        #expect(ring.entries[1].composition?.rule == "center")
        #expect(ring.entries[1].candidate.score == 0.7)
        let newest = ring.entries[2]
        let pick = ring.pick(for: .at, current: newest)
        #expect(pick.frame.index == 1)
    }

    @Test func theSelfTimerTakesOneOfTheLastTwoFrames() throws {
        var ring = FrameRing()
        Self.add(try Self.entry(0, score: 0.9, analysed: true), to: &ring, keepMs: 5000)
        Self.add(try Self.entry(1), to: &ring, keepMs: 5000)
        let current = try Self.entry(2)
        Self.add(current, to: &ring, keepMs: 5000)
        let pick = ring.pick(for: .timer, current: current)
        #expect([1, 2].contains(pick.frame.index))
    }
}
