import GStreamerKit
import Testing

@testable import Host

/// The checks and the offset rule of a source switch, without a session.
@Suite struct SourceSwitchTests {
    static let d: UInt64 = 33_333_333

    /// The old source flowed until now: the new one's next frame comes one frame after its last, whatever its own
    /// running time (ahead, behind, or from 0).
    @Test func theNewFramesFollowTheOldOnesLastByOneFrame() {
        for first: UInt64 in [0, 4_000_000_000, 9_000_000_000] {
            let o = SourceSwitch.offset(first: first, duration: Self.d, oldLast: 5_000_000_000, frame: Self.d, now: 5_020_000_000)
            #expect(Int64(first + Self.d) + o == 5_000_000_000 + Int64(Self.d))
        }
    }

    /// The old source was away (its last frame 10 s ago): a live source ahead of it keeps its own times; one behind
    /// it is still moved after it.
    @Test func afterALongSilenceALiveSourceKeepsItsTimes() {
        #expect(
            SourceSwitch.offset(first: 15_000_000_000, duration: Self.d, oldLast: 5_000_000_000, frame: Self.d, now: 15_010_000_000) == 0)
        let o = SourceSwitch.offset(first: 0, duration: nil, oldLast: 5_000_000_000, frame: Self.d, now: 15_010_000_000)
        #expect(o == 5_000_000_000)
        #expect(SourceSwitch.offset(first: nil, duration: nil, oldLast: 5_000_000_000, frame: Self.d, now: 0) == 0)
        #expect(SourceSwitch.offset(first: 7, duration: nil, oldLast: nil, frame: Self.d, now: 0) == 0)
    }

    @Test func aFragmentIsCheckedAloneBeforeAnythingIsBuilt() throws {
        #expect(try SourceSwitch.check("videotestsrc is-live=true ! videoconvert") == "videotestsrc")
        for (text, part) in [
            ("videotestsrc ! ! x", "!"), ("nosuchsrc", "nosuchsrc"), ("videotestsrc ! grid", "'grid' is a Viewfinder stage"),
        ] {
            do {
                _ = try SourceSwitch.check(text)
                Issue.record("'\(text)' passed")
            } catch {
                #expect(error.kind == .invalid && error.message.contains(part), "\(text): \(error)")
            }
        }
        do {
            try SourceSwitch.checkMedia("audiotestsrc ! audioconvert")
            Issue.record("audio passed")
        } catch {
            #expect(error.message.contains("audio/x-raw") && error.message.contains("not raw video"), "\(error)")
        }
        try SourceSwitch.checkMedia("videotestsrc")
    }
}
