extension ControlPage {
    /// `/`: the layout; everything dynamic comes from app.js. Its own files and the preview are named relatively, so
    /// the same text works at `/` (`launch --http`) and at `/api/pipelines/NAME/` (`serve`).
    static let html = #"""
        \#(PageCommon.head(title: "Viewfinder", stylesheet: "app.css"))
        </head>
        <body>
        <header>
          <a id="back" href="/" hidden>← All cameras</a>
          <h1>Viewfinder <span id="camera-name"></span></h1>
          <span id="phase" class="badge">connecting</span>
          <span id="readiness" class="badge">–</span>
          <span id="stats" class="stats"></span>
        </header>
        <main>
          <section id="live">
            <div class="frame">
              <img id="preview" alt="live preview" src="api/preview.mjpeg">
              <video id="preview-video" autoplay muted playsinline hidden></video>
              <p id="no-preview" hidden>No preview: the pipeline has no Viewfinder stage.</p>
            </div>
            <div class="readout">
              <div><span class="label">Score</span> <strong id="score">–</strong></div>
              <div><span class="label">Rule</span> <strong id="rule">–</strong></div>
              <div><span class="label">Subject</span> <strong id="engine">–</strong></div>
              <div class="advice"><span class="label">Advice</span> <span id="advice">–</span></div>
            </div>
            <div class="shutter">
              <button id="shutter" type="button" title="Take a photo now">Shutter</button>
              <button id="timer3" type="button" data-timer="3">Timer 3 s</button>
              <button id="timer10" type="button" data-timer="10">Timer 10 s</button>
              <span id="countdown"></span>
            </div>
            <p id="message" role="status"></p>
          </section>
          <section id="settings">
            <h2>Controls</h2>
            <div id="controls"></div>
          </section>
          <section id="photos">
            <h2>Gallery <span id="photo-count"></span></h2>
            <div id="gallery"></div>
          </section>
          <section id="player-box" hidden>
            <h2>Playing <span id="player-title"></span></h2>
            <video id="player" controls preload="metadata" playsinline></video>
            <div class="media-actions">
              <a id="player-download" download>Download</a>
              <button id="player-close" type="button">Close</button>
            </div>
          </section>
          <section id="clips" hidden>
            <h2>Clips <span id="clip-count"></span></h2>
            <div class="media-actions">
              <button id="clip-now" type="button" title="Save the last seconds and the next ones as a clip">Clip now</button>
              <span id="recorders" class="dim"></span>
            </div>
            <div id="clip-list"></div>
          </section>
          <section id="recordings" hidden>
            <h2>Recordings <span id="recording-count"></span></h2>
            <div id="recording-list"></div>
          </section>
        </main>
        <dialog id="photo-view">
          <form method="dialog"><button class="close" value="close" aria-label="Close">×</button></form>
          <div class="photo-frame"><img id="photo-img" alt=""><div id="photo-box"></div></div>
          <dl id="photo-facts"></dl>
          <div class="photo-actions">
            <a id="photo-card" download>Share card</a>
            <button id="photo-delete" type="button" class="danger">Delete</button>
          </div>
          <details><summary>EXIF</summary><table id="photo-exif"></table></details>
        </dialog>
        <script src="app.js"></script>
        </body>
        </html>
        """#
}
