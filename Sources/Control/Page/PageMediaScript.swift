extension ControlPage {
    /// The part of `/app.js` for clips (`/api/clips`) and recordings (`/api/recordings`), played in the page's one
    /// `<video>` (`#player`). Each section stays hidden while its API answers 404 (no `clips` element, no recorder), so
    /// a session without them shows neither. Clips are listed again on each `viewfinder/clip` saved event
    /// (`onClipEvent`, called by the event stream's handler); recordings every 10 s while the tab is shown, redrawn only
    /// when the answer changed. File URLs come from the API with the mount in them, as the gallery's do; downloads and
    /// playing are GETs, deleting is DELETE (after a confirm). Part of `script`, after the helpers, `base` and `at`.
    static let mediaScript = #"""
        // ---- clips and recordings, played in one <video>
        const player = $("player");
        let playing = null;
        const SVG = "http://www.w3.org/2000/svg";
        const fmtSeconds = (s) => typeof s === "number" && isFinite(s) ? `${s.toFixed(1)} s` : "–";
        function fmtBytes(n) {
          if (typeof n !== "number" || !isFinite(n)) return "–";
          if (n < 1024) return `${n} B`;
          if (n < 1048576) return `${(n / 1024).toFixed(0)} KB`;
          if (n < 1073741824) return `${(n / 1048576).toFixed(1)} MB`;
          return `${(n / 1073741824).toFixed(2)} GB`;
        }
        // A local time (with the date when not today) in a <time> carrying the ISO text.
        function timeOf(iso) {
          const d = new Date(iso);
          const text = isNaN(d) ? (iso || "–") : (d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString());
          const t = el("time", { text, title: iso || "" });
          if (iso) t.dateTime = iso;
          return t;
        }
        const pathOf = (file) => String(file).split("/").map(encodeURIComponent).join("/");

        function play(url, title, download) {
          playing = url;
          $("player-title").textContent = title;
          $("player-download").href = download;
          $("player-box").hidden = false;
          player.src = url;
          player.play().catch(() => { /* not allowed to start by itself: the controls are there */ });
          $("player-box").scrollIntoView({ block: "nearest" });
        }
        function stopPlaying(url) {
          if (playing === null || (url !== undefined && playing !== url)) return;
          playing = null;
          player.pause();
          player.removeAttribute("src");
          player.load();
          $("player-box").hidden = true;
        }
        $("player-close").addEventListener("click", () => stopPlaying());
        player.addEventListener("error", () => {
          if (playing !== null) say(`cannot play ${$("player-title").textContent}: ${(player.error && player.error.message) || "media error"}`, true);
        });

        // The score of each second of a clip as bars (no analysis in a second: a low grey bar).
        function timelineStrip(scores) {
          const svg = document.createElementNS(SVG, "svg");
          svg.setAttribute("class", "timeline");
          svg.setAttribute("viewBox", `0 0 ${Math.max(scores.length, 1)} 1`);
          svg.setAttribute("preserveAspectRatio", "none");
          svg.setAttribute("role", "img");
          const known = scores.filter((s) => typeof s === "number");
          svg.setAttribute("aria-label", known.length ? `score per second, best ${Math.max(...known).toFixed(2)}` : "no score: nothing analysed");
          scores.forEach((s, i) => {
            const scored = typeof s === "number";
            const h = scored ? Math.max(0.06, Math.min(1, s)) : 0.06;
            const r = document.createElementNS(SVG, "rect");
            r.setAttribute("x", i + 0.08); r.setAttribute("width", 0.84);
            r.setAttribute("y", 1 - h); r.setAttribute("height", h);
            r.setAttribute("class", !scored ? "none" : s >= 0.7 ? "hi" : s >= 0.4 ? "mid" : "lo");
            const t = document.createElementNS(SVG, "title");
            t.textContent = `${i} s: ${scored ? s.toFixed(2) : "no analysis"}`;
            r.append(t);
            svg.append(r);
          });
          return svg;
        }

        // A photo of the gallery: scrolled to and marked a moment.
        function showPhoto(stage, id) {
          const t = document.getElementById(`photo-${stage}-${id}`);
          if (!t) { say(`photo #${id} of ${stage} is not in the gallery (deleted?)`, true); return; }
          t.scrollIntoView({ behavior: "smooth", block: "center" });
          t.classList.add("flash");
          t.focus({ preventScroll: true });
          setTimeout(() => t.classList.remove("flash"), 1600);
        }

        function clipTile(c) {
          const download = c.url + "?download=1";
          const shown = c.thumbUrl ? el("img", { src: c.thumbUrl, alt: c.file, loading: "lazy" }) : el("i", { class: "nothumb", text: c.file });
          const playButton = el("button", { class: "thumb play", type: "button", title: `Play ${c.file}` },
                                shown, el("span", { class: "duration", text: `▶ ${fmtSeconds(c.duration)}` }));
          playButton.addEventListener("click", () => play(c.url, `clip #${c.id} · ${c.file}`, download));
          const more = (c.triggers || []).length > 1 ? ` +${c.triggers.length - 1}` : "";
          const facts = el("div", { class: "clip-facts" },
                           el("span", { class: "trigger", text: c.trigger + more }), " · ", timeOf(c.startTime), ` · #${c.id}`);
          if (c.photo) {
            const a = el("a", { class: "photo-link", href: `#photo-${c.photo.stage}-${c.photo.id}`, text: `photo #${c.photo.id}` });
            a.addEventListener("click", (e) => { e.preventDefault(); showPhoto(c.photo.stage, c.photo.id); });
            facts.append(" · ", a);
          }
          const remove = el("button", { class: "danger delete", type: "button", text: "Delete" });
          remove.addEventListener("click", () => deleteClip(c));
          const tile = el("div", { class: "clip", "data-element": c.element, "data-id": c.id },
                          playButton, timelineStrip(c.timeline || []), facts);
          if ((c.notes || []).length) tile.append(el("div", { class: "notes", text: c.notes.join("; ") }));
          tile.append(el("div", { class: "media-actions" },
                         el("a", { class: "download", href: download, download: c.file, text: `Download (${fmtBytes(c.bytes)})` }), remove));
          return tile;
        }

        async function loadClips() {
          let data;
          try { data = await api("GET", at("/api/clips")); } catch (e) { if (e.status === 404) $("clips").hidden = true; return; }
          $("clips").hidden = false;
          const list = data.clips || [];
          $("clip-count").textContent = list.length ? `(${list.length})` : "";
          $("recorders").textContent = (data.recorders || []).map((r) => `${r.element}: ${r.pre} s before, ${r.post} s after`).join(" · ");
          const box = $("clip-list");
          box.replaceChildren(...list.map(clipTile));
          if (!list.length) box.append(el("p", { class: "dim", text: "No clips yet: Clip now, a photo or the composition trigger makes one." }));
        }
        async function deleteClip(c) {
          if (!confirm(`Delete clip #${c.id} (${c.file})?`)) return;
          try {
            await api("DELETE", at(`/api/clips/${encodeURIComponent(c.element)}/${c.id}`));
            say(`deleted clip #${c.id}`);
            stopPlaying(c.url);
          } catch (e) { say(e.message, true); }
          loadClips();
        }
        $("clip-now").addEventListener("click", async () => {
          try {
            const r = await api("POST", at("/api/clips"), {});
            say((r.clips || []).map((c) => c.state === "waiting" ? `${c.element}: waiting (${c.reason})`
                                                                 : `${c.element}: clip #${c.id} ${c.state}`).join("; "));
          } catch (e) { say(e.message, true); }
        });
        function onClipEvent(f) {
          if (f.event === "saved") { say(`clip saved: ${f.file} (${fmtSeconds(f.duration)})`); loadClips(); }
          else if (f.event === "error") say(`clip error: ${f.reason}`, true);
        }

        // ---- recordings: segments newest first
        let recordingsSeen = null;
        let recordingsAbsent = false;
        function segmentRow(r, s) {
          const cells = el("div", { class: "media-actions" });
          const playButton = el("button", { type: "button", class: "play", text: "Play" });
          playButton.addEventListener("click", () => play(s.url, `${r.name} · ${s.file}`, s.url));
          const remove = el("button", { type: "button", class: "danger delete", text: "Delete", disabled: !!s.open,
                                        title: s.open ? "being written: it can go once the next segment begins" : `Delete ${s.file}` });
          remove.addEventListener("click", () => deleteSegment(r, s));
          cells.append(playButton, el("a", { class: "download", href: s.url, download: s.file.split("/").pop(), text: "Download" }), remove);
          const start = el("td", {}, timeOf(s.start));
          if (s.open) start.append(" ", el("span", { class: "badge capturing", text: "recording" }));
          return el("tr", { "data-file": s.file, class: s.open ? "open" : "" },
                    start, el("td", { text: fmtSeconds(s.duration) }), el("td", { text: fmtBytes(s.bytes) }), el("td", {}, cells));
        }
        function keeps(r) {
          const parts = [];
          if (typeof r.maxAge === "number" && r.maxAge > 0) parts.push(r.maxAge >= 3600 ? `${+(r.maxAge / 3600).toFixed(1)} h` : `${r.maxAge} s`);
          else if (typeof r.maxAge === "string" && r.maxAge) parts.push(r.maxAge);
          if (typeof r.maxSize === "number" && r.maxSize > 0) parts.push(fmtBytes(r.maxSize));
          else if (typeof r.maxSize === "string" && r.maxSize) parts.push(r.maxSize);
          return parts.length ? ` · keeps at most ${parts.join(" / ")}` : "";
        }
        async function loadRecordings() {
          let data;
          try { data = await api("GET", at("/api/recordings")); } catch (e) {
            if (e.status === 404) { recordingsAbsent = true; $("recordings").hidden = true; }
            return;
          }
          $("recordings").hidden = false;
          const text = JSON.stringify(data);
          if (text === recordingsSeen) return;
          recordingsSeen = text;
          const list = data.recordings || [];
          const box = $("recording-list");
          box.replaceChildren();
          let count = 0;
          for (const r of list) {
            const segments = (r.segments || []).slice().sort((a, b) =>
              (Date.parse(b.start) || 0) - (Date.parse(a.start) || 0) || String(b.file).localeCompare(String(a.file)));
            count += segments.length;
            const table = el("table", { class: "segments" },
                             el("thead", {}, el("tr", {}, ...["Start", "Length", "Size", ""].map((h) => el("th", { text: h })))),
                             el("tbody", {}, ...segments.map((s) => segmentRow(r, s))));
            box.append(el("div", { class: "recording", "data-name": r.name },
                          el("h3", {}, r.name + " ",
                             el("span", { class: "dim", text: `${r.directory || ""} · ${fmtBytes(r.totalBytes)}${keeps(r)}` })),
                          segments.length ? table : el("p", { class: "dim", text: "No segments yet." })));
          }
          $("recording-count").textContent = count ? `(${count})` : "";
          if (!list.length) box.append(el("p", { class: "dim", text: "No recorder in this pipeline." }));
        }
        async function deleteSegment(r, s) {
          if (s.open || !confirm(`Delete ${s.file} of ${r.name}?`)) return;
          try {
            await api("DELETE", at(`/api/recordings/${encodeURIComponent(r.name)}/${pathOf(s.file)}`));
            say(`deleted ${s.file}`);
            stopPlaying(s.url);
          } catch (e) { say(e.message, true); }
          recordingsSeen = null;
          loadRecordings();
        }
        setInterval(() => { if (!recordingsAbsent && !document.hidden) loadRecordings(); }, 10000);
        """#
}
