import Host
import Testing

/// `max-age` and `max-size` as written: units, powers of 1024, 0 for no limit, the errors, and back to text.
@Suite struct RecordingLimitsTests {
    @Test func durationsTakeAUnit() throws {
        #expect(try RecordingLimits.duration("0") == 0)
        #expect(try RecordingLimits.duration("30s") == 30)
        #expect(try RecordingLimits.duration("90m") == 5400)
        #expect(try RecordingLimits.duration("12h") == 43_200)
        #expect(try RecordingLimits.duration("7d") == 604_800)
        for bad in ["", "7", "d", "7 d", "1.5h", "-1d", "7D", "7w", "٣d", "99999999999999999d"] {
            #expect(
                throws: HostError(
                    .usage, "recordings: bad value '\(bad)' for property 'max-age': expected \(RecordingLimits.durationExpected)")
            ) {
                try RecordingLimits.duration(bad)
            }
        }
    }

    @Test func sizesArePowersOf1024() throws {
        #expect(try RecordingLimits.size("0") == 0)
        #expect(try RecordingLimits.size("1000") == 1000)
        #expect(try RecordingLimits.size("100K") == 102_400)
        #expect(try RecordingLimits.size("500m") == 500 << 20)
        #expect(try RecordingLimits.size("20G") == 20 << 30)
        #expect(try RecordingLimits.size("2T") == 2 << 40)
        for bad in ["", "20Q", "G", "20GB", "1.5G", "-1", " 20G", "99999999999T"] {
            #expect(
                throws: HostError(
                    .usage, "recordings: bad value '\(bad)' for property 'max-size': expected \(RecordingLimits.sizeExpected)")
            ) {
                try RecordingLimits.size(bad)
            }
        }
    }

    @Test func backToTextInTheLargestUnitThatDivides() {
        #expect(RecordingLimits.durationText(0) == "0")
        #expect(RecordingLimits.durationText(604_800) == "7d")
        #expect(RecordingLimits.durationText(5400) == "90m")
        #expect(RecordingLimits.durationText(61) == "61s")
        #expect(RecordingLimits.sizeText(0) == "0")
        #expect(RecordingLimits.sizeText(20 << 30) == "20G")
        #expect(RecordingLimits.sizeText(1536 << 10) == "1536K")
        #expect(RecordingLimits.sizeText(1000) == "1000")
    }
}
