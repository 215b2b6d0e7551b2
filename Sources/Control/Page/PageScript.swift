extension ControlPage {
    /// `/app.js`: controls from `/api/stages`, the readout from `/api/events`, the shutter, the gallery, the clips and
    /// recordings (`mediaScript`); the preview over WebRTC (`/api/webrtc`) when the session has a `webrtcserve`, else
    /// (or when it fails) the MJPEG image.
    /// Plain ES2017, no libraries; every request goes to this server (same origin), under the page's own path
    /// (`base`: empty at `/`, `/api/pipelines/NAME` when `serve` mounts the page at `/api/pipelines/NAME/`). Property
    /// values come and go as typed JSON: numbers for Integer and Double, booleans for Boolean, strings for the rest.
    static let script = #"""
        "use strict";
        \#(PageCommon.helpers)
        // Where this page's API is: the page's directory without its last slash ("" at "/", "/api/pipelines/door" at
        // "/api/pipelines/door/"), so the same page works under `serve`'s mount. Photo URLs come from the API with it.
        const base = new URL(".", location.href).pathname.replace(/\/$/, "");
        const at = (path) => base + path;



        // ---- controls, generated from the stage property specs
        function controlFor(stage, p) {
          const id = `p-${stage}-${p.name}`;
          const label = el("label", { htmlFor: id, text: p.name, title: p.blurb });
          const out = el("output", { text: "" });
          let input;
          const send = async (value) => {
            try {
              const r = await api("PATCH", at(`/api/stages/${encodeURIComponent(stage)}`), { [p.name]: value });
              say(`${stage}.${p.name} = ${r.changed[p.name]}`);
            } catch (e) { say(e.message, true); loadStages(); }
          };
          if (p.choices && p.type === "Enum") {
            input = el("select", { id });
            for (const c of p.choices) input.append(el("option", { value: c, text: c }));
            input.value = p.value;
            input.addEventListener("change", () => send(input.value));
          } else if (p.choices && p.type === "Flags") {
            input = el("div", { id, class: "flags" });
            const on = new Set(String(p.value).split("+"));
            for (const c of p.choices) {
              const box = el("input", { type: "checkbox", value: c, checked: on.has(c) });
              box.addEventListener("change", () => {
                const picked = [...input.querySelectorAll("input:checked")].map((b) => b.value).filter((v) => v !== "none");
                send(picked.length ? picked.join("+") : "none");
              });
              input.append(el("label", {}, box, " " + c + " "));
            }
          } else if (p.type === "Boolean") {
            input = el("input", { id, type: "checkbox", checked: p.value === true });
            input.addEventListener("change", () => send(input.checked));
          } else if ((p.type === "Integer" || p.type === "Double") && p.min !== undefined) {
            const wide = p.max - p.min;
            input = el("input", { id, type: "range", min: p.min, max: p.max,
                                  step: p.type === "Integer" ? 1 : (wide > 10 ? 0.1 : wide / 100), value: p.value });
            out.textContent = p.value;
            input.addEventListener("input", () => { out.textContent = input.value; });
            input.addEventListener("change", () => send(p.type === "Integer" ? parseInt(input.value, 10) : parseFloat(input.value)));
          } else {
            // Values are typed JSON: numbers go back as numbers (the API refuses "5" for a number).
            const numeric = p.type === "Integer" || p.type === "Double";
            input = el("input", { id, type: "text", value: String(p.value) });
            input.addEventListener("change", () => send(numeric && input.value.trim() !== "" ? Number(input.value) : input.value));
          }
          input.setAttribute("data-stage", stage);
          input.setAttribute("data-prop", p.name);
          return el("div", { class: "control" }, label, input, out);
        }

        async function loadStages() {
          let data;
          try { data = await api("GET", at("/api/stages")); } catch (e) { say(e.message, true); return; }
          const box = $("controls");
          box.replaceChildren();
          for (const s of data.stages) {
            const live = s.properties.filter((p) => p.mutable);
            const fixed = s.properties.filter((p) => !p.mutable);
            const set = el("fieldset", {}, el("legend", { text: `${s.name} (${s.kind})` }));
            for (const p of live) set.append(controlFor(s.name, p));
            if (fixed.length) {
              const d = el("details", { class: "fixed" }, el("summary", { text: `${fixed.length} set at start` }));
              for (const p of fixed) d.append(el("div", { text: `${p.name} = ${p.value}` }));
              set.append(d);
            }
            box.append(set);
          }
        }

        // ---- live readout from the event stream
        let countdownTimer = null;
        function onEvent(ev) {
          const f = ev.fields || {};
          if (ev.name === "viewfinder/composition") {
            $("score").textContent = typeof f.score === "number" ? f.score.toFixed(2) : "–";
            $("rule").textContent = f.rule || "–";
            $("engine").textContent = (f.engine || "–") + (f["face-count"] ? ` (${f["face-count"]} faces)` : "");
            $("advice").textContent = f.advice || "–";
            $("rule").dataset.frame = f.frame;
          } else if (ev.name === "viewfinder/capture") {
            if (f.readiness) setReadiness(f.readiness);
            if (f.event === "saved") { say(`saved ${f.file || "#" + f.number}`); loadPhotos(); }
            else if (f.event === "refused") say(`capture refused: ${f.reason}`, true);
            else if (f.event === "error") say(`capture error: ${f.reason}`, true);
            else if (f.event === "timer") startCountdown(f.seconds);
          } else if (ev.name === "viewfinder/clip") {
            onClipEvent(f);
          } else if (ev.name === "viewfinder/chromakey-warning" || (ev.name || "").endsWith("error")) {
            say(`${ev.source}: ${f.text || f.reason || ev.name}`, true);
          }
        }
        function setReadiness(r) {
          const b = $("readiness");
          b.textContent = r;
          b.className = "badge " + r;
        }
        function startCountdown(seconds) {
          clearInterval(countdownTimer);
          let left = seconds;
          $("countdown").textContent = left > 0 ? `${left}…` : "";
          countdownTimer = setInterval(() => {
            left -= 1;
            $("countdown").textContent = left > 0 ? `${left}…` : "";
            if (left <= 0) clearInterval(countdownTimer);
          }, 1000);
        }
        function listen() {
          const es = new EventSource(at("/api/events"));
          es.onmessage = (m) => { try { onEvent(JSON.parse(m.data)); } catch (e) { /* ignore a bad line */ } };
          es.onerror = () => { $("phase").textContent = "reconnecting"; };
          es.onopen = () => refreshState();
        }
        async function refreshState() {
          try {
            const s = await api("GET", at("/api/state"));
            $("phase").textContent = s.state;
            if (s.fps !== undefined) $("stats").textContent = `${s.fps.toFixed(1)} fps · ${s.framesOut} frames · ${s.dropped} dropped`;
          } catch (e) { $("phase").textContent = "stopped"; }
        }

        // ---- shutter
        async function shoot(timer) {
          try {
            await api("POST", at("/api/capture"), timer ? { timer } : {});
            say(timer ? `timer ${timer} s started` : "shutter");
          } catch (e) { say(e.message, true); }
        }

        // ---- gallery
        let photos = [];
        async function loadPhotos() {
          let data;
          try { data = await api("GET", at("/api/photos")); } catch (e) { return; }
          photos = data.photos || [];
          const g = $("gallery");
          g.replaceChildren();
          $("photo-count").textContent = photos.length ? `(${photos.length})` : "";
          for (const p of photos) {
            if (!p.url) continue;
            const b = el("button", { class: "thumb", type: "button", title: p.file, id: `photo-${p.stage}-${p.id}`, "data-id": p.id, "data-stage": p.stage },
                         el("img", { src: p.thumbUrl || p.url, alt: p.file, loading: "lazy" }),
                         el("span", { text: `#${p.id} · ${p.rule || "?"} ${typeof p.score === "number" ? p.score.toFixed(2) : ""}` }));
            b.addEventListener("click", () => openPhoto(p));
            g.append(b);
          }
        }
        let shown = null;
        function openPhoto(p) {
          shown = p;
          const img = $("photo-img");
          const box = $("photo-box");
          box.hidden = true;
          img.onload = () => {
            if (p.subject && p.width && p.height) {
              box.style.left = (100 * p.subject.x / p.width) + "%";
              box.style.top = (100 * p.subject.y / p.height) + "%";
              box.style.width = (100 * p.subject.width / p.width) + "%";
              box.style.height = (100 * p.subject.height / p.height) + "%";
              box.hidden = false;
            }
          };
          img.src = p.url;
          const facts = $("photo-facts");
          facts.replaceChildren();
          const add = (k, v) => { if (v !== undefined && v !== null && v !== "") facts.append(el("dt", { text: k }), el("dd", { text: String(v) })); };
          add("Photo", `#${p.id} ${p.file}`); add("Taken", p.time); add("Size", `${p.width} × ${p.height}`);
          add("Rule", p.rule); add("Score", typeof p.score === "number" ? p.score.toFixed(2) : p.score);
          add("Advice", p.advice); add("Trigger", p.trigger); add("Crop", p.crop);
          const ex = $("photo-exif");
          ex.replaceChildren();
          for (const [k, v] of Object.entries(p.exif || {}).sort()) ex.append(el("tr", {}, el("td", { text: k }), el("td", { text: v })));
          const card = $("photo-card");
          if (p.cardUrl) { card.href = p.cardUrl; card.hidden = false; card.download = `IMG_${String(p.id).padStart(5, "0")}_card.jpg`; }
          else card.hidden = true;
          $("photo-view").showModal();
        }
        $("photo-delete").addEventListener("click", async () => {
          if (!shown || !confirm(`Delete photo #${shown.id}?`)) return;
          try {
            await api("DELETE", at(`/api/photos/${encodeURIComponent(shown.stage)}/${shown.id}`));
            say(`deleted #${shown.id}`);
            $("photo-view").close();
            loadPhotos();
          } catch (e) { say(e.message, true); }
        });

        // ---- the preview over WebRTC (when the description has a webrtcserve); the MJPEG <img> stays until
        // the video plays, and comes back if WebRTC fails or ends.
        function startWebRTC() {
          if (!window.RTCPeerConnection || !window.WebSocket) return;
          const video = $("preview-video");
          const img = $("preview");
          const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}/api/webrtc`);
          const pc = new RTCPeerConnection({ iceServers: [] });
          window.vfPeer = pc;
          window.vfWebRTC = "connecting";
          let playing = false;
          const fallback = (why) => {
            if (window.vfWebRTC === "failed") return;
            window.vfWebRTC = "failed";
            window.vfWebRTCError = why;
            try { pc.close(); } catch (e) { /* already closed */ }
            try { ws.close(); } catch (e) { /* already closed */ }
            if (playing) { video.hidden = true; img.hidden = false; img.src = at("/api/preview.mjpeg"); }
          };
          const send = (o) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(o)); };
          // Shown from the first track on: Chromium does not start a muted autoplay <video> that is not displayed.
          pc.ontrack = (e) => { video.srcObject = e.streams[0] || new MediaStream([e.track]); video.hidden = false; };
          pc.onicecandidate = (e) => {
            if (e.candidate && e.candidate.candidate) send({ type: "ice", candidate: e.candidate.candidate, sdpMLineIndex: e.candidate.sdpMLineIndex });
          };
          pc.onconnectionstatechange = () => { if (pc.connectionState === "failed") fallback("connection failed"); };
          video.addEventListener("playing", () => {
            playing = true;
            window.vfWebRTC = "playing";
            video.hidden = false;
            img.hidden = true;
            $("no-preview").hidden = true;
            img.removeAttribute("src");
          });
          ws.onmessage = async (m) => {
            let msg;
            try { msg = JSON.parse(m.data); } catch (e) { return; }
            try {
              if (msg.type === "offer") {
                await pc.setRemoteDescription({ type: "offer", sdp: msg.sdp });
                const answer = await pc.createAnswer();
                await pc.setLocalDescription(answer);
                send({ type: "answer", sdp: answer.sdp });
              } else if (msg.type === "ice") {
                await pc.addIceCandidate({ candidate: msg.candidate, sdpMLineIndex: msg.sdpMLineIndex });
              } else if (msg.type === "error") {
                fallback(msg.error);
              }
            } catch (e) { fallback(String(e)); }
          };
          ws.onclose = () => { if (window.vfWebRTC !== "playing") fallback("signalling closed"); else fallback("stream ended"); };
        }
        async function maybeWebRTC() {
          try { const s = await api("GET", at("/api/state")); if (s.webrtc) startWebRTC(); } catch (e) { /* MJPEG stays */ }
        }

        \#(ControlPage.mediaScript)

        // ---- start
        if (base) {
          // Mounted by `serve`: the way back to the overview, and which camera this is.
          $("back").hidden = false;
          const name = decodeURIComponent(base.split("/").pop());
          $("camera-name").textContent = "· " + name;
          document.title = `${name} · Viewfinder`;
        }
        $("shutter").addEventListener("click", () => shoot(0));
        for (const b of document.querySelectorAll("[data-timer]")) b.addEventListener("click", () => shoot(parseInt(b.dataset.timer, 10)));
        const noPreview = () => { $("preview").hidden = true; $("no-preview").hidden = false; };
        $("preview").addEventListener("error", noPreview);
        // The preview's 404 may have come before this script ran (the <img> is above it): a broken image is complete with no size.
        if ($("preview").complete && $("preview").naturalWidth === 0) noPreview();
        maybeWebRTC();
        loadStages();
        loadPhotos();
        loadClips();
        loadRecordings();
        refreshState();
        setInterval(refreshState, 2000);
        listen();
        """#
}
