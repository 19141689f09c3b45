import Conformance
import Foundation

/// The shell every page of an HTML report shares: escaping, the style sheet and the script, all
/// inline, so a report folder opens from disk or from a CI artifact with no network, no external
/// script and no font. The script renders timelines from the JSON a page embeds
/// (`TimelineView`), filters the rule table, copies replay lines, and records any error it
/// meets on `<body data-errors>` (the browser test fails a page that has one).
enum HTMLPage {
    /// `text` safe in an element or a double-quoted attribute (every attribute here is one).
    static func escape(_ text: String) -> String { Markup.escape(text) }

    /// JSON for a `<script type="application/json">` block: `<`, `>` and `&` written as JSON
    /// escapes (they occur in strings only), so that no text from a trace (a thread's name, a
    /// crash's last words) can close the element or open a comment that swallows the page.
    static func embed(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }

    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>
        <script>window.onerror = function (m, s, l) { var b = document.body; b.dataset.errors = (b.dataset.errors || \
        "") + m + " (line " + l + "); "; };</script>
        \(body)
        <script>\(script)</script>
        </body>
        </html>

        """
    }

    /// A replay line with a button that copies it.
    static func copyLine(_ line: String) -> String {
        "<div class=\"replay\"><code>\(escape(line))</code><button type=\"button\" class=\"copy\">copy</button></div>"
    }

    static let style = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:16px \
    24px;color:#1d2330;background:#fafbfc}
    h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 8px}h3{font-size:14px;margin:14px 0 6px}
    a{color:#1456c8}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
    pre{background:#f0f2f5;padding:8px 10px;border-radius:4px;overflow:auto;max-height:360px}
    table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d8dce3;padding:3px \
    8px;text-align:left;vertical-align:top}
    th{background:#eef1f5}td.n{text-align:right}
    .meta{color:#4a5263}.pill{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px}
    .s-fail{background:#fbd5d5;color:#8a1010}.s-warn{background:#fdf0c4;color:#6e5200}\
    .s-pass{background:#d6f2dc;color:#135c25}
    .s-not-observable,.s-not-applicable,.s-not-reached{background:#e7e9ee;color:#4a5263}
    .filters label{margin-right:10px}.hidden{display:none}
    .replay{display:flex;gap:8px;align-items:center;margin:3px 0}.replay code{background:#f0f2f5;padding:2px \
    6px;border-radius:3px;overflow-x:auto;white-space:nowrap;max-width:90%}
    .violation{border-left:4px solid #d33;padding:4px 10px;margin:8px \
    0;background:#fff;cursor:pointer}.violation.selected{background:#fff4f4}
    .timeline{display:flex;border:1px solid #d8dce3;background:#fff;margin:8px 0}
    .lanes{flex:none;border-right:1px solid #d8dce3;background:#f6f7f9}
    .lanelabel{box-sizing:border-box;padding:0 \
    8px;font-size:12px;white-space:nowrap;cursor:pointer;display:flex;align-items:center;border-bottom:1px solid \
    #eceef2}
    .lanelabel.collapsed{color:#8a90a0}
    .scroller{overflow:auto;max-height:70vh;flex:1}
    .tools{margin:6px 0}.tools button{margin-right:6px}
    svg .laneline{stroke:#e3e6ec}svg .span{fill:#cfe0fb;stroke:#7aa4e6}svg .bracket{fill:none;stroke:#8a6cc8}
    svg .blabel{font-size:9px;fill:#5b4396}svg .mark{stroke:#fff;stroke-width:1}
    svg .k-call,svg .k-returned{fill:#2f6fdb}svg .k-threw{fill:#d33}svg .k-read{fill:#4b9b5b}svg .k-willChange,svg \
    .k-didChange{fill:#8a6cc8}
    svg .k-set{fill:#e08a1e}svg .k-work{fill:#b0b6c3}svg .k-end,svg .k-hang,svg .k-crash{fill:#000}
    svg .mark.witness{stroke:#d00;stroke-width:3}svg .wline{stroke:#d00;stroke-dasharray:3 3}
    svg .mark.same{stroke:#111;stroke-width:2}svg .seqlabel{font-size:9px;fill:#8a90a0}
    #info{min-height:1.4em;color:#333;font-size:13px}
    tr.witness td{background:#ffe8e8}tr.flash td{background:#fff6bf}
    """

    static let script = #"""
    (function () {
      var NS = "http://www.w3.org/2000/svg";
      function el(name, attrs, parent) { var e = document.createElementNS(NS, name); for (var k in attrs) \#
    e.setAttribute(k, attrs[k]); if (parent) parent.appendChild(e); return e; }
      document.querySelectorAll("button.copy").forEach(function (b) {
        b.addEventListener("click", function () {
          var text = b.parentNode.querySelector("code").textContent;
          if (navigator.clipboard) navigator.clipboard.writeText(text).catch(function () {});
          b.textContent = "copied"; setTimeout(function () { b.textContent = "copy"; }, 1200);
        });
      });
      var filters = document.querySelectorAll(".filters input, .filters select");
      function applyFilters() {
        var shown = {}; document.querySelectorAll(".filters input[data-status]").forEach(function (c) { \#
    shown[c.dataset.status] = c.checked; });
        var fam = document.querySelector(".filters select"); var f = fam ? fam.value : "";
        document.querySelectorAll("tr[data-status]").forEach(function (r) {
          var ok = shown[r.dataset.status] !== false && (!f || r.dataset.family === f);
          r.classList.toggle("hidden", !ok);
        });
      }
      filters.forEach(function (i) { i.addEventListener("change", applyFilters); });
      document.querySelectorAll(".timeline-box").forEach(function (box) {
        var data = JSON.parse(box.querySelector("script[type='application/json']").textContent);
        var laneBox = box.querySelector(".lanes"), scroller = box.querySelector(".scroller"), info = \#
    box.querySelector("#info");
        var dx = data.events.length > 400 ? 8 : 16, left = 24, tall = 58, short = 12;
        var collapsed = data.lanes.map(function (l, i) { return data.lanes.length > 8 && !l.witness; });
        var selected = data.violations.length ? 0 : -1;
        function laneY(i) { var y = 0; for (var j = 0; j < i; j++) y += collapsed[j] ? short : tall; return y + \#
    (collapsed[i] ? short : tall) / 2; }
        function height() { var h = 0; for (var j = 0; j < data.lanes.length; j++) h += collapsed[j] ? short : tall; \#
    return h; }
        function witnesses() { return selected >= 0 ? data.violations[selected].witnesses : []; }
        function draw() {
          laneBox.innerHTML = ""; scroller.innerHTML = "";
          data.lanes.forEach(function (l, i) {
            var d = document.createElement("div"); d.className = "lanelabel" + (collapsed[i] ? " collapsed" : "");
            d.style.height = (collapsed[i] ? short : tall) + "px"; d.textContent = collapsed[i] ? "t" + l.thread : \#
    l.label; d.title = l.label + " (click to " + (collapsed[i] ? "expand" : "collapse") + ")";
            d.addEventListener("click", function () { collapsed[i] = !collapsed[i]; draw(); });
            laneBox.appendChild(d);
          });
          var w = left + data.events.length * dx + 200, h = height();
          var svg = el("svg", { width: w, height: h, "class": "trace" }, scroller);
          data.lanes.forEach(function (l, i) {
            var g = el("g", { "class": "lane", "data-thread": l.thread }, svg);
            el("line", { x1: 0, x2: w, y1: laneY(i), y2: laneY(i), "class": "laneline" }, g);
          });
          var lanes = svg.querySelectorAll("g.lane");
          function x(seq) { return left + seq * dx; }
          data.spans.forEach(function (s) {
            if (collapsed[s.lane]) return;
            var r = el("rect", { x: x(s.from) - 3, y: laneY(s.lane) - 13, width: Math.max(6, x(s.to) - x(s.from) + \#
    6), height: 8, rx: 3, "class": "span" }, lanes[s.lane]);
            el("title", {}, r).textContent = s.label;
          });
          data.brackets.forEach(function (b) {
            if (collapsed[b.lane]) return;
            var y = laneY(b.lane) + 7 + 9 * Math.min(b.depth, 2);
            el("path", { d: "M" + x(b.from) + " " + y + " v5 H" + x(b.to) + " v-5", "class": "bracket" }, \#
    lanes[b.lane]);
            var bt = el("title", {}, lanes[b.lane].lastChild); bt.textContent = b.label;
            if (dx >= 12 && b.depth === 0) { var t = el("text", { x: (x(b.from) + x(b.to)) / 2, y: y + 14 + 9 * \#
    Math.min(b.depth, 2), "text-anchor": "middle", "class": "blabel" }, lanes[b.lane]); t.textContent = b.label; }
          });
          var wit = witnesses();
          wit.forEach(function (seq) { el("line", { x1: x(seq), x2: x(seq), y1: 0, y2: h, "class": "wline" }, svg); });
          data.events.forEach(function (e) {
            var lane = lanes[e.lane]; var c = el("circle", { cx: x(e.seq), cy: laneY(e.lane), r: collapsed[e.lane] ? \#
    2 : 5,
              "class": "mark k-" + e.kind + (wit.indexOf(e.seq) >= 0 ? " witness" : ""), "data-seq": e.seq }, lane);
            if (e.op !== null && e.op !== undefined) c.setAttribute("data-op", e.op);
            el("title", {}, c).textContent = e.text;
            c.addEventListener("mouseenter", function () { hover(e); });
            c.addEventListener("click", function () { var row = document.getElementById("e" + e.seq); if (row) { \#
    row.scrollIntoView({ block: "center" }); row.classList.add("flash"); setTimeout(function () { \#
    row.classList.remove("flash"); }, 1500); } });
            if (!collapsed[e.lane] && dx >= 12 && e.seq % 5 === 0) { var t = el("text", { x: x(e.seq), y: \#
    laneY(e.lane) - 17, "text-anchor": "middle", "class": "seqlabel" }, lane); t.textContent = "#" + e.seq; }
          });
          document.querySelectorAll("tr.witness").forEach(function (r) { r.classList.remove("witness"); });
          wit.forEach(function (seq) { var r = document.getElementById("e" + seq); if (r) r.classList.add("witness"); \#
    });
          box.dataset.lanes = data.lanes.length; box.dataset.witnesses = wit.length;
        }
        function hover(e) {
          svg = scroller.querySelector("svg");
          svg.querySelectorAll(".mark.same").forEach(function (m) { m.classList.remove("same"); });
          var text = e.text;
          if (e.op !== null && e.op !== undefined) {
            svg.querySelectorAll(".mark[data-op='" + e.op + "']").forEach(function (m) { m.classList.add("same"); });
            var o = data.ops[e.op]; if (o) text += "  |  op " + e.op + ": " + o.kind + (o.queue != null ? ", queue " \#
    + o.queue : ", not queued") + (o.deps.length ? ", depends on " + o.deps.join(", ") : "") + (o.dependents.length ? \#
    ", dependents " + o.dependents.join(", ") : "");
          }
          info.textContent = text;
        }
        var svg = null;
        box.querySelector(".zoom-in").addEventListener("click", function () { dx = Math.min(64, dx * 1.5); draw(); });
        box.querySelector(".zoom-out").addEventListener("click", function () { dx = Math.max(2, dx / 1.5); draw(); });
        document.querySelectorAll(".violation").forEach(function (v) {
          v.addEventListener("click", function () { selected = +v.dataset.index; \#
    document.querySelectorAll(".violation").forEach(function (o) { o.classList.toggle("selected", o === v); }); \#
    draw(); scrollToWitness(); });
        });
        function scrollToWitness() { var wit = witnesses(); if (wit.length) scroller.scrollLeft = Math.max(0, left + \#
    wit[0] * dx - scroller.clientWidth / 3); }
        draw(); scrollToWitness();
      });
      document.body.dataset.ready = "1";
    })();
    """#
}
