import GStreamerKit
import Testing

@Suite struct CapsTests {
    static let i420 = "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

    @Test func parseGivesCanonicalDescription() throws {
        let caps = try Caps(Self.i420)
        #expect(caps.description == "video/x-raw, format=(string)I420, width=(int)320, height=(int)240, framerate=(fraction)30/1")
        #expect(!caps.isEmpty)
        #expect(!caps.isAny)
    }

    @Test func descriptionParsesBackToEqualCaps() throws {
        let caps = try Caps(Self.i420)
        let again = try Caps(caps.description)
        #expect(again == caps)
        #expect(try Caps("video/x-raw,width=320") == Caps("video/x-raw, width=(int)320"))
        #expect(try Caps("video/x-raw,width=320") != Caps("video/x-raw,width=321"))
    }

    @Test func structureNamesAndFixatedFields() throws {
        let rtp = try Caps("application/x-rtp,media=video,encoding-name=H264,payload=[96,127]; application/x-rtp,encoding-name=VP8")
        #expect(rtp.structureNames == ["application/x-rtp", "application/x-rtp"])
        // Fixation picks the first structure and the lowest value of a range.
        #expect(rtp.fixatedField("encoding-name") == "H264")
        #expect(rtp.fixatedField("payload") == "96")
        #expect(rtp.fixatedField("clock-rate") == nil)
        #expect(try Caps("ANY").structureNames.isEmpty)
        #expect(try Caps("ANY").fixatedField("encoding-name") == nil)
        #expect(try Caps("video/x-raw,format={ I420, NV12 }").fixatedField("format") == "I420")
    }

    @Test func badTextThrowsNamingTheText() {
        #expect {
            _ = try Caps("video/x-raw,width=(int)wide")
        } throws: { error in
            let e = error as? GStreamerError
            return e?.domain == .core && e?.message == "bad caps 'video/x-raw,width=(int)wide'"
        }
    }

    @Test func intersectKeepsTheFirstCapsOrder() throws {
        let a = try Caps("video/x-raw,format=I420; video/x-raw,format=NV12; video/x-raw,format=RGBA")
        let b = try Caps("video/x-raw,format=RGBA; video/x-raw,format=I420")
        #expect(a.intersect(b).description == "video/x-raw, format=(string)I420; video/x-raw, format=(string)RGBA")
        #expect(b.intersect(a).description == "video/x-raw, format=(string)RGBA; video/x-raw, format=(string)I420")
    }

    @Test func intersectNarrowsRangesAndLists() throws {
        let offer = try Caps("video/x-raw,format={ NV12, I420, RGBA },width=[ 1, 4096 ]")
        let want = try Caps("video/x-raw,format={ RGBA, I420 },width=640")
        #expect(offer.intersect(want).description == "video/x-raw, format=(string){ I420, RGBA }, width=(int)640")
    }

    @Test func disjointIntersectionIsEmpty() throws {
        let video = try Caps("video/x-raw,format=I420")
        let audio = try Caps("audio/x-raw,format=S16LE")
        let none = video.intersect(audio)
        #expect(none.isEmpty)
        #expect(!none.isAny)
        #expect(none.description == "EMPTY")
        #expect(try Caps("video/x-raw,format=I420").intersect(Caps("video/x-raw,format=NV12")).isEmpty)
    }

    @Test func anyCapsAreAnyAndIntersectToTheOther() throws {
        let any = try Caps("ANY")
        #expect(any.isAny)
        #expect(!any.isEmpty)
        #expect(any.description == "ANY")
        let video = try Caps(Self.i420)
        #expect(any.intersect(video) == video)
    }

    @Test func videoInfoOfFixedRawCaps() throws {
        let info = try #require(try Caps(Self.i420).videoInfo)
        #expect(info.width == 320)
        #expect(info.height == 240)
        #expect(info.format == "I420")
        #expect(info.planes == 3)
        #expect(info.fpsN == 30)
        #expect(info.fpsD == 1)
        #expect(info.size == 320 * 240 * 3 / 2)
    }

    @Test func videoInfoIsNilForUnfixedOrNonVideoCaps() throws {
        #expect(try Caps("video/x-raw,format={ I420, NV12 },width=320,height=240").videoInfo == nil)
        #expect(try Caps("video/x-raw,format=I420").videoInfo == nil)
        #expect(try Caps("audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved").videoInfo == nil)
    }
}
