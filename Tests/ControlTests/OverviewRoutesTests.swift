import Control
import Foundation
import Testing

/// `serve`'s overview routes without a server: its three files with the pages' headers, GET only, nothing else
/// claimed, the token cookie only for the right `?token=`.
struct OverviewRoutesTests {
    static func get(_ target: String, _ routes: OverviewRoutes, method: ControlMethod = .GET) async -> ControlResponse? {
        await routes.answer(ControlRequest(method: method, target: target))
    }

    static func text(_ r: ControlResponse?) -> String {
        guard case .bytes(let d)? = r?.body else { return "" }
        return String(decoding: d, as: UTF8.self)
    }

    let open: OverviewRoutes

    init() throws { open = OverviewRoutes(address: try ControlAddress(parsing: "127.0.0.1:8080", token: nil)) }

    @Test func theThreeFilesWithThePagesHeaders() async throws {
        let cases: [(String, String, String)] = [
            ("/", "text/html; charset=utf-8", #"<script src="/overview.js"></script>"#),
            ("/index.html", "text/html; charset=utf-8", #"<link rel="stylesheet" href="/overview.css">"#),
            ("/overview.js", "text/javascript; charset=utf-8", #"new EventSource("/api/events")"#),
            ("/overview.css", "text/css; charset=utf-8", "#cameras"),
        ]
        for (target, type, needle) in cases {
            let r = await Self.get(target, open)
            #expect(r?.statusCode.code == 200, "\(target)")
            #expect(r?.headers["Content-Type"] == type, "\(target)")
            #expect(r?.headers["Content-Security-Policy"]?.hasPrefix("default-src 'self'; ") == true, "\(target)")
            #expect(r?.headers["X-Content-Type-Options"] == "nosniff")
            #expect(r?.headers["Set-Cookie"] == nil)
            let body = Self.text(r)
            #expect(body.contains(needle), "\(target) lacks \(needle)")
            // Nothing from elsewhere: no URL with a scheme in any of them.
            #expect(!body.contains("http://") && !body.contains("https://"), "\(target) names another origin")
        }
    }

    @Test func onlyGetAndOnlyItsPaths() async {
        let post = await Self.get("/", open, method: .POST)
        #expect(post?.statusCode.code == 405)
        #expect(post?.headers["Allow"] == "GET")
        for other in ["/app.js", "/api/pipelines", "/overview", "/index.htm"] {
            #expect(await Self.get(other, open) == nil, "\(other) answered")
        }
    }

    @Test func theTokenCookieOnlyForTheRightToken() async throws {
        let guarded = OverviewRoutes(address: try ControlAddress(parsing: "0.0.0.0:8080", token: "s3cret"))
        let right = await Self.get("/?token=s3cret", guarded)
        #expect(right?.headers["Set-Cookie"] == "viewfinder-token=s3cret; Path=/; HttpOnly; SameSite=Strict")
        #expect(await Self.get("/?token=wrong", guarded)?.headers["Set-Cookie"] == nil)
        #expect(await Self.get("/overview.js?token=s3cret", guarded)?.headers["Set-Cookie"] == nil)
    }
}
