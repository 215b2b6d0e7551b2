import Host
import Testing

/// `webrtcserve` nodes become appsinks (raw video) before planning; their properties are checked then.
@Suite struct WebRTCServeTests {
    @Test func rewritesToAnAppsinkWithDefaults() throws {
        let parsed = try ParsedDescription.parse("videotestsrc is-live=true ! compose ! webrtcserve")
        let (out, serve) = try WebRTCServe.extract(from: parsed)
        #expect(
            out.render()
                == "videotestsrc is-live=true ! compose ! appsink name=vf_webrtc0 sync=false async=false emit-signals=false"
                + " enable-last-sample=false max-buffers=2 drop=true"
        )
        #expect(serve == WebRTCServe(appSink: "vf_webrtc0", stunServer: nil, codec: .vp8))
    }

    @Test func takesNameStunServerAndCodec() throws {
        let parsed = try ParsedDescription.parse(
            "videotestsrc ! compose ! webrtcserve name=web stun-server=stun://127.0.0.1:3478 codec=H264")
        let (out, serve) = try WebRTCServe.extract(from: parsed)
        #expect(serve == WebRTCServe(appSink: "web", stunServer: "stun://127.0.0.1:3478", codec: .h264))
        #expect(out.render().contains("appsink name=web "))
        #expect(!out.render().contains("webrtcserve"))
    }

    @Test func withoutOneThereIsNone() throws {
        let (out, serve) = try WebRTCServe.extract(from: try ParsedDescription.parse("videotestsrc ! compose ! fakesink"))
        #expect(serve == nil)
        #expect(out.render() == "videotestsrc ! compose ! fakesink")
    }

    @Test func refusesBadProperties() {
        let cases: [(String, String)] = [
            (
                "videotestsrc ! webrtcserve stun-server=stun.example:3478",
                "webrtcserve: stun-server 'stun.example:3478' is not stun://HOST:PORT"
            ),
            ("videotestsrc ! webrtcserve stun-server=stun://h:0", "webrtcserve: stun-server 'stun://h:0' is not stun://HOST:PORT"),
            ("videotestsrc ! webrtcserve name=\"\"", "webrtcserve: empty name=: expected a name"),
            // Properties are parsed as a stage's are (PropertySpec), with the same messages.
            ("videotestsrc ! webrtcserve codec=av1", "webrtcserve: bad value 'av1' for property 'codec': expected enum vp8, h264"),
            ("videotestsrc ! webrtcserve location=x", "webrtcserve: no property 'location'; properties are: name, codec, stun-server"),
            ("videotestsrc ! webrtcserve ! fakesink", "webrtcserve is a sink: nothing can follow it (found 'fakesink' after it)"),
            ("webrtcserve", "webrtcserve has nothing before it: expected raw video"),
            ("videotestsrc ! tee name=t ! webrtcserve t. ! queue ! webrtcserve", "webrtcserve: only one per description"),
        ]
        for (description, expected) in cases {
            #expect {
                _ = try WebRTCServe.extract(from: try ParsedDescription.parse(description))
            } throws: { error in
                guard let e = error as? HostError else { return false }
                #expect(e.kind == .usage)
                #expect(e.message.contains(expected), "\(e.message)")
                return e.message.contains(expected)
            }
        }
    }
}
