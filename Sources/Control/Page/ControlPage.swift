/// The control page served at `/` (HTML, CSS and JS as text: no build step, nothing fetched from
/// elsewhere, one binary). The controls are generated from `/api/stages`, so a new stage or property
/// gets controls without a change here.
enum ControlPage {
    /// One file of the page.
    enum File {
        case html, script, style

        var contentType: String {
            switch self {
            case .html: "text/html; charset=utf-8"
            case .script: "text/javascript; charset=utf-8"
            case .style: "text/css; charset=utf-8"
            }
        }

        var text: String {
            switch self {
            case .html: ControlPage.html
            case .script: ControlPage.script
            case .style: ControlPage.style
            }
        }
    }
}
