import GStreamerKit
import Testing

@Suite struct VideoInfoTests {
    @Test func i420LayoutHasThreePlanes() throws {
        let info = try VideoInfo(format: "I420", width: 320, height: 240)
        #expect(info.format == "I420")
        #expect((info.width, info.height) == (320, 240))
        #expect((info.fpsN, info.fpsD) == (30, 1))
        #expect(info.planes == 3)
        #expect([0, 1, 2].map(info.stride(plane:)) == [320, 160, 160])
        #expect([0, 1, 2].map(info.offset(plane:)) == [0, 76_800, 96_000])
        #expect(info.size == 115_200)
    }

    @Test func oddSizesArePaddedToFourByteStrides() throws {
        let info = try VideoInfo(format: "I420", width: 321, height: 241)
        #expect([0, 1, 2].map(info.stride(plane:)) == [324, 164, 164])
        // Plane heights round up: 242 luma rows, 121 chroma rows.
        #expect([0, 1, 2].map(info.offset(plane:)) == [0, 324 * 242, 324 * 242 + 164 * 121])
        #expect(info.size == 324 * 242 + 2 * 164 * 121)
    }

    @Test func nv12HasInterleavedChroma() throws {
        let info = try VideoInfo(format: "NV12", width: 64, height: 48)
        #expect(info.planes == 2)
        #expect([0, 1].map(info.stride(plane:)) == [64, 64])
        #expect(info.offset(plane: 1) == 64 * 48)
        #expect(info.size == 64 * 48 * 3 / 2)
    }

    @Test(arguments: ["RGBA", "BGRA", "RGBx", "BGRx"])
    func packedRGBIsOnePlaneOfFourBytes(format: String) throws {
        let info = try VideoInfo(format: format, width: 64, height: 48)
        #expect(info.format == format)
        #expect(info.planes == 1)
        #expect(info.stride(plane: 0) == 256)
        #expect(info.size == 64 * 48 * 4)
    }

    @Test func frameRateIsKept() throws {
        let info = try VideoInfo(format: "NV12", width: 1280, height: 720, fpsN: 30000, fpsD: 1001)
        #expect((info.fpsN, info.fpsD) == (30000, 1001))
        #expect(info.capsString.contains("framerate=(fraction)30000/1001"))
    }

    @Test func capsStringRoundTrips() throws {
        let info = try VideoInfo(format: "I420", width: 640, height: 360, fpsN: 25)
        let caps = try Caps(info.capsString)
        #expect(caps.description.hasPrefix("video/x-raw, format=(string)I420, width=(int)640, height=(int)360"))
        #expect(caps.videoInfo == info)
    }

    @Test func equalityComparesFormatSizeAndRate() throws {
        let a = try VideoInfo(format: "I420", width: 320, height: 240)
        #expect(a == (try VideoInfo(format: "I420", width: 320, height: 240)))
        #expect(a != (try VideoInfo(format: "NV12", width: 320, height: 240)))
        #expect(a != (try VideoInfo(format: "I420", width: 320, height: 238)))
        #expect(a != (try VideoInfo(format: "I420", width: 320, height: 240, fpsN: 25)))
    }

    @Test func unknownFormatThrowsNamingIt() {
        #expect(throws: GStreamerError(.core, "unknown video format 'I42O'")) {
            _ = try VideoInfo(format: "I42O", width: 320, height: 240)
        }
    }
}
