import Testing

@testable import GStreamerKit

/// VideoFrame's text layout: rows stack within a group and carry on, through the buffer's meta, to the
/// stages of later groups (`compose ! queue ! capture`).
@Suite struct VideoFrameTests {
    @Test func rowsStackFromTheirEdge() throws {
        let f = try TestFrames.black("I420", width: 320, height: 240)
        #expect(f.reserveTextRow(height: 20, edge: .bottom, gap: 4) == 216)
        #expect(f.reserveTextRow(height: 10, edge: .bottom, gap: 4) == 202)
        #expect(f.reserveTextRow(height: 12, edge: .top, gap: 2) == 2)
        #expect(f.textRows == (top: 14, bottom: 38))
    }

    @Test func laterGroupsStackAboveTheRowsOfEarlierOnes() throws {
        let first = try TestFrames.black("I420", width: 320, height: 240)
        let advice = first.reserveTextRow(height: 20, edge: .bottom, gap: 4)
        first.publishTextRows()
        // The next group sees the same buffer in a new frame: its row goes above the advice, not over it.
        let second = VideoFrame(buffer: first.buffer, info: first.info, caps: first.caps, segment: Segment(), index: 0)
        let state = second.reserveTextRow(height: 16, edge: .bottom, gap: 4)
        #expect(state + 16 <= advice)
        #expect(state == 240 - 24 - 4 - 16)
    }

    @Test func rowsAreScaledWhenTheFrameWasScaledBetweenGroups() throws {
        let big = try TestFrames.black("I420", width: 640, height: 480)
        _ = big.reserveTextRow(height: 40, edge: .bottom, gap: 8)
        big.publishTextRows()
        let text = try #require(big.buffer.customMetaText(VideoFrame.textRowsMeta))
        // After a videoscale to half the size the meta is the same; the rows it names are halved.
        let small = try TestFrames.black("I420", width: 320, height: 240)
        let m = try #require(MessageStructure(parsing: text))
        small.buffer.setCustomMeta(m)
        #expect(small.reserveTextRow(height: 10, edge: .bottom, gap: 0) == 240 - 24 - 10)
    }

    @Test func aFrameWithoutRowsPublishesNothing() throws {
        let f = try TestFrames.black("I420", width: 64, height: 48)
        f.publishTextRows()
        #expect(f.buffer.customMetaText(VideoFrame.textRowsMeta) == nil)
    }
}
