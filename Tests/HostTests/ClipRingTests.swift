import Testing

@testable import Host

/// The ring of the last seconds of an encoded stream: it starts at a keyframe, keeps `keep` seconds back to the
/// newest keyframe at or before the horizon, drops the oldest group for its byte cap, and starts over on new caps.
struct ClipRingTests {
    /// Frame `n` of a 30 fps stream (ns): every third frame falls on a tenth of a second exactly.
    private static func time(_ n: Int) -> UInt64 { UInt64(n) * 1_000_000_000 / 30 }

    /// Frame `n`: a keyframe every `keyEvery` frames (100 bytes), 10 bytes otherwise; its payload is `n`.
    private static func frame(_ n: Int, keyEvery: Int = 15, caps: Int = 0) -> ClipUnit<Int> {
        let key = n % keyEvery == 0
        return ClipUnit(pts: time(n), dts: time(n), key: key, bytes: key ? 100 : 10, capsGeneration: caps, payload: n)
    }

    private static func feed(_ ring: inout ClipRing<Int>, _ frames: Range<Int>, keyEvery: Int = 15, caps: Int = 0) {
        for n in frames { ring.append(frame(n, keyEvery: keyEvery, caps: caps)) }
    }

    @Test func framesBeforeTheFirstKeyframeAreCountedAndDropped() {
        var ring = ClipRing<Int>(keep: 3, maxBytes: 1 << 20)
        Self.feed(&ring, 7..<15)
        #expect(ring.units.isEmpty)
        #expect(ring.bytes == 0)
        #expect(ring.beforeFirstKey == 8)
        #expect(ring.newest == nil)
        #expect(ring.seconds == 0)
        Self.feed(&ring, 15..<20)
        #expect(ring.units.map(\.payload) == [15, 16, 17, 18, 19])
        #expect(ring.units.first?.key == true)
        #expect(ring.bytes == 100 + 4 * 10)
        #expect(ring.beforeFirstKey == 8)
        #expect(ring.newest == Self.time(19))
    }

    @Test func itKeepsKeepSecondsBackToTheNewestKeyframeAtOrBeforeTheHorizon() {
        var ring = ClipRing<Int>(keep: 1, maxBytes: 1 << 20)
        // Newest 2.4667 s: the horizon 1.4667 s lies after the keyframe at 1.0 s (frame 30), before the one at 1.5 s.
        Self.feed(&ring, 0..<75)
        #expect(ring.units.first?.payload == 30)
        #expect(ring.units.map(\.payload) == Array(30..<75))
        #expect(ring.bytes == 3 * 100 + 42 * 10)
        // Newest 2.5 s: the horizon is the keyframe at 1.5 s exactly, which becomes the first frame.
        Self.feed(&ring, 75..<76)
        #expect(ring.units.map(\.payload) == Array(45..<76))
        #expect(ring.bytes == 3 * 100 + 28 * 10)
        #expect(ring.seconds == 1.0)
        #expect(ring.shortened == 0)
        // Always a keyframe first, whatever the moment.
        for n in 76..<200 {
            ring.append(Self.frame(n))
            #expect(ring.units.first?.key == true)
            let first = ring.units.first?.time ?? 0
            // Reaches back `keep` seconds at least, by less than one key interval (0.5 s) more.
            #expect(Self.time(n) - first >= 1_000_000_000 || first == 0)
            #expect(Self.time(n) - first < 1_500_000_000)
        }
        #expect(ring.shortened == 0)
    }

    @Test func theByteCapDropsTheOldestGroupAndCountsIt() {
        // A group: a 100-byte keyframe and 14 frames of 10 bytes = 240 bytes; four fit in 1000.
        var ring = ClipRing<Int>(keep: 60, maxBytes: 1000)
        Self.feed(&ring, 0..<60)
        #expect(ring.bytes == 960)
        #expect(ring.shortened == 0)
        Self.feed(&ring, 60..<61)
        #expect(ring.units.map(\.payload) == Array(15..<61))
        #expect(ring.bytes == 820)
        #expect(ring.shortened == 1)
        Self.feed(&ring, 61..<120)
        // Each new keyframe drops the oldest group: 15, 30 and 45 went, one at a time.
        #expect(ring.units.map(\.payload) == Array(60..<120))
        #expect(ring.bytes == 960)
        #expect(ring.shortened == 4)
    }

    @Test func theByteCapNeverDropsTheNewestGroup() {
        var ring = ClipRing<Int>(keep: 60, maxBytes: 50)
        Self.feed(&ring, 0..<15)
        // One group of 240 bytes over a 50-byte cap: kept whole.
        #expect(ring.units.map(\.payload) == Array(0..<15))
        #expect(ring.bytes == 240)
        #expect(ring.shortened == 0)
        Self.feed(&ring, 15..<16)
        #expect(ring.units.map(\.payload) == [15])
        #expect(ring.bytes == 100)
        #expect(ring.shortened == 1)
    }

    @Test func groupsDroppedByTimeAreNotCountedAsShortened() {
        // Keyframes at 0 and 0.5 s, then one at 3 s: time drops the group at 0 (the horizon is 2 s, the newest
        // keyframe at or before it is 0.5 s), the byte cap drops the group at 0.5 s: one group shortened.
        var ring = ClipRing<Int>(keep: 1, maxBytes: 350)
        for (i, (t, bytes)) in [(UInt64(0), 100), (500_000_000, 100), (3_000_000_000, 300)].enumerated() {
            ring.append(ClipUnit(pts: t, dts: t, key: true, bytes: bytes, payload: i))
        }
        #expect(ring.units.map(\.payload) == [2])
        #expect(ring.bytes == 300)
        #expect(ring.shortened == 1)
    }

    @Test func newCapsEmptyTheRing() {
        var ring = ClipRing<Int>(keep: 3, maxBytes: 1 << 20)
        Self.feed(&ring, 0..<40)
        #expect(ring.units.count == 40)
        // The new caps begin with a keyframe: it is all the ring holds.
        ring.append(Self.frame(45, caps: 1))
        #expect(ring.units.map(\.payload) == [45])
        #expect(ring.bytes == 100)
        #expect(ring.beforeFirstKey == 0)
        // Newer caps that begin without a keyframe: nothing is kept until one comes.
        Self.feed(&ring, 46..<50, caps: 2)
        #expect(ring.units.isEmpty)
        #expect(ring.bytes == 0)
        #expect(ring.beforeFirstKey == 4)
        Self.feed(&ring, 50..<62, keyEvery: 10, caps: 2)
        #expect(ring.units.map(\.payload) == Array(50..<62))
        #expect(ring.units.allSatisfy { $0.capsGeneration == 2 })
    }

    @Test func startReachingBackIsTheNewestKeyframeAtOrBeforeTheTime() {
        var ring = ClipRing<Int>(keep: 10, maxBytes: 1 << 20)
        #expect(ring.start(reachingBackTo: 0) == nil)
        Self.feed(&ring, 15..<100)  // keyframes at 15, 30, 45, 60, 75, 90 (indices 0, 15, 30, 45, 60, 75)
        // Exactly on a keyframe: that keyframe.
        #expect(ring.start(reachingBackTo: Self.time(45)) == 30)
        #expect(ring.units[30].payload == 45)
        // Between keyframes: the earlier one.
        #expect(ring.start(reachingBackTo: Self.time(59)) == 30)
        #expect(ring.start(reachingBackTo: Self.time(60) - 1) == 30)
        #expect(ring.start(reachingBackTo: Self.time(60)) == 45)
        // Past the newest frame: the newest keyframe.
        #expect(ring.start(reachingBackTo: Self.time(500)) == 75)
        // Before the oldest frame: the oldest keyframe (the ring is shorter than asked).
        #expect(ring.start(reachingBackTo: 0) == 0)
        #expect(ring.units(from: 75).map(\.payload) == Array(90..<100))
    }

    @Test func theStreamIsCutOnDecodingTime() {
        // pts after dts (B-frames): the ring cuts on dts; a frame with neither time is at 0.
        let u = ClipUnit(pts: 2_000, dts: 1_000, key: true, bytes: 1, payload: 0)
        #expect(u.time == 1_000)
        #expect(u.shown == 2_000)
        let onlyPts = ClipUnit(pts: 3_000, dts: nil, key: false, bytes: 1, payload: 0)
        #expect(onlyPts.time == 3_000)
        #expect(onlyPts.shown == 3_000)
        let none = ClipUnit(pts: nil, dts: nil, key: false, bytes: 1, payload: 0)
        #expect(none.time == 0)
        #expect(none.shown == 0)

        var ring = ClipRing<Int>(keep: 1, maxBytes: 1 << 20)
        for n in 0..<75 {
            let f = Self.frame(n)
            // Every frame shown at 5 s: cut on pts, nothing would go; only dts decides.
            ring.append(ClipUnit(pts: 5_000_000_000, dts: f.time, key: f.key, bytes: f.bytes, payload: n))
        }
        #expect(ring.units.first?.payload == 30)
    }
}
