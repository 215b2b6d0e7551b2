import Foundation
import TestSupport
import Testing

/// `serve`'s camera overview in a real browser (headless Chromium through chromedriver) against the real binary: a
/// tile per pipeline with its state, a decoded picture and the composition score; a pipeline added through the form
/// plays and is written to the directory; a description that does not parse shows the error with its token marked;
/// the remove button deletes a pipeline and its file; a camera's own page works under its mount. Screenshots are kept
/// in out/artifacts and must not be blank.
@Suite(.serialized, .tags(.live, .process, .browser, .network), .tier, .sharedBrowser()) struct OverviewPageTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    static let description =
        "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 warmup=0 ! fakesink"

    /// The spread of the luma of `name`'s tile picture, read back through a canvas (same origin: not tainted); -1
    /// while it has none.
    static func tileSpread(_ name: String) -> String {
        """
        const img = document.querySelector('.tile[data-name=\(name)] .shot img');
        if (!img || img.hidden || !img.naturalWidth) return -1;
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let n = 0, sum = 0, sq = 0;
        for (let i = 0; i < d.length; i += 4) { const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]; n++; sum += y; sq += y * y; }
        const mean = sum / n;
        return Math.sqrt(sq / n - mean * mean);
        """
    }

    /// Sets a form field as typing would (value, then an input event).
    static func type(_ css: String, _ text: String, in browser: WebDriver) throws {
        _ = try browser.run(
            "const f = document.querySelector(arguments[0]); f.value = arguments[1]; f.dispatchEvent(new Event('input')); return true",
            [css, text])
    }

    @Test(.enabled(if: WebDriver.available)) func theOverviewShowsAddsAndRemovesCameras() throws {
        let dir = Tools.tempDir()
        let photos = Tools.tempDir().appendingPathComponent("photos")
        // door has a capture stage: its gallery is proved under the mount.
        let door = Self.description.replacingOccurrences(of: "! fakesink", with: "! capture directory=\(photos.path) auto=false ! fakesink")
        try door.write(to: dir.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        try Self.description.write(to: dir.appendingPathComponent("yard.pipeline"), atomically: true, encoding: .utf8)
        let port = ControlTools.freePort()
        let vf = try ControlTools.Running(["serve", dir.path, "--http", "127.0.0.1:\(port)"], port: port)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "not listening: \(vf.stderr)")
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")

        // Two tiles, in name order, both playing, each with its own link.
        #expect(
            try browser.wait(
                until: "const t = document.querySelectorAll('.tile[data-state=playing]'); return t.length === 2"),
            "no two playing tiles: \(vf.stderr)")
        let names = try browser.run("return [...document.querySelectorAll('.tile .name')].map((a) => a.textContent)") as? [String]
        #expect(names == ["door", "yard"])
        let badges = try browser.run("return [...document.querySelectorAll('.tile .badge.state')].map((b) => b.textContent)") as? [String]
        #expect(badges == ["playing", "playing"])
        #expect(
            try browser.run("return document.querySelector('.tile[data-name=yard] a.shot').getAttribute('href')") as? String
                == "/api/pipelines/yard/")

        // Pictures: decoded previews with real content (the ball on its background), fps and the composition score.
        for name in ["door", "yard"] {
            #expect(try browser.wait(until: "return (function () { \(Self.tileSpread(name)) })() > 10"), "\(name): no picture")
        }
        #expect(try browser.run("return document.querySelector('.tile[data-name=door] .shot img').naturalWidth") as? Int == 320)
        let figures = "const t = document.querySelector('.tile[data-name=door]'); "
        #expect(try browser.wait(until: figures + "return /^\\d+\\.\\d fps$/.test(t.querySelector('.fps').textContent)"))
        #expect(try browser.wait(until: figures + "return /^score \\d\\.\\d\\d/.test(t.querySelector('.score').textContent)"))
        let listed = try ControlTools.curl("GET", vf.base + "/api/pipelines").json["pipelines"] as? [[String: Any]] ?? []
        let score = listed.first { $0["name"] as? String == "door" }?["score"] as? Double ?? -1
        #expect((0...1).contains(score), "\(listed)")

        // Add a third through the form: its tile appears and plays, its file is in the directory.
        try Self.type("#add-name", "gate", in: browser)
        try Self.type("#add-description", Self.description, in: browser)
        try browser.click("#add-submit")
        #expect(try browser.wait(20, until: "return !!document.querySelector('.tile[data-name=gate][data-state=playing]')"), "\(vf.stderr)")
        let saved = try? String(contentsOf: dir.appendingPathComponent("gate.pipeline"), encoding: .utf8)
        #expect(saved?.contains(Self.description) == true, "\(saved ?? "no gate.pipeline")")
        #expect(try browser.wait(until: "return (function () { \(Self.tileSpread("gate")) })() > 10"), "gate: no picture")
        #expect(try browser.run("return document.getElementById('add-error').hidden") as? Bool == true)

        // A description that does not parse: the error, its token marked in the description; nothing written.
        let bad = "videotestsrc ! video/x-raw,width=320 ! ! fakesink"
        try Self.type("#add-name", "bad", in: browser)
        try Self.type("#add-description", bad, in: browser)
        try browser.click("#add-submit")
        #expect(try browser.wait(until: "return !document.getElementById('add-error').hidden"))
        let errorText = try browser.run("return document.getElementById('add-error-text').textContent") as? String ?? ""
        let marked = try browser.run("return (document.querySelector('#add-error-where mark') || {}).textContent || ''") as? String ?? ""
        let answer = try ControlTools.curl("POST", vf.base + "/api/pipelines", body: #"{"name": "bad", "description": "\#(bad)"}"#)
        #expect(answer.status == 400)
        let token = answer.json["token"] as? String ?? "?"
        #expect(errorText == answer.json["error"] as? String, "\(errorText) vs \(answer.body)")
        #expect(!marked.isEmpty && marked == token && errorText.contains(token), "marked '\(marked)', token '\(token)': \(errorText)")
        let whole = try browser.run("return document.getElementById('add-error-where').textContent") as? String
        #expect(whole == bad)
        let before = try browser.run("return document.querySelector('#add-error-where mark').previousSibling.textContent") as? String
        let position = answer.json["position"] as? Int
        #expect(before?.count == position, "mark after '\(before ?? "")', position \(position.map(String.init) ?? "none")")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad.pipeline").path))
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "overview-page.png") > 10, "blank screenshot")

        // A name in use: the 409's error as the API words it, no mark.
        try Self.type("#add-name", "door", in: browser)
        try Self.type("#add-description", Self.description, in: browser)
        try browser.click("#add-submit")
        #expect(try browser.wait(until: "return /'door' exists/.test(document.getElementById('add-error-text').textContent)"))
        #expect(try browser.run("return document.getElementById('add-error-where').hidden") as? Bool == true)

        // Stop and start gate with its buttons: the state follows, the picture gives way to the state and comes back.
        try browser.click(".tile[data-name=gate] button[data-action=stop]")
        #expect(try browser.wait(20, until: "return !!document.querySelector('.tile[data-name=gate][data-state=stopped]')"), "\(vf.stderr)")
        #expect(try browser.run("return document.querySelector('.tile[data-name=gate] .shot img').hidden") as? Bool == true)
        let startButton = "return document.querySelector('.tile[data-name=gate] button[data-action=start]').disabled"
        #expect(try browser.run(startButton) as? Bool == false)
        #expect(try ControlTools.curl("GET", vf.base + "/api/pipelines/gate").json["state"] as? String == "stopped")
        try browser.click(".tile[data-name=gate] button[data-action=start]")
        #expect(try browser.wait(20, until: "return !!document.querySelector('.tile[data-name=gate][data-state=playing]')"), "\(vf.stderr)")
        #expect(try browser.wait(until: "return (function () { \(Self.tileSpread("gate")) })() > 10"), "gate: no picture after start")

        // Switch source: the answer of PATCH .../source shown on the tile as the API words it (a refusal here: no such element).
        let source = #"{"description": "nosuchsource_xyz"}"#
        let refused = try ControlTools.curl("PATCH", vf.base + "/api/pipelines/gate/source", body: source)
        #expect(refused.status >= 400, "\(refused.body)")
        _ = try browser.run("document.querySelector('.tile[data-name=gate] details.source').open = true; return true")
        // Typed and sent with Enter (the form's implicit submission): a click lands where the button was when the
        // driver measured it, and a tile that grows in between (its figures, its picture) moves it.
        try browser.keys(".tile[data-name=gate] .switch input", "nosuchsource_xyz\n")
        #expect(try browser.wait(until: "return document.querySelector('.tile[data-name=gate] .note').className === 'note error'"))
        let note = try browser.run("return document.querySelector('.tile[data-name=gate] .note').textContent") as? String ?? ""
        let said = refused.json["error"] as? String ?? "?"
        #expect(note.hasPrefix(said), "\(note) vs \(refused.body)")

        // Remove yard through its button (the confirm accepted): the tile and the file go.
        try browser.click(".tile[data-name=yard] button[data-action=remove]")
        try browser.acceptAlert()
        #expect(try browser.wait(20, until: "return !document.querySelector('.tile[data-name=yard]')"), "yard still shown")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("yard.pipeline").path))
        #expect(try browser.wait(until: "return document.querySelectorAll('.tile').length === 2"))
        #expect(try browser.run("return document.getElementById('message').textContent") as? String == "removed yard")

        // Phone width: nothing wider than the screen.
        try browser.resize(width: 390, height: 844)
        usleep(300_000)
        let widths = try browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
        #expect(widths.count == 2 && widths[0] <= widths[1], "overview wider than a phone: \(widths)")
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "overview-page-phone.png") > 10)
        try browser.resize(width: browser.width, height: browser.height)

        // The camera's own page under its mount: its controls (from its stages), its preview, its events, the way back.
        try browser.click(".tile[data-name=door] a.name")
        #expect(try browser.wait(until: "return location.pathname === '/api/pipelines/door/'"))
        #expect(try browser.wait(until: "return !!document.querySelector('select[data-stage=compose0][data-prop=rule]')"), "no controls")
        #expect(try browser.wait(until: "return document.getElementById('preview').naturalWidth === 320"), "no preview")
        #expect(try browser.run("return document.getElementById('back').hidden") as? Bool == false)
        #expect(try browser.run("return document.getElementById('camera-name').textContent") as? String == "· door")
        try browser.click("select[data-prop=rule]")
        try browser.click("select[data-prop=rule] option[value=thirds]")
        #expect(try browser.wait(until: "return document.getElementById('message').textContent === 'compose0.rule = thirds'"))
        #expect(try browser.wait(until: "return document.getElementById('rule').textContent === 'thirds'"), "no events under the mount")
        #expect(try browser.wait(until: "return document.getElementById('phase').textContent === 'running'"))
        let stages = try ControlTools.curl("GET", vf.base + "/api/pipelines/door/api/stages")
        #expect(ControlServerTests.property(stages.json, "compose0", "rule")["value"] as? String == "thirds")
        let gate = try ControlTools.curl("GET", vf.base + "/api/pipelines/gate/api/stages")
        #expect(ControlServerTests.property(gate.json, "compose0", "rule")["value"] as? String != "thirds", "another camera changed")
        // The shutter and the gallery under the mount: the photo's thumbnail is served from door's prefix.
        try browser.click("#shutter")
        #expect(try browser.wait(20, until: "const i = document.querySelector('#gallery .thumb img'); return !!i && i.naturalWidth > 0"))
        let thumb = try browser.run("return document.querySelector('#gallery .thumb img').getAttribute('src')") as? String ?? ""
        #expect(thumb.hasPrefix("/api/pipelines/door/photos/"), "\(thumb)")
        #expect(ControlServerTests.records(photos).count == 1)
        #expect(try ControlPageTests.keep(try browser.screenshot(), as: "overview-camera-page.png") > 10)
        try browser.click("#back")
        #expect(try browser.wait(until: "return location.pathname === '/' && document.querySelectorAll('.tile').length === 2"))

        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
