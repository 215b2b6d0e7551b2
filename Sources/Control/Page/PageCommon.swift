/// What the two pages of the control server share: the first lines of each page's HTML and the helpers each script
/// starts with, written once (`ControlPage` at `/` of `launch --http` and under a `serve` mount; `OverviewPage` at
/// `/` of `serve`).
enum PageCommon {
    /// `$` (an element by id), `el` (an element with attributes and children), `say` (the page's message line) and
    /// `api` (a JSON request to this server; a refusal throws an Error carrying the answer's `status` and JSON `data`:
    /// `error`, `field`, `position`, `token`).
    static let helpers = #"""
        const $ = (id) => document.getElementById(id);
        const el = (tag, attrs = {}, ...kids) => {
          const e = document.createElement(tag);
          for (const [k, v] of Object.entries(attrs)) {
            if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
            else if (k.startsWith("data-")) e.setAttribute(k, v); else e[k] = v;
          }
          for (const k of kids) e.append(k);
          return e;
        };

        function say(text, error = false) {
          const m = $("message");
          m.textContent = text;
          m.className = error ? "error" : "";
        }

        async function api(method, url, body) {
          const init = { method, headers: {} };
          if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
          const r = await fetch(url, init);
          let data = {};
          try { data = await r.json(); } catch (e) { /* not JSON */ }
          if (!r.ok) {
            const e = new Error(data.error || `${r.status} ${r.statusText}`);
            e.status = r.status; e.data = data;
            throw e;
          }
          return data;
        }
        """#

    /// The start of a page's HTML up to its stylesheet: `title` and the stylesheet's `href`.
    static func head(title: String, stylesheet: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="stylesheet" href="\(stylesheet)">
        """
    }
}
