import Testing

@testable import Host

/// The cutter: where a clip starts and ends, which frames go into it, which triggers it covers, and what waits.
struct ClipCutterTests {
    typealias Cutter = ClipCutter<Int>

    /// Frame `n` of a 30 fps stream (ns): every third frame falls on a tenth of a second exactly.
    private static func time(_ n: Int) -> UInt64 { UInt64(n) * 1_000_000_000 / 30 }
    private static let second: UInt64 = 1_000_000_000

    /// Frame `n`: a keyframe every 15 frames (0.5 s, 100 bytes), 10 bytes otherwise; its payload is `n`.
    private static func frame(_ n: Int, caps: Int = 0) -> ClipUnit<Int> {
        let key = n % 15 == 0
        return ClipUnit(pts: time(n), dts: time(n), key: key, bytes: key ? 100 : 10, capsGeneration: caps, payload: n)
    }

    /// The files the owner would write, from the steps in order.
    private struct Files {
        struct File {
            var clip: OpenClip
            var frames: [Int]
            var finished = false
        }
        var files: [File] = []
        /// Frames written by `.write` into no open file (must never happen).
        var stray: [Int] = []

        mutating func run(_ steps: [Cutter.Step]) {
            for step in steps {
                switch step {
                case .begin(let clip, let units): files.append(File(clip: clip, frames: units.map(\.payload)))
                case .write(let unit):
                    if let i = files.indices.last, !files[i].finished {
                        files[i].frames.append(unit.payload)
                    } else {
                        stray.append(unit.payload)
                    }
                case .finish(let clip):
                    if let i = files.indices.last, files[i].clip.id == clip.id, !files[i].finished {
                        files[i].clip = clip
                        files[i].finished = true
                    } else {
                        stray.append(-clip.id)
                    }
                }
            }
        }
    }

    private static func feed(_ c: inout Cutter, _ frames: Range<Int>, into files: inout Files, caps: Int = 0) {
        for n in frames { files.run(c.add(frame(n, caps: caps))) }
    }

    private static func trigger(_ c: inout Cutter, _ t: ClipTrigger, into files: inout Files) -> ClipAnswer {
        let (answer, steps) = c.trigger(t)
        files.run(steps)
        return answer
    }

    @Test func aClipStartsAtTheNewestKeyframeBeforeItsPreRollAndEndsBeforeItsPost() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        #expect(files.files.isEmpty)
        // At 2.6667 s: the pre-roll begins at 1.6667 s, whose newest keyframe at or before is 1.5 s (frame 45).
        let at = Self.time(80)
        let index = try #require(c.ring.start(reachingBackTo: at - Self.second))
        let ringFrames = c.ring.units(from: index).map(\.payload)
        #expect(ringFrames == Array(45..<100))
        let t = ClipTrigger(kind: "photo", capture: "manual", pts: at, photo: .init(stage: "cap", id: 7))
        let answer = Self.trigger(&c, t, into: &files)
        let opened = OpenClip(
            id: 1, start: Self.time(45), startShown: Self.time(45), end: at + Self.second, lastShown: Self.time(99), frames: 55,
            bytes: 4 * 100 + 51 * 10, triggers: [t], notes: [])
        #expect(answer == .opened(opened))
        #expect(c.open == opened)
        #expect(files.files.count == 1)
        #expect(files.files.first?.frames == ringFrames)
        // It ends before the first frame at or after 3.6667 s: frame 110 is exactly there.
        #expect(Self.time(110) == at + Self.second)
        Self.feed(&c, 100..<130, into: &files)
        let file = try #require(files.files.first)
        #expect(file.finished)
        #expect(file.frames == Array(45..<110))
        #expect(
            file.clip
                == OpenClip(
                    id: 1, start: Self.time(45), startShown: Self.time(45), end: Self.time(110), lastShown: Self.time(109), frames: 65,
                    bytes: 5 * 100 + 60 * 10, triggers: [t], notes: []))
        #expect(c.open == nil)
        #expect(c.nextID == 2)
        #expect(files.files.count == 1)
        #expect(files.stray.isEmpty)
    }

    @Test func aTriggerWithoutATimeIsDatedToTheNewestFrame() throws {
        var c = Cutter(pre: 1, post: 0.5, maxLength: 10, maxBytes: 1 << 20, firstID: 41)
        var files = Files()
        Self.feed(&c, 0..<70, into: &files)
        let answer = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        // Newest 2.3 s: pre-roll from 1.3 s (keyframe 1.0 s, frame 30), end 2.8 s (frame 84).
        let dated = ClipTrigger(kind: "api", pts: Self.time(69))
        guard case .opened(let clip) = answer else {
            Issue.record("expected a clip, got \(answer)")
            return
        }
        #expect(clip.id == 41)
        #expect(clip.triggers == [dated])
        #expect(clip.start == Self.time(30))
        #expect(clip.end == Self.time(69) + 500_000_000)
        Self.feed(&c, 70..<100, into: &files)
        #expect(files.files.map(\.frames) == [Array(30..<84)])
        #expect(files.files.map(\.finished) == [true])
    }

    @Test func anOverlappingTriggerExtendsTheOpenClipAndIsListed() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        let first = ClipTrigger(kind: "api", pts: Self.time(80))
        _ = Self.trigger(&c, first, into: &files)
        // 3.3333 s: its pre-roll (from 2.3333 s) reaches into the clip (which ends at 3.6667 s): the end moves to 4.3333 s.
        let second = ClipTrigger(kind: "signal", pts: Self.time(100))
        let answer = Self.trigger(&c, second, into: &files)
        guard case .extended(let clip) = answer else {
            Issue.record("expected the clip extended, got \(answer)")
            return
        }
        #expect(clip.id == 1)
        #expect(clip.triggers == [first, second])
        #expect(clip.end == Self.time(130))
        #expect(c.pending.isEmpty)
        Self.feed(&c, 100..<160, into: &files)
        #expect(files.files.count == 1)
        let file = try #require(files.files.first)
        #expect(file.finished)
        #expect(file.frames == Array(45..<130))
        #expect(file.clip.triggers == [first, second])
        #expect(file.clip.frames == 85)
        #expect(c.nextID == 2)
    }

    @Test func extensionIsCappedByMaxLength() throws {
        // maxLength 3 s from the first frame at 1.5 s: the clip never reaches past 4.5 s (frame 135).
        var c = Cutter(pre: 1, post: 1, maxLength: 3, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        let triggers = [80, 100, 115, 130].map { ClipTrigger(kind: "key", pts: Self.time($0)) }
        _ = Self.trigger(&c, triggers[0], into: &files)
        Self.feed(&c, 100..<101, into: &files)
        _ = Self.trigger(&c, triggers[1], into: &files)
        #expect(c.open?.end == Self.time(130))
        Self.feed(&c, 101..<116, into: &files)
        // 3.8333 s + 1 s would be 4.8333 s: capped at 4.5 s, and still listed.
        let capped = Self.trigger(&c, triggers[2], into: &files)
        #expect(try capped == .extended(#require(c.open)))
        #expect(c.open?.end == Self.time(135))
        Self.feed(&c, 116..<131, into: &files)
        let stillCapped = Self.trigger(&c, triggers[3], into: &files)
        #expect(try stillCapped == .extended(#require(c.open)))
        #expect(c.open?.end == Self.time(135))
        Self.feed(&c, 131..<150, into: &files)
        let file = try #require(files.files.first)
        #expect(files.files.count == 1)
        #expect(file.finished)
        #expect(file.frames == Array(45..<135))
        #expect(file.clip.triggers == triggers)
        #expect(file.clip.end - file.clip.start == 3 * Self.second)
    }

    @Test func aLaterTriggerWaitsAndStartsItsOwnClipWhereTheFirstEnds() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        let first = ClipTrigger(kind: "api", pts: Self.time(90))  // 3 s: frames 60 (2 s) to 119
        let opened = Self.trigger(&c, first, into: &files)
        #expect(try opened == .opened(#require(c.open)))
        // 5.25 s: its pre-roll begins at 4.25 s, after the first clip's end (4 s).
        let second = ClipTrigger(kind: "photo", capture: "auto", pts: 5_250_000_000, photo: .init(stage: "cap", id: 2))
        let waits = Self.trigger(&c, second, into: &files)
        #expect(waits == .waiting("waiting for clip 1 to end"))
        #expect(c.pending == [second])
        Self.feed(&c, 100..<220, into: &files)
        #expect(files.files.count == 2)
        #expect(files.files.map(\.finished) == [true, true])
        #expect(files.files.map(\.clip.id) == [1, 2])
        #expect(files.files.map(\.clip.triggers) == [[first], [second]])
        #expect(files.files[0].frames == Array(60..<120))
        // It ends before 6.25 s: frame 187 is at 6.2333 s, 188 at 6.2667 s.
        #expect(files.files[1].frames == Array(120..<188))
        #expect(files.files[1].clip.start == 4 * Self.second)
        #expect(files.files[1].clip.end == 6_250_000_000)
        // Across the boundary: every frame once, in order.
        #expect(files.files.flatMap(\.frames) == Array(60..<188))
        #expect(files.stray.isEmpty)
        #expect(c.pending.isEmpty)
    }

    @Test func aTriggerAheadOfTheStreamWaitsForItsPreRoll() throws {
        // The trigger's frame is still in the encoder: its pre-roll (from 3 s) is after the newest frame (1.9667 s).
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<60, into: &files)
        let t = ClipTrigger(kind: "photo", capture: "manual", pts: 4 * Self.second, photo: .init(stage: "cap", id: 1))
        let waits = Self.trigger(&c, t, into: &files)
        #expect(waits == .waiting("waiting for the stream to reach its pre-roll"))
        #expect(files.files.isEmpty)
        // At 2.9667 s still waiting; at 3 s (frame 90, a keyframe) it begins.
        Self.feed(&c, 60..<90, into: &files)
        #expect(files.files.isEmpty)
        #expect(c.pending == [t])
        Self.feed(&c, 90..<91, into: &files)
        #expect(files.files.first?.frames == [90])
        Self.feed(&c, 91..<200, into: &files)
        #expect(files.files.count == 1)
        let file = try #require(files.files.first)
        #expect(file.clip.start == 3 * Self.second)
        #expect(file.frames == Array(90..<150))
        #expect(file.clip.triggers == [t])
        #expect(file.clip.notes == [])
    }

    @Test func aTriggerBeforeAnyKeyframeBeginsAtTheFirstKeyframe() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 10..<15, into: &files)
        #expect(c.ring.beforeFirstKey == 5)
        let waits = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        #expect(waits == .waiting("waiting for the first keyframe"))
        #expect(c.pending == [ClipTrigger(kind: "api")])
        Self.feed(&c, 15..<16, into: &files)
        let open = try #require(c.open)
        #expect(open.start == Self.time(15))
        #expect(open.end == Self.time(45))
        #expect(open.triggers == [ClipTrigger(kind: "api", pts: Self.time(15))])
        #expect(open.notes == ["triggered before any keyframe: the clip starts at the first keyframe"])
        Self.feed(&c, 16..<60, into: &files)
        #expect(files.files.map(\.frames) == [Array(15..<45)])
        #expect(files.files.first?.clip.notes == ["triggered before any keyframe: the clip starts at the first keyframe"])
    }

    @Test func triggersBeforeAnyKeyframeAllGoIntoTheFirstClip() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 10..<15, into: &files)
        for kind in ["api", "key", "signal"] {
            let waits = Self.trigger(&c, ClipTrigger(kind: kind), into: &files)
            #expect(waits == .waiting("waiting for the first keyframe"))
        }
        Self.feed(&c, 15..<100, into: &files)
        #expect(files.files.count == 1)
        #expect(files.files.first?.frames == Array(15..<45))
        #expect(files.files.first?.clip.triggers.map(\.kind) == ["api", "key", "signal"])
        #expect(files.files.first?.clip.triggers.map(\.pts) == Array(repeating: Self.time(15), count: 3))
        #expect(c.pending.isEmpty)
        #expect(c.nextID == 2)
    }

    @Test func aTriggerWhoseWholeClipIsInTheRingIsBegunAndFinishedAtOnce() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        // 1.5 s: from the keyframe at 0.5 s (frame 15) to before 2.5 s (frame 75); the newest frame is 3.3 s.
        let t = ClipTrigger(kind: "photo", capture: "timer", pts: Self.time(45), photo: .init(stage: "cap", id: 3))
        let (answer, steps) = c.trigger(t)
        files.run(steps)
        let done = OpenClip(
            id: 1, start: Self.time(15), startShown: Self.time(15), end: Self.time(75), lastShown: Self.time(74), frames: 60,
            bytes: 4 * 100 + 56 * 10, triggers: [t], notes: [])
        #expect(answer == .opened(done))
        #expect(steps.count == 2)
        #expect(files.files.count == 1)
        #expect(files.files.first?.frames == Array(15..<75))
        #expect(files.files.first?.finished == true)
        #expect(files.files.first?.clip == done)
        #expect(c.open == nil)
        #expect(c.nextID == 2)
        Self.feed(&c, 100..<130, into: &files)
        #expect(files.files.count == 1)
        #expect(files.stray.isEmpty)
    }

    @Test func triggersBeyondThePendingLimitAreRefused() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api", pts: Self.time(90)), into: &files)
        // Sixteen later moments, 3 s apart: none reaches into the open clip or into another.
        let later = (0..<Cutter.pendingLimit).map { ClipTrigger(kind: "mqtt", pts: UInt64(10 + 3 * $0) * Self.second) }
        for t in later {
            let answer = Self.trigger(&c, t, into: &files)
            #expect(answer == .waiting("waiting for clip 1 to end"))
        }
        #expect(c.pending == later)
        #expect(c.refused == 0)
        let extra = ClipTrigger(kind: "mqtt", pts: 100 * Self.second)
        let refused = Self.trigger(&c, extra, into: &files)
        #expect(refused == .waiting("refused: 16 triggers already wait"))
        #expect(c.refused == 1)
        #expect(c.pending == later)
        // One that overlaps the open clip still extends it.
        let overlapping = ClipTrigger(kind: "api", pts: Self.time(100))
        let extended = Self.trigger(&c, overlapping, into: &files)
        #expect(try extended == .extended(#require(c.open)))
        #expect(c.refused == 1)
    }

    @Test func triggersBeforeAnyKeyframeBeyondThePendingLimitAreRefused() {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        for _ in 0..<Cutter.pendingLimit {
            let waits = Self.trigger(&c, ClipTrigger(kind: "key"), into: &files)
            #expect(waits == .waiting("waiting for the first keyframe"))
        }
        let refused = Self.trigger(&c, ClipTrigger(kind: "key"), into: &files)
        #expect(refused == .waiting("refused: 16 triggers already wait"))
        #expect(c.refused == 1)
        #expect(c.pending.count == 16)
        Self.feed(&c, 0..<100, into: &files)
        #expect(files.files.count == 1)
        #expect(files.files.first?.clip.triggers.count == 16)
        #expect(c.pending.isEmpty)
    }

    @Test func theEndOfTheStreamFinishesTheOpenClipWithANote() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        #expect(c.endOfStream().isEmpty)
        Self.feed(&c, 0..<100, into: &files)
        let t = ClipTrigger(kind: "api", pts: Self.time(90))
        _ = Self.trigger(&c, t, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api", pts: 20 * Self.second), into: &files)
        #expect(c.pending.count == 1)
        Self.feed(&c, 100..<110, into: &files)
        files.run(c.endOfStream())
        #expect(files.files.count == 1)
        let file = try #require(files.files.first)
        #expect(file.finished)
        #expect(file.frames == Array(60..<110))
        #expect(
            file.clip
                == OpenClip(
                    id: 1, start: 2 * Self.second, startShown: 2 * Self.second, end: 4 * Self.second, lastShown: Self.time(109),
                    frames: 50, bytes: 4 * 100 + 46 * 10, triggers: [t], notes: ["the stream ended before the clip's end"]))
        #expect(c.open == nil)
        #expect(c.pending.isEmpty)
        #expect(c.endOfStream().isEmpty)
    }

    @Test func newCapsEndTheOpenClip() throws {
        var c = Cutter(pre: 1, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api", pts: Self.time(90)), into: &files)
        Self.feed(&c, 100..<105, into: &files, caps: 0)
        Self.feed(&c, 105..<140, into: &files, caps: 1)
        #expect(files.files.count == 1)
        let file = try #require(files.files.first)
        #expect(file.finished)
        #expect(file.frames == Array(60..<105))
        #expect(file.clip.notes == ["the stream's caps changed: the clip ends there"])
        #expect(file.clip.frames == 45)
        #expect(c.open == nil)
        // Frame 105 is a keyframe: the ring starts over there.
        #expect(c.ring.units.first?.payload == 105)
        #expect(c.ring.units.allSatisfy { $0.capsGeneration == 1 })
    }

    @Test func aShortRingGivesThePreRollShortNote() throws {
        var c = Cutter(pre: 3, post: 0.5, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        // The stream began 1.9667 s ago: of 3 s asked, 2.0 s (rounded) are there.
        Self.feed(&c, 0..<60, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        #expect(c.open?.start == 0)
        #expect(c.open?.notes == ["pre-roll short: 2.0 s of 3.0 s were kept"])
    }

    @Test func aRingShortenedByItsByteCapGivesThePreRollShortNote() throws {
        // Two groups of 240 bytes fit: the ring reaches back 0.5 s to 1 s, not 3 s.
        var c = Cutter(pre: 3, post: 0.5, maxLength: 10, maxBytes: 480)
        var files = Files()
        Self.feed(&c, 30..<100, into: &files)
        #expect(c.ring.units.first?.payload == 75)
        _ = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        #expect(c.open?.start == Self.time(75))
        #expect(c.open?.notes == ["pre-roll short: 0.8 s of 3.0 s were kept"])
        #expect(files.files.first?.frames == Array(75..<100))
    }

    @Test func noPreRollAskedIsNoNote() throws {
        var c = Cutter(pre: 0, post: 1, maxLength: 10, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<100, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        #expect(c.open?.start == Self.time(90))
        #expect(c.open?.notes == [])
        #expect(c.open?.end == Self.time(99) + Self.second)
        #expect(c.maxLength == 10)
        // maxLength is at least pre + post.
        #expect(Cutter(pre: 4, post: 5, maxLength: 1, maxBytes: 1).maxLength == 9)
    }

    @Test func aStreamWhoseTimeGoesBackEndsTheOpenClipAndStartsTheRingOver() {
        var c = Cutter(pre: 1, post: 5, maxLength: 60, maxBytes: 1 << 20)
        var files = Files()
        Self.feed(&c, 0..<90, into: &files)
        _ = Self.trigger(&c, ClipTrigger(kind: "api"), into: &files)
        Self.feed(&c, 90..<100, into: &files)
        // The source starts again at time 0.
        files.run(c.add(Self.frame(0)))
        #expect(files.files.count == 1)
        #expect(files.files[0].finished)
        #expect(files.files[0].clip.notes == ["the stream's time went back: the clip ends there"])
        #expect(files.files[0].frames == Array(45..<100))  // the keyframe at 1.5 s: the newest at or before 2.967 - 1
        #expect(c.open == nil)
        #expect(c.ring.units.map(\.payload) == [0])
        #expect(files.stray.isEmpty)
    }
}
