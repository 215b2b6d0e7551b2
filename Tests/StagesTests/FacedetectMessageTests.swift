import FrameAnalysis
import Testing

@testable import Stages

@Suite struct FacedetectMessageTests {
    @Test func parsesFacesAndTimestamp() throws {
        // As gstreamer1.0-opencv 1.22 posts it (copied from `gst-launch-1.0 -m` on basketball1).
        let text =
            #"facedetect, timestamp=(guint64)40000000, stream-time=(guint64)40000000, running-time=(guint64)40000000, duration=(guint64)40000000, faces=(structure){ "face\,\ x\=\(uint\)72\,\ y\=\(uint\)91\,\ width\=\(uint\)39\,\ height\=\(uint\)39\;", "face\,\ x\=\(uint\)300\,\ y\=\(uint\)10\,\ width\=\(uint\)50\,\ height\=\(uint\)60\;" };"#
        let m = try #require(FacedetectMessage.parse(text))
        #expect(m.timestamp == 40_000_000)
        #expect(m.faces == [Box(x: 72, y: 91, width: 39, height: 39), Box(x: 300, y: 10, width: 50, height: 60)])
    }

    @Test func noFacesAndOtherMessages() {
        #expect(FacedetectMessage.parse("facedetect, timestamp=(guint64)5, faces=(structure){ };")?.faces == [])
        #expect(FacedetectMessage.parse("viewfinder/snapshot, shot=(int)1;") == nil)
    }
}
