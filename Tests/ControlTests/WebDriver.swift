import Foundation
import Testing

/// Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (Debian's chromium and
/// chromium-driver), with curl as the HTTP client: the page is loaded, clicked and read by a real
/// browser. One per browser suite (`@Suite(.sharedBrowser(...))`), not one per test: its tests take it with
/// `WebDriver.shared()`. (Unchecked Sendable: a suite's tests use it one at a time, `.serialized`.)
final class WebDriver: @unchecked Sendable {
    let process = Process()
    let port: UInt16
    let width: Int, height: Int
    private(set) var session = ""
    var base: String { "http://127.0.0.1:\(port)" }

    /// The browser of the running suite (`SharedBrowser`).
    @TaskLocal static var current: WebDriver?

    /// The suite's browser, at its starting window size; a browser of its own when the suite has none.
    static func shared() throws -> WebDriver {
        guard let browser = current else { return try WebDriver() }
        try browser.resize(width: browser.width, height: browser.height)
        return browser
    }

    /// Whether chromium and chromedriver are installed (launch/setup installs them).
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    /// Starts chromedriver and a headless browser of `width` x `height`, with `flags` added to Chromium's.
    init(width: Int = 1280, height: Int = 1000, flags: [String] = []) throws {
        self.width = width; self.height = height
        port = ControlTools.freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        process.arguments = ["--port=\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, (try? ControlTools.curl("GET", base + "/status"))?.status != 200 { usleep(100_000) }
        let args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)"] + flags
        let caps: [String: Any] = ["capabilities": ["alwaysMatch": ["goog:chromeOptions": ["binary": "/usr/bin/chromium", "args": args]]]]
        let answer = try ControlTools.curl("POST", base + "/session", body: Self.text(caps), maxTime: 60)
        session = ((answer.json["value"] as? [String: Any])?["sessionId"] as? String) ?? ""
        #expect(!session.isEmpty, "chromedriver: \(answer.body)")
    }

    deinit { quit() }

    /// Ends the browser session and chromedriver (once).
    func quit() {
        guard !ended else { return }
        ended = true
        if !session.isEmpty { _ = try? ControlTools.curl("DELETE", base + "/session/\(session)") }
        // chromedriver ends on its /shutdown command (it ignores SIGTERM); SIGKILL if it does not.
        _ = try? ControlTools.curl("GET", base + "/shutdown", maxTime: 3)
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private var ended = false

    static func text(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A WebDriver command; its `value` (an issue is recorded when it fails).
    @discardableResult func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        let a = try quietly(method, path, body)
        if let failure = a.failure { Issue.record("webdriver \(method) \(path): \(failure)") }
        return a.value
    }

    /// A WebDriver command; its `value`, or what the driver said when it failed (nothing recorded).
    private func quietly(_ method: String, _ path: String, _ body: [String: Any]?) throws -> (value: Any?, failure: String?) {
        let a = try ControlTools.curl(method, base + "/session/\(session)" + path, body: body.map(Self.text), maxTime: 30)
        return (a.json["value"], a.status == 200 ? nil : "\(a.status) \(a.body.prefix(300))")
    }

    /// Opens `url`.
    func open(_ url: String) throws { try command("POST", "/url", ["url": url]) }

    /// Runs `script` (a function body) in the page; what it returned.
    func run(_ script: String, _ args: [Any] = []) throws -> Any? { try command("POST", "/execute/sync", ["script": script, "args": args]) }

    /// Waits until `script` returns true (or `timeout` seconds pass); whether it did. A script that throws (an
    /// element not there yet) is polled again like one that returns false; when time runs out, one issue says what
    /// the page is and the script's last error, instead of one per poll.
    func wait(_ timeout: Double = 15, until script: String) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var failure: String?
        while Date() < deadline {
            let a = try quietly("POST", "/execute/sync", ["script": script, "args": []])
            if a.value as? Bool == true { return true }
            failure = a.failure
            usleep(100_000)
        }
        if let failure {
            let page = (try? quietly("POST", "/execute/sync", ["script": "return location.href", "args": []]))?.value as? String
            Issue.record("waited \(timeout) s on \(page ?? "?"): the script's last answer: \(failure)")
        }
        return false
    }

    /// Types `text` into the element matching `css` as a keyboard would (WebDriver element send keys); "\n" is Enter.
    func keys(_ css: String, _ text: String) throws {
        let found = try command("POST", "/element", ["using": "css selector", "value": css]) as? [String: Any]
        guard let id = found?.values.first as? String else { Issue.record("no element \(css)"); return }
        try command("POST", "/element/\(id)/value", ["text": text])
    }

    /// Clicks the element matching `css` as a user would (WebDriver element click).
    func click(_ css: String) throws {
        let found = try command("POST", "/element", ["using": "css selector", "value": css]) as? [String: Any]
        guard let id = found?.values.first as? String else { Issue.record("no element \(css)"); return }
        try command("POST", "/element/\(id)/click", [:])
    }

    /// Accepts the open user prompt (`confirm`, `alert`) as a user's OK would.
    func acceptAlert() throws { try command("POST", "/alert/accept", [:]) }

    /// Sets the window size.
    func resize(width: Int, height: Int) throws { try command("POST", "/window/rect", ["width": width, "height": height]) }

    /// A PNG screenshot of the viewport.
    func screenshot() throws -> Data {
        let value = try command("GET", "/screenshot") as? String ?? ""
        return Data(base64Encoded: value) ?? Data()
    }
}

/// One Chromium and one chromedriver around a whole suite: started before its first test, quit after its last; the
/// suite's tests reach it through `WebDriver.shared()`. Nothing is started when they are not installed (the tests
/// are `.enabled(if: WebDriver.available)`).
struct SharedBrowser: SuiteTrait, TestScoping {
    var width = 1280, height = 1000
    var flags: [String] = []
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard WebDriver.available else { return try await function() }
        let browser = try WebDriver(width: width, height: height, flags: flags)
        defer { browser.quit() }
        try await WebDriver.$current.withValue(browser) { try await function() }
    }
}

extension Trait where Self == SharedBrowser {
    /// One browser for the suite's tests, with `flags` added to Chromium's.
    static func sharedBrowser(flags: [String] = []) -> Self { SharedBrowser(flags: flags) }
}
