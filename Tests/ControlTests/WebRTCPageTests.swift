import Foundation
import TestTags
import Testing

/// The control page's preview over WebRTC in a real browser (headless Chromium through chromedriver) against the
/// real binary: the `<video>` decodes frames (`getStats` inbound-rtp framesDecoded), at the same rate with and
/// without a second peer that never answers; its picture shows compose's grid lines (pixels of the video frame
/// drawn to a canvas); the screenshot is kept in out/artifacts.
/// One browser for the three tests; Chromium gathers 127.0.0.1 with the flag (it leaves loopback out by default).
@Suite(
    .serialized, .tags(.live, .process, .browser, .network), .tier, .sharedBrowser(flags: ["--allow-loopback-in-peer-connection"])
) struct WebRTCPageTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// The browser's decoded frames so far (0 before the peer exists), through the page's `window.vfPeer`.
    static let framesDecoded = """
        const done = arguments[0];
        if (!window.vfPeer) { done(0); return; }
        window.vfPeer.getStats().then((stats) => {
          let n = 0;
          stats.forEach((r) => { if (r.type === "inbound-rtp" && r.kind === "video") n = r.framesDecoded || 0; });
          done(n);
        }, () => done(0));
        """

    /// The video's current frame drawn to a canvas at its own size: the mean luma on compose's left thirds line
    /// (x = w/3, the brightest of 5 columns around it per row, rows between the horizontal thirds lines) and of
    /// the background beside it (x = w/6 .. w/4, same rows).
    static let linePixels = """
        const v = document.getElementById("preview-video");
        if (!v.videoWidth) return null;
        const c = document.createElement("canvas");
        c.width = v.videoWidth; c.height = v.videoHeight;
        const g = c.getContext("2d");
        g.drawImage(v, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        const luma = (x, y) => { const i = 4 * (y * c.width + x); return 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]; };
        const x3 = Math.round(c.width / 3);
        let line = 0, bg = 0, rows = 0, bgCount = 0;
        for (let y = Math.round(c.height * 0.4); y < Math.round(c.height * 0.6); y++) {
          let best = 0;
          for (let x = x3 - 2; x <= x3 + 2; x++) best = Math.max(best, luma(x, y));
          line += best; rows++;
          for (let x = Math.round(c.width / 6); x < Math.round(c.width / 4); x++) { bg += luma(x, y); bgCount++; }
        }
        return { width: c.width, height: c.height, line: line / rows, background: bg / bgCount };
        """

    @Test(.enabled(if: WebDriver.available)) func thePreviewPlaysOverWebRTCWithTheOverlay() throws {
        let vf = try ControlTools.launch(
            "videotestsrc is-live=true pattern=black ! video/x-raw,width=320,height=240,framerate=30/1 "
                + "! compose analysis-width=160 warmup=0 grid=thirds ! webrtcserve")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        // Loopback only: the suite's browser has the flag.
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")
        let started = Date()
        func decoded() throws -> Int {
            try browser.command("POST", "/execute/async", ["script": Self.framesDecoded, "args": []]) as? Int ?? 0
        }
        func encoded() throws -> Int {
            (try ControlTools.curl("GET", vf.base + "/api/state").json["webrtc"] as? [String: Any])?["framesEncoded"] as? Int ?? 0
        }
        var count = 0
        while Date().timeIntervalSince(started) < 20, count <= 60 {
            usleep(250_000)
            count = try decoded()
        }
        print(
            "webrtc: \(count) frames decoded by Chromium \(String(format: "%.1f", Date().timeIntervalSince(started))) s after opening the page"
        )
        #expect(count > 60, "framesDecoded \(count): \(String(describing: try? browser.run("return window.vfWebRTCError")))")

        // One stuck peer vs none, 2 s windows: a second peer takes its offer and never answers; the browser's
        // decoded frames and the encoder's output go on at the same rate (within the noise of a shared machine).
        let (d0, e0) = (try decoded(), try encoded())
        usleep(2_000_000)
        let (d1, e1) = (try decoded(), try encoded())
        let stuck = try WebSocketClient(port: vf.port, path: "/api/webrtc")
        #expect((try stuck.receiveJSON())?["type"] as? String == "offer")
        let (d2, e2) = (try decoded(), try encoded())
        usleep(2_000_000)
        let (d3, e3) = (try decoded(), try encoded())
        print("webrtc: 2 s without a stuck peer: \(d1 - d0) decoded, \(e1 - e0) encoded; with one: \(d3 - d2) decoded, \(e3 - e2) encoded")
        #expect(d3 - d2 >= (d1 - d0) / 2 && d3 - d2 > 5, "the stuck peer slowed the browser: \(d1 - d0) -> \(d3 - d2) frames")
        #expect(e3 - e2 >= (e1 - e0) / 2, "the stuck peer slowed the encoder: \(e1 - e0) -> \(e3 - e2) frames")
        #expect(try browser.wait(5, until: "return window.vfWebRTC === 'playing'"), "the video did not play")
        #expect(
            try browser.run("return document.getElementById('preview').hidden && !document.getElementById('preview-video').hidden") as? Bool
                == true)

        // The picture is compose's output: its thirds line is bright on the black test picture.
        let pixels = try browser.run(Self.linePixels) as? [String: Any] ?? [:]
        let line = pixels["line"] as? Double ?? 0, background = pixels["background"] as? Double ?? 255
        print(
            "webrtc: video \(pixels["width"] ?? "?")x\(pixels["height"] ?? "?"), luma on the thirds line \(line), beside it \(background)")
        #expect(pixels["width"] as? Int == 320 && pixels["height"] as? Int == 240, "\(pixels)")
        #expect(line > background + 60, "no grid line in the video: \(pixels)")
        #expect(background < 40, "\(pixels)")
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "webrtc-page.png") > 5, "blank screenshot")

        #expect(try browser.command("POST", "/execute/async", ["script": Self.receivedCodec, "args": []]) as? String == "video/VP8")
        // What this Chromium can receive (H.264 is written down in the docs from this line).
        let codecs =
            try browser.run(
                "return RTCRtpReceiver.getCapabilities('video').codecs.map((c) => c.mimeType).filter((m, i, a) => a.indexOf(m) === i)")
            as? [String] ?? []
        print("webrtc: Chromium receives \(codecs.joined(separator: ", "))")
        #expect(codecs.contains("video/VP8"))

        // One encode for both peers; the stuck one is still connected.
        let state = try ControlTools.curl("GET", vf.base + "/api/state").json["webrtc"] as? [String: Any] ?? [:]
        #expect(state["peers"] as? Int == 2, "\(state)")
        #expect((state["framesEncoded"] as? Int ?? 0) >= count, "\(state)")
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 15) == 0, "\(vf.stderr)")
        #expect(vf.stderr.contains(" encoded\n"), "\(vf.stderr)")
    }

    /// The received codec's MIME type (`video/H264`), "" before there is one.
    static let receivedCodec = """
        const done = arguments[0];
        if (!window.vfPeer) { done(""); return; }
        window.vfPeer.getStats().then((stats) => {
          let mime = "";
          stats.forEach((r) => { if (r.type === "inbound-rtp" && r.kind === "video" && r.codecId) mime = (stats.get(r.codecId) || {}).mimeType || ""; });
          done(mime);
        }, () => done(""));
        """

    @Test(.enabled(if: WebDriver.available)) func h264PlaysInDebiansChromiumToo() throws {
        let vf = try ControlTools.launch(
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 "
                + "! compose analysis-width=160 warmup=0 ! webrtcserve codec=h264")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")
        let started = Date()
        var count = 0
        while Date().timeIntervalSince(started) < 20, count <= 60 {
            usleep(250_000)
            count = try browser.command("POST", "/execute/async", ["script": Self.framesDecoded, "args": []]) as? Int ?? 0
        }
        #expect(count > 60, "framesDecoded \(count): \(String(describing: try? browser.run("return window.vfWebRTCError")))")
        #expect(try browser.command("POST", "/execute/async", ["script": Self.receivedCodec, "args": []]) as? String == "video/H264")
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 15) == 0, "\(vf.stderr)")
    }

    @Test(.enabled(if: WebDriver.available)) func withoutWebrtcserveThePageKeepsMJPEG() throws {
        let vf = try ControlTools.launch(
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 warmup=0 ! fakesink"
        )
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")
        #expect(try browser.wait(until: "return document.getElementById('preview').naturalWidth === 320"), "no MJPEG preview")
        usleep(500_000)
        #expect(
            try browser.run("return [window.vfPeer === undefined, document.getElementById('preview-video').hidden]") as? [Bool] == [
                true, true,
            ])
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 15) == 0, "\(vf.stderr)")
    }
}
