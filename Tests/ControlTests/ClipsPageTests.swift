import Foundation
import TestSupport
import Testing

/// The page's clips and recordings in headless Chromium against the real binary: a clip asked over the API shows as a
/// tile saying what clips.json says, plays in the page's `<video>` and seeks to its middle (range requests), and goes
/// (file, thumbnail and record) when deleted from the page. The recordings section follows its contract against a
/// stubbed `/api/recordings` (hidden on 404; segments newest first; the open one cannot be deleted).
@Suite(.serialized, .tags(.live, .process, .browser, .network), .tier, .sharedBrowser()) struct ClipsPageTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// The recordings API as the page expects it (`GET /api/recordings`), answered in the page by a stand-in for
    /// `fetch` (arguments[0]: the answer's JSON); every request to `/api/recordings...` is kept in `window.vfRequests`.
    static let stubRecordings = """
        const answer = arguments[0];
        const real = window.fetch.bind(window);
        window.vfRequests = [];
        window.fetch = (url, init = {}) => {
          const u = new URL(url, location.href);
          if (!u.pathname.startsWith("/api/recordings")) return real(url, init);
          const method = init.method || "GET";
          window.vfRequests.push(method + " " + u.pathname);
          const json = (status, o) => Promise.resolve(new Response(JSON.stringify(o), { status, headers: { "Content-Type": "application/json" } }));
          return method === "DELETE" ? json(200, { deleted: u.pathname }) : json(200, answer);
        };
        recordingsAbsent = false; recordingsSeen = null;
        loadRecordings();
        return true;
        """

    @Test(.enabled(if: WebDriver.available)) func clipsPlaySeekAndGo() throws {
        let dir = Tools.tempDir().appendingPathComponent("clips")
        let (vf, clip) = try ClipsRoutesTests.launchWithClip(dir)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let record = try #require(ClipsRoutesTests.records(dir).first)
        let id = try #require(record["id"] as? Int)
        let file = try #require(record["file"] as? String)
        let duration = try #require(record["duration"] as? Double)
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")

        // The tile says what clips.json says.
        let tile = ".clip[data-element=vf_clips0][data-id='\(id)']"
        #expect(try browser.wait(until: "return !document.getElementById('clips').hidden && !!document.querySelector(\"\(tile)\")"), "no clip tile")
        #expect(try browser.wait(until: "const i = document.querySelector(\"\(tile) img\"); return !!i && i.naturalWidth > 0"), "no thumbnail")
        let shown =
            try browser.run(
                """
                const t = document.querySelector(arguments[0]);
                return { duration: t.querySelector(".duration").textContent, expected: `▶ ${arguments[1].toFixed(1)} s`,
                         trigger: t.querySelector(".trigger").textContent, time: t.querySelector("time").dateTime,
                         bars: t.querySelectorAll(".timeline rect").length, download: t.querySelector("a.download").getAttribute("href") }
                """, [tile, duration]) as? [String: Any] ?? [:]
        #expect(shown["duration"] as? String == shown["expected"] as? String, "\(shown)")
        #expect(shown["trigger"] as? String == record["trigger"] as? String, "\(shown)")
        #expect(shown["time"] as? String == record["startTime"] as? String, "\(shown)")
        #expect(shown["bars"] as? Int == (record["timeline"] as? [Any])?.count, "\(shown)")
        #expect(shown["download"] as? String == "\(clip["url"] as? String ?? "")?download=1")
        #expect(try browser.run("return document.getElementById('recordings').hidden") as? Bool == true, "recordings shown without /api/recordings")
        _ = try browser.run("document.getElementById('clips').scrollIntoView(); return true")
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "clips-page.png") > 10, "blank screenshot")

        // Played in the page's player, paused and sought to the middle.
        try browser.click("\(tile) button.play")
        let loaded = try browser.wait(
            20, until: "const v = document.getElementById('player'); return v.readyState >= 1 && isFinite(v.duration) && v.duration > 0")
        let player = try browser.run(
            """
            const v = document.getElementById('player');
            return [v.src, v.networkState, v.error && v.error.message, document.getElementById('message').textContent]
            """)
        #expect(loaded, "the clip does not load: \(player ?? "")")
        let length =
            try browser.run(
                """
                const v = document.getElementById("player");
                v.pause();
                window.vfSeeked = false;
                v.addEventListener("seeked", () => { window.vfSeeked = true; }, { once: true });
                v.currentTime = v.duration / 2;
                return v.duration;
                """) as? Double ?? 0
        #expect(abs(length - duration) < 0.5, "player \(length) s, clips.json \(duration) s")
        #expect(try browser.wait(20, until: "return window.vfSeeked === true && document.getElementById('player').readyState >= 2"), "no seek")
        let after = try browser.run("const v = document.getElementById('player'); return [v.currentTime, v.readyState]") as? [Double] ?? []
        #expect(after.count == 2 && abs(after[0] - length / 2) < 0.5 && after[1] >= 2, "\(after) after a seek to \(length / 2)")
        #expect(try browser.run("return document.getElementById('message').className") as? String == "", "the page shows an error")

        // Recordings in the shape GET /api/recordings answers (RecordingsRoutesTests checks that shape on a real recorder;
        // here a stand-in for fetch gives fixed ones): newest first, played in the same player, deleted by DELETE, the
        // open segment not deletable.
        let url = clip["url"] as? String ?? ""
        let segments: [[String: Any]] = [
            ["file": "seg_00001.mp4", "url": url, "bytes": 2_500_000, "start": "2026-01-01T10:00:00.000Z", "duration": 60.0, "open": false],
            ["file": "seg_00003.mp4", "url": "/recordings/cam/seg_00003.mp4", "bytes": 500, "start": "2026-01-01T10:02:00.000Z", "open": true],
            [
                "file": "seg_00002.mp4", "url": "/recordings/cam/seg_00002.mp4", "bytes": 2_400_000, "start": "2026-01-01T10:01:00.000Z",
                "duration": 60.0, "open": false,
            ],
        ]
        let answer: [String: Any] = [
            "recordings": [["name": "cam", "directory": "/rec", "maxAge": 86400, "maxSize": 1 << 30, "totalBytes": 4_900_500, "segments": segments]]
        ]
        _ = try browser.run(Self.stubRecordings, [answer])
        #expect(
            try browser.wait(
                until: "return !document.getElementById('recordings').hidden && document.querySelectorAll('.segments tbody tr').length === 3"))
        let rows = try browser.run("return [...document.querySelectorAll('.segments tbody tr')].map((r) => r.dataset.file)") as? [String] ?? []
        #expect(rows == ["seg_00003.mp4", "seg_00002.mp4", "seg_00001.mp4"])
        #expect(try browser.run("return document.querySelector('tr[data-file=\"seg_00003.mp4\"] button.delete').disabled") as? Bool == true)
        #expect(try browser.run("return document.querySelector('tr[data-file=\"seg_00002.mp4\"] button.delete').disabled") as? Bool == false)
        try browser.click("tr[data-file=\"seg_00001.mp4\"] button.play")
        #expect(
            try browser.wait(20, until: "const v = document.getElementById('player'); return v.src.endsWith('\(url)') && v.readyState >= 1"),
            "the segment does not play")
        try browser.click("tr[data-file=\"seg_00002.mp4\"] button.delete")
        try browser.acceptAlert()
        #expect(try browser.wait(until: "return window.vfRequests.includes('DELETE /api/recordings/cam/seg_00002.mp4')"), "no DELETE")
        _ = try browser.run("document.getElementById('recordings').scrollIntoView(); return true")
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "clips-player.png") > 10, "blank screenshot")

        // Phone width: nothing wider than the screen.
        try browser.resize(width: 390, height: 844)
        usleep(300_000)
        let widths = try browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
        #expect(widths.count == 2 && widths[0] <= widths[1], "page wider than a phone: \(widths)")
        try browser.resize(width: 1280, height: 1000)

        // Deleted from the page: the tile, the file, the thumbnail and the record go.
        try browser.click("\(tile) button.play")
        try browser.click("\(tile) button.delete")
        try browser.acceptAlert()
        #expect(try browser.wait(20, until: "return !document.querySelector(\"\(tile)\")"), "the tile is still shown")
        #expect(try browser.wait(until: "return document.getElementById('player-box').hidden"), "the deleted clip is still in the player")
        #expect(ClipsRoutesTests.records(dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path))
        let thumb = "thumbs/" + file.replacingOccurrences(of: ".mp4", with: ".jpg")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(thumb).path))
        #expect((try ControlTools.curl("GET", vf.base + "/api/clips").json["clips"] as? [Any])?.isEmpty == true)

        // Clip now: the page asks, and lists the clip when its saved event comes (it does not poll /api/clips).
        try browser.click("#clip-now")
        #expect(try browser.wait(until: "return document.getElementById('message').textContent.includes('clip #\(id + 1) opened')"))
        #expect(try browser.wait(20, until: "return document.querySelectorAll('.clip').length === 1"), "the saved clip was not listed")
        let message = try browser.run("return document.getElementById('message').textContent") as? String ?? ""
        #expect(message.hasPrefix("clip saved: \(String(format: "CLIP_%05d.mp4", id + 1))"), "\(message)")
        #expect(ClipsRoutesTests.records(dir).first?["trigger"] as? String == "api")

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop").status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
