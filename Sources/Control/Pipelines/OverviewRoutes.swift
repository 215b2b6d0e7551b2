import Foundation

/// The camera overview of `viewfinder serve` (`OverviewPage`): `GET /` (and `/index.html`), `/overview.js`,
/// `/overview.css`, with the control page's headers (CSP `default-src 'self'`, `no-cache`, `nosniff`). Everything on it
/// comes from the pipelines API; each tile links to its camera's own page at `/api/pipelines/NAME/`. A process route
/// of `PipelinesRouter` (`extra`), so it is answered after the guard's checks; `/?token=T` sets the token cookie as
/// the single-camera page does (path `/`, so every camera's page and API has it too).
public struct OverviewRoutes: ControlRoutes {
    let address: ControlAddress

    public init(address: ControlAddress) { self.address = address }

    public func answer(_ request: ControlRequest) async -> ControlResponse? {
        let file: ControlPage.File
        switch request.path {
        case "/", "/index.html": file = .html
        case "/overview.js": file = .script
        case "/overview.css": file = .style
        default: return nil
        }
        return ControlRouter.only(.GET, request) {
            var page = ControlRouter.served(OverviewPage.text(file), contentType: file.contentType)
            if file == .html, let token = address.token, let t = request.query["token"], ControlRouter.same(t, token) {
                page.headers["Set-Cookie"] = "viewfinder-token=\(token); Path=/; HttpOnly; SameSite=Strict"
            }
            return page
        }
    }
}
