import Foundation
import Host
import Stages

/// The checks every request of a control server passes before any route (`ControlRouter` of `launch --http`, the
/// pipelines router of `serve`): the token (header, the page's cookie, or the page's first `?token=`), and without a
/// token only this machine's names as `Host` (DNS rebinding); an `Origin` must be the server's own.
struct ControlGuard: Sendable {
    let address: ControlAddress
    /// The server's own origins (`http://127.0.0.1:PORT`, `http://localhost:PORT`).
    let origins: Set<String>
    /// The `Host` headers answered without a token (the origins without the scheme).
    var hosts: Set<String> { Set(origins.map { String($0.dropFirst("http://".count)) }) }

    /// The refusal (401, 403) of a request that fails a check, nil when it passes.
    func refusal(_ request: ControlRequest) -> ControlResponse? {
        let cookieToken = ControlRouter.cookie("viewfinder-token", in: request.headers["Cookie"] ?? "")
        if let token = address.token {
            let given = request.headers["Authorization"] ?? ""
            // A browser cannot add the header to <img>/EventSource requests: the page's own cookie (set by
            // `/?token=T`, SameSite=Strict) or that first `?token=` counts too.
            let fromQuery = request.path == "/" ? request.query["token"] : nil
            guard ControlRouter.same(given, "Bearer \(token)") || cookieToken.map({ ControlRouter.same($0, token) }) == true
                || fromQuery.map({ ControlRouter.same($0, token) }) == true
            else {
                return ControlRouter.error(
                    .unauthorized, "missing or wrong 'Authorization: Bearer TOKEN' header",
                    headers: ["WWW-Authenticate": "Bearer"])
            }
        } else if let host = request.headers["Host"], !hosts.contains(host) {
            // Without a token only this machine's names are answered: a page on another name resolving here
            // (DNS rebinding) gets nothing.
            return ControlRouter.error(
                .forbidden, "host '\(Echo.value(host))' refused: expected \(hosts.sorted().joined(separator: " or "))", field: "Host")
        }
        if let o = request.headers["Origin"], !origins.contains(o),
            !(address.token != nil && request.headers["Host"].map({ "http://\($0)" }) == o)
        {
            return ControlRouter.error(
                .forbidden, "origin '\(o)' refused: expected none or \(origins.sorted().joined(separator: " or "))", field: "Origin")
        }
        return nil
    }
}
