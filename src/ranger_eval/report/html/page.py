"""The page around the sections: its CSS, its sorting script, the Content-Security-Policy, the
provenance of every analysis and the embedded JSON results.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..tables import jsonable
from .common import _KIND_TITLES, _Analysis, _e

_CSS = """
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --rule: #d0d7de;
  --accent: #1f5fa8; --band: #f4f7fa; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Noto Sans", "Liberation Sans", "DejaVu Sans", sans-serif; }
.page { max-width: 80rem; margin: 0 auto; padding: 2rem 1.5rem 3rem; }
header.report { border-bottom: 2px solid var(--ink); padding-bottom: 1rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 .35rem; }
h2 { font-size: 1.4rem; line-height: 1.3; margin: 2.5rem 0 .5rem; padding-top: 1rem;
  border-top: 1px solid var(--rule); }
h3 { font-size: 1.05rem; margin: 1.75rem 0 .5rem; }
main > section:first-child > h2 { border-top: 0; padding-top: 0; }
p, li, figcaption { max-width: 75ch; }
.sub { color: var(--muted); margin: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  "DejaVu Sans Mono", monospace; font-size: .85em; overflow-wrap: anywhere; }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  gap: .2rem 1rem; margin: .75rem 0 0; font-size: .875rem; }
dl.provenance dt { color: var(--muted); }
dl.provenance dd { margin: 0; }
nav.toc ol { margin: .5rem 0 0; padding-left: 1.25rem; }
nav.toc a, footer a { color: var(--accent); }
.reading { background: var(--band); border-left: 4px solid var(--accent); padding: .75rem 1.1rem;
  margin: 1.25rem 0 1.5rem; }
.reading h3 { margin: 0 0 .35rem; font-size: 1rem; }
.reading p { margin: .4rem 0; }
.reading ul { margin: .4rem 0; padding-left: 1.25rem; }
figure { width: fit-content; max-width: 100%; margin: 1.5rem auto 2rem; }
figure svg, figure img { display: block; max-width: 100%; height: auto; }
figcaption { width: 0; min-width: 100%; font-size: .875rem; color: var(--muted);
  margin-top: .5rem; }
/* Tables fit the page where wrapping a header or a note is enough; a table wider than that
   scrolls inside its own box (at most 85 % of the window high, so its scroll bar is on screen),
   with the header row and the first column sticky, and says so above it. */
.table-wrap { overflow: auto; max-width: 100%; max-height: 85vh; margin: .5rem 0 0; }
.table-wrap:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.table-wrap.wide::before { content: "Wider than the page: scroll sideways for more columns \\2192";
  display: block; position: sticky; left: 0; font-size: .8125rem; color: var(--muted);
  padding: 0 0 .25rem; }
.table-note { font-size: .8125rem; color: var(--muted); margin: .5rem 0 1.75rem; }
table { border-collapse: separate; border-spacing: 0; font-size: .875rem;
  font-variant-numeric: tabular-nums; }
.many table { font-size: .8125rem; }
th, td { padding: .3rem .45rem; text-align: left; vertical-align: top; white-space: nowrap;
  border-bottom: 1px solid var(--rule); background: #fff; }
th { white-space: normal; min-width: 3.5em; }
thead th { vertical-align: bottom; border-bottom: 2px solid var(--ink); position: sticky;
  top: 0; z-index: 2; }
td .note { display: block; font-size: .8em; color: var(--muted); white-space: normal;
  min-width: 7em; }
td.stack { white-space: normal; }
td.stack .mean, td.stack .ci { white-space: nowrap; }
td.stack sup { white-space: normal; overflow-wrap: anywhere; }
th.num, td.num { text-align: right; }
tbody tr:nth-child(even) > * { background: #f8fafb; }
tbody tr:hover > * { background: #eef3f8; }
th:first-child, td:first-child { position: sticky; left: 0; z-index: 1;
  box-shadow: inset -1px 0 0 var(--rule); }
thead th:first-child { z-index: 3; }
tfoot td { border-bottom: 0; }
tfoot tr:first-child td { border-top: 2px solid var(--ink); }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0;
  padding: 0; margin: 0; cursor: pointer; text-align: inherit; }
th button::after { content: "\\2195"; margin-left: .3em; color: #9aa3ad; font-size: .8em; }
th[aria-sort="ascending"] button::after { content: "\\25B2"; color: var(--accent); }
th[aria-sort="descending"] button::after { content: "\\25BC"; color: var(--accent); }
th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
sup { font-size: .75em; line-height: 0; }
footer.report { margin-top: 3rem; padding-top: 1rem; border-top: 2px solid var(--ink);
  font-size: .8125rem; color: var(--muted); }
@media (max-width: 40rem) {
  .page { padding: 1rem .75rem 2rem; }
  h1 { font-size: 1.4rem; }
  dl.provenance { grid-template-columns: minmax(0, 1fr); }
}
@page { margin: 14mm 12mm; }
@media print {
  body { font-size: 10pt; line-height: 1.4; }
  .page { max-width: none; padding: 0; }
  nav.toc { display: none; }
  th button { cursor: auto; }
  figure { width: auto; }
  figure img { max-height: 23cm; width: auto; margin: 0 auto; }
  figcaption { width: auto; }
  th button::after { content: none !important; }
  tbody tr:hover { background: none; }
  .table-wrap { overflow: visible; max-height: none; }
  .table-wrap.wide::before { content: none; }
  th, td, thead th { position: static; box-shadow: none; }
  table { font-size: 8pt; }
  th, td { white-space: normal; padding: .15rem .4rem; }
  td.num { white-space: nowrap; }
  .table-wrap { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  tfoot { display: table-row-group; }
  tr, figure, .reading, dl.provenance { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  .table-note { break-before: avoid; page-break-before: avoid; }
  h2 { border-top: 0; }
  .reading { background: none; border-left-color: #000; }
  figure svg, figure img { max-height: 23cm; width: auto; }
  a { color: inherit; text-decoration: none; }
}
"""


_JS = """
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent.trim(); }
    if (v === "" || v === "\\u2013") { return null; }
    var n = Number(v);
    return isNaN(n) ? v : n;
  }
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    if (typeof a === "number") { return -1; }
    if (typeof b === "number") { return 1; }
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.map.call(body.rows, function (row, i) {
          return { row: row, key: key(row.cells[col]), i: i };
        });
        rows.sort(function (a, b) {
          if (a.key === null || b.key === null) {
            return (a.key === null) - (b.key === null) || a.i - b.i;
          }
          return (ascending ? 1 : -1) * compare(a.key, b.key) || a.i - b.i;
        });
        rows.forEach(function (r) { body.appendChild(r.row); });
      });
    });
  });
  // a table wider than its box says so (CSS .wide); again when the window is resized
  function wide() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (w) {
      w.classList.toggle("wide", w.scrollWidth > w.clientWidth + 1);
    });
  }
  wide();
  window.addEventListener("resize", wide);
})();
"""


_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")


def _script_json(obj: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` as ``\\u`` escapes."""
    text = json.dumps(jsonable(obj), indent=1, ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _provenance(a: _Analysis) -> str:
    command = a.command
    rows = [("Signature", f"<code>{_e(a.signature)}</code>"),
            ("Command", f"<code>{_e(command)}</code>" if command
             else "not recorded (run from Python)")]
    if a.rel != ".":
        rows.append(("Folder", f"<code>{_e(a.rel)}/</code>"))
    tool = a.manifest.get("tool")
    if tool:
        rows.append(("Written by", _e(tool)))
    return ('<dl class="provenance">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
            + "</dl>")


def _rich(text: str) -> str:
    """Escaped ``text`` with the statistics' subscripts typeset (χ²_F, F_F)."""
    out = _e(text)
    return out.replace("χ²_F", "χ<sup>2</sup><sub>F</sub>").replace("F_F", "F<sub>F</sub>")


def _section(a: _Analysis) -> str:
    title = _KIND_TITLES[a.kind] + ("" if a.rel == "." else f" — {a.rel}/")
    out = [f'<section class="analysis" id="analysis-{a.index}" '
           f'aria-labelledby="analysis-{a.index}-title">',
           f'<h2 id="analysis-{a.index}-title">{_e(title)}</h2>',
           _provenance(a) if a.rel != "." else "",  # the root's is in the page header
           '<div class="reading"><h3>Reading</h3>']
    out += [f"<p>{_rich(s)}</p>" for s in a.sentences]
    if a.bullets:
        out.append("<ul>" + "".join(f"<li>{_rich(b)}</li>" for b in a.bullets) + "</ul>")
    out.append("</div>")
    if a.kind in ("compare", "arena"):  # the leaderboard before the figures, the rest after
        out += a.tables[:1] + a.figures + a.tables[1:]
    else:
        out += a.figures + a.tables
    out.append("</section>")
    return "\n".join(out)


def _page(root: Path, analyses: list[_Analysis], command: str | None) -> str:
    main = analyses[0]
    summary = main.data.get("summary")
    title = (summary.get("title") if isinstance(summary, dict) else None) \
        or f"{_KIND_TITLES[main.kind]}: {root.resolve().name}"
    payload = {
        "format": "ranger-eval-report/1",
        "folder": root.resolve().name,
        "signature": main.signature,
        "command": main.command,
        "analyses": [{"folder": a.rel, "kind": a.kind, "signature": a.signature,
                      "command": a.command, "tool": a.manifest.get("tool"),
                      "files": list(a.files),
                      **{k: v for k, v in a.data.items() if k != "slugs"}}
                     for a in analyses],
    }
    tool = main.manifest.get("tool") or "ranger-eval"
    head = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{_e(tool)}">',
        f"<title>{_e(title)}</title>", f"<style>{_CSS}</style>", "</head>",
    ]
    kinds = ", ".join(_KIND_TITLES[a.kind].lower() + ("" if a.rel == "." else f" ({a.rel}/)")
                      for a in analyses)
    body = ['<body><div class="page">', '<header class="report">', f"<h1>{_e(title)}</h1>",
            f'<p class="sub">Report of the ranger-eval output folder '
            f"<code>{_e(root.resolve().name)}/</code>: {_e(kinds)}.</p>",
            _provenance(main).replace("<dl", '<dl id="header-provenance"', 1), "</header>"]
    if len(analyses) > 1:
        body.append('<nav class="toc" aria-label="Contents"><ol>' + "".join(
            f'<li><a href="#analysis-{a.index}">{_e(_KIND_TITLES[a.kind])}'
            f'{"" if a.rel == "." else " — " + _e(a.rel) + "/"}</a></li>' for a in analyses)
            + "</ol></nav>")
    body += ["<main>"] + [_section(a) for a in analyses] + ["</main>"]
    foot = [f"<p>Signature: <code>{_e(main.signature)}</code><br>"
            f"Command: <code>{_e(main.command or 'not recorded')}</code>"]
    if command and command != main.command:
        foot[0] += f"<br>Report written by: <code>{_e(command)}</code>"
    foot[0] += "</p>"
    foot.append(f"<p>Written by {_e(tool)} from the files listed in manifest.json. "
                "Self-contained: nothing is loaded from the network. The results are embedded "
                "as JSON in <code>script#ranger-results</code>.</p>")
    body += ['<footer class="report">', *foot, "</footer>", "</div>",
             f'<script type="application/json" id="ranger-results">{_script_json(payload)}'
             "</script>", f"<script>{_JS}</script>", "</body>", "</html>"]
    return "\n".join(head + body) + "\n"
