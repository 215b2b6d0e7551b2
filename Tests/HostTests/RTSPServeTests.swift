import Host
import Testing

/// `rtspserve` nodes become appsinks before planning; their properties are checked then.
@Suite struct RTSPServeTests {
    @Test func rewritesToAnAppsinkWithDefaults() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! x264enc ! rtph264pay ! rtspserve")
        let (out, serves) = try RTSPServe.extract(from: parsed)
        #expect(
            out.render()
                == "videotestsrc ! x264enc ! rtph264pay ! appsink name=vf_rtsp0 sync=false async=false emit-signals=false"
                + " enable-last-sample=false max-buffers=64 drop=true"
        )
        #expect(serves == [RTSPServe(appSink: "vf_rtsp0", port: 8554, path: "/live", bind: "127.0.0.1")])
        #expect(serves[0].url == "rtsp://127.0.0.1:8554/live")
        #expect(serves[0].isLoopback)
    }

    @Test func takesPortPathBindAndName() throws {
        let parsed = try ParsedDescription.parse(
            "videotestsrc ! x264enc ! tee name=t ! rtph264pay ! rtspserve name=out port=9000 path=/a/b bind=::1"
                + " t. ! queue ! rtph264pay ! rtspserve port=9001 bind=0.0.0.0 anonymous=true")
        let (out, serves) = try RTSPServe.extract(from: parsed)
        #expect(serves.map(\.appSink) == ["out", "vf_rtsp1"])
        #expect(serves.map(\.url) == ["rtsp://[::1]:9000/a/b", "rtsp://0.0.0.0:9001/live"])
        #expect(serves.map(\.isLoopback) == [true, false])
        #expect(!out.render().contains("rtspserve"))
    }

    @Test func refusesBadProperties() {
        let cases: [(String, String)] = [
            ("rtspserve path=live", "rtspserve: path 'live' must start with '/': expected e.g. path=/live"),
            ("rtspserve path=\"/a b\"", "rtspserve: path '/a b' has a space"),
            // Properties are parsed as a stage's are (PropertySpec), with the same messages.
            ("rtspserve port=0", "rtspserve: bad value '0' for property 'port': expected integer 1 - 65535"),
            ("rtspserve port=65536", "rtspserve: bad value '65536' for property 'port': expected integer 1 - 65535"),
            ("rtspserve bind=localhost", "rtspserve: bind 'localhost' is not an IP address"),
            ("rtspserve location=/x", "rtspserve: no property 'location'; properties are: name, port, path, bind, auth-file, auth, anonymous"),
            ("rtspserve ! fakesink", "rtspserve is a sink: nothing can follow it (found 'fakesink' after it)"),
            ("rtspserve port=9000 t. ! queue ! rtspserve port=9000 path=/b", "rtspserve: port 9000 is used by two rtspserve elements"),
        ]
        for (tail, expected) in cases {
            let description = "videotestsrc ! x264enc ! tee name=t ! rtph264pay ! " + tail
            #expect {
                _ = try RTSPServe.extract(from: try ParsedDescription.parse(description))
            } throws: { error in
                guard let e = error as? HostError else { return false }
                #expect(e.kind == .usage)
                #expect(e.message.contains(expected), "\(e.message)")
                return e.message.contains(expected)
            }
        }
    }

    @Test func leavesDescriptionsWithoutItAlone() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! grid ! fakesink")
        let (out, serves) = try RTSPServe.extract(from: parsed)
        #expect(out == parsed)
        #expect(serves.isEmpty)
    }
}
