import Testing

@testable import Host

/// The shortfall rule and text for streams that end before their stated duration.
struct StreamEndCheckTests {
    @Test func halfAFileEndedEarly() {
        #expect(StreamEndCheck.endedEarly(position: 2_600_000_000, duration: 5_000_000_000))
    }

    @Test func aFullFileOrSlightlyShorterTrackDidNot() {
        #expect(!StreamEndCheck.endedEarly(position: 5_000_000_000, duration: 5_000_000_000))
        #expect(!StreamEndCheck.endedEarly(position: 4_600_000_000, duration: 5_000_000_000))  // within 0.5 s
        #expect(!StreamEndCheck.endedEarly(position: 590_000_000_000, duration: 600_000_000_000))  // within 2 %
        #expect(StreamEndCheck.endedEarly(position: 580_000_000_000, duration: 600_000_000_000))
    }

    @Test func textNamesPositionDurationAndInput() {
        #expect(
            StreamEndCheck.text(position: 2_566_666_666, duration: 5_000_000_000, inputs: ["filesrc0 location=T.mp4"])
                == "WARNING: input ended at 2.6 s of 5.0 s (truncated file?): filesrc0 location=T.mp4")
    }
}
