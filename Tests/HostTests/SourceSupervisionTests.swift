import Foundation
import GStreamerKit
import Testing

@testable import Host

/// Which source segments `--reconnect` watches, decided when the session is built (nothing runs here).
@Suite struct SourceSupervisionTests {
    static func keepers(_ description: String, _ mode: SessionOptions.ReconnectMode) throws -> [String] {
        var o = SessionOptions()
        o.reconnect = mode
        return try Session(description: description, options: o).keepers.map(\.element)
    }

    @Test func networkSourcesAreWatchedByDefault() throws {
        #expect(
            try Self.keepers("srtsrc uri=srt://127.0.0.1:9?mode=caller name=srt ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! fakesink", .auto)
                == ["srt"])
        #expect(try Self.keepers("uridecodebin uri=rtsp://127.0.0.1:9/x name=cam ! videoconvert ! compose ! fakesink", .auto) == ["cam"])
        #expect(
            try Self.keepers("rtspsrc location=rtsp://127.0.0.1:9/x name=rtsp ! rtph264depay ! avdec_h264 ! videoconvert ! grid ! fakesink", .auto)
                == ["rtsp"])
        // Two chains, two sources: each watched on its own.
        #expect(
            try Self.keepers(
                "udpsrc port=5000 caps=application/x-rtp name=udp ! rtpjitterbuffer ! rtph264depay ! avdec_h264 ! videoconvert ! grid ! fakesink "
                    + "srtsrc uri=srt://127.0.0.1:9 name=srt ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! fakesink", .auto).sorted()
                == ["srt", "udp"])
    }

    @Test func localAndLiveTestSourcesAreNotWatchedByDefault() throws {
        #expect(try Self.keepers("videotestsrc is-live=true ! compose ! fakesink", .auto) == [])
        #expect(try Self.keepers("videotestsrc num-buffers=5 ! compose ! fakesink", .auto) == [])
        #expect(try Self.keepers("uridecodebin uri=file:///nonexistent.mp4 ! videoconvert ! compose ! fakesink", .auto) == [])
        // A network source without a stage runs as gst-launch would: nothing to keep running downstream.
        #expect(try Self.keepers("srtsrc uri=srt://127.0.0.1:9 ! fakesink", .auto) == [])
        #expect(try Self.keepers("srtsrc uri=srt://127.0.0.1:9 ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! fakesink", .off) == [])
    }

    @Test func onWatchesAnyLiveSource() throws {
        #expect(try Self.keepers("videotestsrc is-live=true name=test ! compose ! fakesink", .on) == ["test"])
        #expect(try Self.keepers("v4l2src device=/dev/video9 name=cam ! videoconvert ! compose ! fakesink", .on) == ["cam"])
    }

    @Test func onWithoutALiveSourceOrAStageIsAUsageError() throws {
        #expect {
            _ = try Self.keepers("videotestsrc num-buffers=5 ! compose ! fakesink", .on)
        } throws: { error in
            guard let e = error as? HostError else { return false }
            return e.kind == .usage && e.message.contains("--reconnect: no live source before the first stage")
        }
        #expect {
            _ = try Self.keepers("videotestsrc is-live=true ! fakesink", .on)
        } throws: { error in
            guard let e = error as? HostError else { return false }
            return e.kind == .usage && e.message.contains("--reconnect: the description has no Viewfinder stage")
        }
    }
}
