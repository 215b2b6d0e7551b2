import GStreamerKit
import Testing

@Suite struct BufferTests {
    @Test func bytesRoundTrip() {
        let data: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let buffer = Buffer(bytes: data)
        #expect(buffer.size == 1000)
        #expect(buffer.bytes() == data)
        #expect(Buffer(bytes: []).size == 0)
        #expect(Buffer(bytes: []).bytes() == [])
    }

    @Test func timestampsStartUnsetAndReadBackWhatWasSet() {
        let buffer = Buffer(bytes: [1, 2, 3])
        #expect(buffer.pts == nil)
        #expect(buffer.dts == nil)
        #expect(buffer.duration == nil)
        buffer.pts = 1_000_000_000
        buffer.dts = 966_666_667
        buffer.duration = 33_333_333
        #expect(buffer.pts == 1_000_000_000)
        #expect(buffer.dts == 966_666_667)
        #expect(buffer.duration == 33_333_333)
        buffer.pts = 0
        buffer.dts = nil
        #expect(buffer.pts == 0)
        #expect(buffer.dts == nil)
        #expect(buffer.bytes() == [1, 2, 3])
    }

    @Test func aSoleBufferIsWritableAndMakeWritableDoesNotCopy() {
        var identities: (before: UInt, after: UInt) = (0, 0)
        let copies = copiesMade {
            let buffer = Buffer(bytes: [9, 8, 7])
            #expect(buffer.isWritable)
            identities.before = buffer.identity
            buffer.makeWritable()
            buffer.pts = 5
            identities.after = buffer.identity
        }
        #expect(copies == 0)
        #expect(identities.before == identities.after)
    }

    @Test func sharedBufferIsTheSameGstBufferAndReadOnly() {
        let original = Buffer(bytes: [1, 2, 3, 4])
        original.pts = 42
        let second = original.shared()
        #expect(second.identity == original.identity)
        #expect(!original.isWritable)
        #expect(!second.isWritable)
        #expect(second.pts == 42)
        #expect(second.bytes() == [1, 2, 3, 4])
    }

    @Test func makeWritableOnASharedBufferCopiesExactlyOnceAndLeavesTheOriginal() throws {
        var originals: [Buffer] = [], copies: [Buffer] = []
        let made = copiesMade {
            let original = Buffer(bytes: [10, 20, 30, 40, 50, 60, 70, 80])
            original.pts = 100
            let copy = original.shared()
            copy.makeWritable()
            originals.append(original); copies.append(copy)
        }
        #expect(made == 1)
        let original = try #require(originals.last), copy = try #require(copies.last)
        #expect(copy.identity != original.identity)
        #expect(copy.isWritable)
        #expect(original.isWritable)  // the sole holder again
        #expect(copy.bytes() == original.bytes())
        #expect(copy.pts == 100)

        // Now each is its own buffer: changing one leaves the other alone, without further copies.
        let later = copiesMade(attempts: 3) {
            copy.pts = 200
            copy.duration = 1
        }
        #expect(later == 0)
        #expect(original.pts == 100)
        #expect(original.duration == nil)
        #expect(copy.pts == 200)
    }

    @Test func settingATimestampOnASharedBufferCopiesFirst() {
        let original = Buffer(bytes: [1])
        original.pts = 7
        let other = original.shared()
        other.pts = 8
        #expect(other.identity != original.identity)
        #expect(original.pts == 7)
        #expect(other.pts == 8)
    }

    @Test func pixelWritesThroughASharedBufferLeaveTheOriginalPixels() throws {
        let info = try VideoInfo(format: "RGBA", width: 8, height: 2)
        let black = TestFrames.blackBytes(info)
        let original = Buffer(bytes: black)
        let frame = VideoFrame(buffer: original.shared(), info: info, caps: try Caps(info.capsString), segment: Segment(), index: 0)
        try frame.blend(OverlayComposition(bgra: TestFrames.whiteColumns([3], width: 8, height: 2), width: 8, height: 2, stride: 32))
        #expect(original.bytes() == black)
        let blended = frame.buffer.bytes()
        #expect(blended != black)
        #expect(Array(blended[12..<15]) == [255, 255, 255])
        #expect(Array(blended[32 + 12..<32 + 15]) == [255, 255, 255])
    }
}
