extension OverviewPage {
    /// `/overview.js`: tiles from `GET /api/pipelines` (every 2 s, and at once on each `viewfinder/pipeline` event of
    /// `/api/events`), pictures from each playing pipeline's `preview.jpg` (one request per tile at a time, at most
    /// three at once across tiles: a browser opens six connections per server, and the events hold one), the buttons
    /// and forms over the pipelines API. Plain ES2017, no libraries, every request to this server.
    static let script = #"""
        "use strict";
        \#(PageCommon.helpers)
        const mount = (name) => `/api/pipelines/${encodeURIComponent(name)}`;



        // ---- tiles
        const tiles = new Map();   // name -> { root, parts, state }
        const busy = new Set(["starting", "stopping", "restarting"]);

        function makeTile(name) {
          const href = mount(name) + "/";
          const img = el("img", { alt: `${name}: live picture` });
          const none = el("span", { class: "none", text: "waiting for a picture" });
          const badge = el("span", { class: "badge state" });
          const fps = el("span", { class: "fps" });
          const score = el("span", { class: "score" });
          const problem = el("p", { class: "problem", hidden: true });
          const description = el("code", { class: "description" });
          const field = el("input", { type: "text", placeholder: "new source, e.g. v4l2src ! videoconvert", spellcheck: false });
          field.setAttribute("aria-label", `new source of ${name}`);
          const sw = el("form", { class: "switch" }, field, el("button", { type: "submit", text: "Switch source" }));
          const note = el("p", { class: "note" });
          const buttons = el("div", { class: "actions" });
          for (const [action, text] of [["start", "Start"], ["stop", "Stop"], ["restart", "Restart"], ["remove", "Remove"]]) {
            const b = el("button", { type: "button", text, "data-action": action });
            if (action === "remove") b.className = "danger";
            b.addEventListener("click", () => act(name, action));
            buttons.append(b);
          }
          sw.addEventListener("submit", (ev) => { ev.preventDefault(); switchSource(name, field); });
          const root = el("article", { class: "tile", "data-name": name },
            el("a", { class: "shot", href, title: `open ${name}` }, img, none),
            el("div", { class: "head" }, el("a", { class: "name", href, text: name }), badge),
            el("div", { class: "figures" }, fps, score),
            problem,
            el("details", { class: "source" }, el("summary", { text: "Source" }), description, sw),
            buttons, note);
          const tile = { root, parts: { img, none, badge, fps, score, problem, description, note, buttons }, state: "", loading: false };
          img.hidden = true;
          img.addEventListener("load", () => { none.hidden = true; img.hidden = false; });
          tiles.set(name, tile);
          return tile;
        }

        function show(tile, p) {
          const t = tile.parts;
          if (p.state) {
            tile.state = p.state;
            tile.root.dataset.state = p.state;
            t.badge.textContent = p.state;
            t.badge.className = "badge state " + p.state;
          }
          if (p.description !== undefined) t.description.textContent = p.description;
          if (typeof p.fps === "number") t.fps.textContent = `${p.fps.toFixed(1)} fps`;
          else if (p.state && p.state !== "playing") t.fps.textContent = "";
          if (typeof p.score === "number") {
            t.score.textContent = `score ${p.score.toFixed(2)}${p.rule ? " · " + p.rule : ""}`;
            t.score.dataset.score = p.score;
          }
          if (p.error !== undefined || p.state) {
            const err = p.error || "";
            const wait = typeof p.retryIn === "number" && p.state === "restarting" ? ` (again in ${p.retryIn.toFixed(1)} s)` : "";
            t.problem.textContent = err ? err + wait : "";
            t.problem.hidden = !err;
          }
          for (const b of t.buttons.querySelectorAll("button")) {
            const a = b.dataset.action;
            b.disabled = (a === "start" && (tile.state === "playing" || busy.has(tile.state)))
              || (a === "stop" && !(tile.state === "playing" || tile.state === "restarting" || tile.state === "starting"));
          }
          if (tile.state !== "playing") { t.img.hidden = true; t.none.hidden = false; t.none.textContent = tile.state || "no picture"; }
          else if (t.img.hidden) t.none.textContent = tile.failed ? "no picture" : "waiting for a picture";
        }

        function render(list) {
          const box = $("cameras");
          const seen = new Set();
          for (const p of list) {
            seen.add(p.name);
            const tile = tiles.get(p.name) || makeTile(p.name);
            if (!tile.root.isConnected) box.append(tile.root);
            show(tile, p);
          }
          for (const [name, tile] of tiles) if (!seen.has(name)) { tile.root.remove(); tiles.delete(name); }
          // In name order, as the API lists them.
          for (const p of list) box.append(tiles.get(p.name).root);
          $("empty").hidden = list.length > 0;
          const playing = list.filter((p) => p.state === "playing").length;
          $("summary").textContent = `${list.length} pipeline${list.length === 1 ? "" : "s"} · ${playing} playing`;
        }

        let listing = null;
        function refresh() {
          if (!listing) {
            listing = api("GET", "/api/pipelines")
              .then((d) => { render(d.pipelines || []); })
              .catch((e) => { $("summary").textContent = "unreachable"; say(e.message, true); })
              .finally(() => { listing = null; });
          }
          return listing;
        }

        // ---- pictures: each playing tile asks for its next preview.jpg once the last one came (or failed); at most
        // `pictureSlots` requests at once, so many tiles never take every connection the browser allows.
        const pictureSlots = 3;
        let picturesOut = 0;
        function pictures() {
          if (document.hidden) return;
          const due = [...tiles.values()].filter((t) => t.state === "playing" && !t.loading && Date.now() >= (t.next || 0));
          due.sort((a, b) => (a.next || 0) - (b.next || 0));
          for (const tile of due) {
            if (picturesOut >= pictureSlots) break;
            picturesOut += 1;
            tile.loading = true;
            const img = tile.parts.img;
            const done = (ok) => {
              img.onload = null; img.onerror = null;
              picturesOut -= 1;
              tile.loading = false;
              tile.next = Date.now() + (ok ? 500 : 2000);
              tile.failed = !ok;
              if (!ok) { img.hidden = true; tile.parts.none.hidden = false; tile.parts.none.textContent = "no picture"; }
            };
            img.onload = () => done(true);
            img.onerror = () => done(false);
            img.src = `${mount(tile.root.dataset.name)}/api/preview.jpg?t=${Date.now()}`;
          }
        }

        // ---- actions
        async function act(name, action) {
          if (action === "remove") {
            if (!confirm(`Remove pipeline ${name}? It stops and its file is deleted.`)) return;
            try {
              await api("DELETE", mount(name));
              const t = tiles.get(name);
              if (t) { t.root.remove(); tiles.delete(name); }
              say(`removed ${name}`);
            } catch (e) { say(`${name}: ${e.message}`, true); }
            refresh();
            return;
          }
          const tile = tiles.get(name);
          try {
            const p = await api("POST", `${mount(name)}/${action}`);
            if (tile) show(tile, p);
            say(`${name}: ${action}`);
          } catch (e) { say(`${name}: ${e.message}`, true); }
          refresh();
        }

        async function switchSource(name, field) {
          const tile = tiles.get(name);
          const note = tile ? tile.parts.note : $("message");
          const description = field.value;
          try {
            await api("PATCH", `${mount(name)}/source`, { description });
            note.textContent = "source switched";
            note.className = "note";
            field.value = "";
          } catch (e) {
            note.textContent = e.message + (e.data && e.data.token ? ` (at '${e.data.token}')` : "");
            note.className = "note error";
          }
          refresh();
        }

        // Where a parse error's token is, in UTF-16 units: the API counts characters (grapheme clusters).
        function tokenRange(text, position, token) {
          let start = -1;
          if (typeof position === "number") {
            if (window.Intl && Intl.Segmenter) {
              let i = 0;
              for (const s of new Intl.Segmenter().segment(text)) { if (i === position) { start = s.index; break; } i += 1; }
            } else start = position;
          }
          if (token && (start < 0 || text.substr(start, token.length) !== token)) start = text.indexOf(token);
          if (start < 0) return null;
          return [start, start + (token ? token.length : 1)];
        }

        function showAddError(e, description) {
          const box = $("add-error");
          $("add-error-text").textContent = e.message;
          const where = $("add-error-where");
          where.replaceChildren();
          const d = e.data || {};
          const range = d.field === "description" ? tokenRange(description, d.position, d.token) : null;
          if (range) {
            where.append(description.slice(0, range[0]), el("mark", { text: description.slice(range[0], range[1]) }), description.slice(range[1]));
            const area = $("add-description");
            area.focus();
            area.setSelectionRange(range[0], range[1]);
          }
          where.hidden = !range;
          box.hidden = false;
          if (d.field === "name") $("add-name").focus();
        }

        $("add-form").addEventListener("submit", async (ev) => {
          ev.preventDefault();
          const name = $("add-name").value.trim();
          const description = $("add-description").value;
          $("add-submit").disabled = true;
          try {
            await api("POST", "/api/pipelines", { name, description, start: $("add-start").checked });
            $("add-error").hidden = true;
            $("add-name").value = ""; $("add-description").value = "";
            say(`added ${name}`);
            render((await api("GET", "/api/pipelines")).pipelines || []);
          } catch (e) { showAddError(e, description); }
          finally { $("add-submit").disabled = false; }
        });

        // ---- pipeline changes as they happen
        function listen() {
          const es = new EventSource("/api/events");
          es.onopen = () => { $("link").textContent = "live"; refresh(); };
          es.onerror = () => { $("link").textContent = "reconnecting"; };
          es.onmessage = (m) => {
            let ev;
            try { ev = JSON.parse(m.data); } catch (e) { return; }
            if (ev.name !== "viewfinder/pipeline") return;
            const f = ev.fields || {};
            const tile = tiles.get(f.name);
            if (f.state === "removed") { if (tile) { tile.root.remove(); tiles.delete(f.name); } }
            else if (tile) show(tile, { state: f.state, error: f.error, retryIn: f["retry-in"] });
            refresh();
          };
        }

        refresh();
        listen();
        setInterval(refresh, 2000);
        setInterval(pictures, 200);
        document.addEventListener("visibilitychange", pictures);
        """#
}
