import Foundation
import GStreamerKit
import Testing

@testable import Host

/// `Session.hlsOutputs`: the HLS sinks of a built session with their playlist and segment directory, absolute.
@Suite struct HLSOutputTests {
    @Test func relativeLocationsAreMadeAbsoluteAgainstTheWorkingDirectory() throws {
        let s = try Session(
            description: "videotestsrc num-buffers=1 ! x264enc ! h264parse ! hlssink2 name=live location=s%05d.ts playlist-location=p.m3u8")
        let cwd = FileManager.default.currentDirectoryPath
        #expect(s.hlsOutputs == [HLSOutput(name: "live", factory: "hlssink2", playlist: "\(cwd)/p.m3u8", segmentDirectory: cwd)])
    }

    @Test func everyHLSSinkInEverySegmentByNameAndNoOtherSink() throws {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-hls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(d)/a", withIntermediateDirectories: true)
        let s = try Session(
            description: "videotestsrc num-buffers=1 ! passthrough ! tee name=t "
                + "t. ! queue ! x264enc ! h264parse ! hlssink2 name=b location=\(d)/b%05d.ts playlist-location=\(d)/b.m3u8 "
                + "t. ! queue ! x264enc ! mpegtsmux ! hlssink name=a location=\(d)/a/a%05d.ts playlist-location=\(d)/a.m3u8 "
                + "t. ! queue ! fakesink")
        #expect(s.hlsOutputs.map(\.name) == ["a", "b"])
        #expect(s.hlsOutputs.map(\.factory) == ["hlssink", "hlssink2"])
        #expect(s.hlsOutputs.map(\.segmentDirectory) == ["\(d)/a", d])
        #expect(s.hlsOutputs.map(\.playlist) == ["\(d)/a.m3u8", "\(d)/b.m3u8"])
    }

    @Test func noHLSSinkNoOutputs() throws {
        #expect(try Session(description: "videotestsrc num-buffers=1 ! fakesink").hlsOutputs.isEmpty)
    }
}
