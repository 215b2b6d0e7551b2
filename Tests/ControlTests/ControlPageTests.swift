import Foundation
import TestSupport
import Testing

/// The control page in a real browser (headless Chromium through chromedriver) against the real binary:
/// the preview moves, the rule select steers the running pipeline, the shutter adds a photo to the
/// gallery; screenshots are kept in out/artifacts and must not be blank.
@Suite(.serialized, .tags(.live, .process, .browser, .network), .tier, .sharedBrowser()) struct ControlPageTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// Where screenshots are kept (the package's out/artifacts).
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("out/artifacts")

    /// Saves `png` as an artefact; the spread of its luma (0 for a blank picture).
    static func keep(_ png: Data, as name: String) throws -> Double {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let file = artifacts.appendingPathComponent(name)
        try png.write(to: file)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", file.path, "-vf", "scale=160:-2", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let bytes = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        p.waitUntilExit()
        guard !bytes.isEmpty else { return 0 }
        let mean = bytes.reduce(0.0) { $0 + Double($1) } / Double(bytes.count)
        return (bytes.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(bytes.count)).squareRoot()
    }

    /// The preview image's current picture, read back through a canvas (same origin, so not tainted).
    static let previewPixels = """
        const img = document.getElementById("preview");
        if (!img.naturalWidth) return "";
        const c = document.createElement("canvas");
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        c.getContext("2d").drawImage(img, 0, 0);
        return c.toDataURL("image/png");
        """

    @Test(.enabled(if: WebDriver.available)) func thePageShowsSteersAndShoots() throws {
        let dir = Tools.tempDir().appendingPathComponent("photos")
        let vf = try ControlTools.launch(
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 warmup=0 ! capture directory=\(dir.path) auto=false ! fakesink"
        )
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let browser = try WebDriver.shared()
        try browser.open(vf.base + "/")

        // The preview plays: two reads a moment apart differ (the ball moves).
        #expect(try browser.wait(until: "return document.getElementById('preview').naturalWidth === 320"), "no preview frame")
        let first = try browser.run(Self.previewPixels) as? String ?? ""
        usleep(600_000)
        let second = try browser.run(Self.previewPixels) as? String ?? ""
        #expect(first.count > 1000 && second.count > 1000)
        #expect(first != second, "the preview did not change")

        // Controls come from the property specs; picking a rule changes the running pipeline's events.
        #expect(try browser.wait(until: "return !!document.querySelector('select[data-stage=compose0][data-prop=rule]')"))
        #expect(try browser.run("return document.querySelectorAll('#controls select, #controls input').length") as? Int ?? 0 >= 8)
        try browser.click("select[data-prop=rule]")
        try browser.click("select[data-prop=rule] option[value=thirds]")
        #expect(try browser.wait(until: "return document.getElementById('message').textContent === 'compose0.rule = thirds'"))
        let events = try ControlTools.events(vf.base + "/api/events", seconds: 1.5)
        let rules = events.filter { $0["name"] as? String == "viewfinder/composition" }.compactMap { ($0["fields"] as? [String: Any])?["rule"] as? String }
        #expect(!rules.isEmpty && rules.allSatisfy { $0 == "thirds" }, "\(rules)")
        #expect(try browser.wait(until: "return document.getElementById('rule').textContent === 'thirds'"), "the readout did not follow the events")
        let stages = try ControlTools.curl("GET", vf.base + "/api/stages")
        #expect(ControlServerTests.property(stages.json, "compose0", "rule")["value"] as? String == "thirds")

        // Typed values both ways: the checkbox shows the JSON boolean it read and sends one; a Double slider
        // and an Integer slider send JSON numbers, which the API takes (it refuses "5" for a number).
        let overlay = "input[type=checkbox][data-stage=compose0][data-prop=overlay]"
        #expect(
            try browser.run("return document.querySelector('\(overlay)').checked") as? Bool == true, "overlay=true not shown as checked")
        try browser.click(overlay)
        #expect(try browser.wait(until: "return document.getElementById('message').textContent === 'compose0.overlay = false'"))
        func setSlider(_ stage: String, _ prop: String, _ value: String) throws {
            try browser.run(
                """
                const i = document.querySelector('input[type=range][data-stage=\(stage)][data-prop=\(prop)]');
                i.value = '\(value)'; i.dispatchEvent(new Event('change')); return true
                """)
        }
        try setSlider("compose0", "analysis-fps", "5")
        #expect(try browser.wait(until: "return document.getElementById('message').textContent === 'compose0.analysis-fps = 5'"))
        try setSlider("capture0", "max-shots", "7")
        #expect(try browser.wait(until: "return document.getElementById('message').textContent === 'capture0.max-shots = 7'"))
        #expect(try browser.run("return document.getElementById('message').className") as? String == "", "the page shows an error")
        let typed = try ControlTools.curl("GET", vf.base + "/api/stages").json
        #expect(ControlServerTests.property(typed, "compose0", "overlay")["value"] as? Bool == false)
        #expect(ControlTools.jsonKind(ControlServerTests.property(typed, "compose0", "overlay")["value"]) == "boolean")
        #expect(ControlServerTests.property(typed, "compose0", "analysis-fps")["value"] as? Double == 5)
        #expect(ControlServerTests.property(typed, "capture0", "max-shots")["value"] as? Int == 7)
        #expect(ControlTools.jsonKind(ControlServerTests.property(typed, "capture0", "max-shots")["value"]) == "number")

        // The shutter adds a photo, which shows in the gallery.
        try browser.click("#shutter")
        #expect(try browser.wait(20, until: "return document.querySelectorAll('#gallery .thumb').length === 1"), "no photo in the gallery")
        #expect(ControlServerTests.records(dir).count == 1)
        #expect(try browser.wait(until: "const i = document.querySelector('#gallery .thumb img'); return !!i && i.naturalWidth > 0"))
        #expect(try Self.keep(try browser.screenshot(), as: "control-page.png") > 10, "blank screenshot")
        // No clips element, no recorder: their sections stay hidden (their APIs answer 404).
        #expect(try browser.run("return document.getElementById('clips').hidden && document.getElementById('recordings').hidden") as? Bool == true)

        // The photo view: composition, subject box over the photo.
        try browser.click("#gallery .thumb")
        #expect(try browser.wait(until: "return document.getElementById('photo-view').open && document.getElementById('photo-img').naturalWidth > 0"))
        let facts = try browser.run("return document.getElementById('photo-facts').textContent") as? String ?? ""
        #expect(facts.contains("Rule") && facts.contains("thirds"), "\(facts)")
        #expect(try Self.keep(try browser.screenshot(), as: "control-photo.png") > 10)
        try browser.run("document.getElementById('photo-view').close(); return true")

        // Phone width: nothing wider than the screen.
        try browser.resize(width: 390, height: 844)
        usleep(300_000)
        let widths = try browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
        #expect(widths.count == 2 && widths[0] <= widths[1], "page wider than a phone: \(widths)")
        #expect(try Self.keep(try browser.screenshot(), as: "control-page-phone.png") > 10)

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop").status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
