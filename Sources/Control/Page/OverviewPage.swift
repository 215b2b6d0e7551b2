/// The camera overview of `viewfinder serve`, served at `/` by `OverviewRoutes` (HTML, CSS and JS as text, like
/// `ControlPage`: no build step, nothing fetched from elsewhere). A tile per pipeline of `GET /api/pipelines` (its
/// picture from `/api/pipelines/NAME/api/preview.jpg`, state, fps, composition score), kept current by the
/// `viewfinder/pipeline` events of `/api/events` and a poll of the list; add, remove, start, stop, restart and
/// switch-source go through the same API. Each tile leads to the camera's own page, `/api/pipelines/NAME/`.
enum OverviewPage {
    /// The text of one of its files (the kinds and content types are the control page's).
    static func text(_ file: ControlPage.File) -> String {
        switch file {
        case .html: html
        case .script: script
        case .style: style
        }
    }

    /// `/`: the layout; the tiles come from overview.js.
    static let html = #"""
        \#(PageCommon.head(title: "Cameras · Viewfinder", stylesheet: "/overview.css"))
        </head>
        <body>
        <header>
          <h1>Viewfinder</h1>
          <span id="summary" class="badge">connecting</span>
          <span id="link" class="stats"></span>
        </header>
        <main>
          <section id="cameras" aria-label="Cameras"></section>
          <p id="empty" hidden>No pipelines: add one below.</p>
          <section id="add">
            <h2>Add a pipeline</h2>
            <form id="add-form" autocomplete="off">
              <label for="add-name">Name</label>
              <input id="add-name" name="name" placeholder="door" spellcheck="false">
              <label for="add-description">Description</label>
              <textarea id="add-description" name="description" rows="2" spellcheck="false"
                placeholder="v4l2src ! videoconvert ! compose ! capture ! fakesink"></textarea>
              <span></span>
              <div class="row">
                <label><input id="add-start" type="checkbox" checked> start now</label>
                <button id="add-submit" type="submit">Add</button>
              </div>
            </form>
            <div id="add-error" class="problem" role="alert" hidden>
              <p id="add-error-text"></p>
              <pre id="add-error-where"></pre>
            </div>
          </section>
          <p id="message" role="status"></p>
        </main>
        <script src="/overview.js"></script>
        </body>
        </html>
        """#
}
