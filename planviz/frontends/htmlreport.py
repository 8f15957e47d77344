"""The offline HTML report: one self-contained file that steps through a run.

``report_html(run, path)`` writes a page with the diagram of every frame, a
stepper (first/previous/play/next/last, a slider, arrow keys, Home/End), the
event log, the current facts and ready set, a timeline of the run against the
critical path and the metrics. "fit width" (the default) shrinks a wide picture
to the page but never its text below 9 pixels (:func:`~planviz.frontends.panels.legible_width`):
a bigger plan scrolls instead. It needs no kernel and no network: no CDN, no
external file; a restrictive Content-Security-Policy allows only the page's
own inline script (by its sha256 hash), inline styles and ``data:`` images.

Frames are stored compactly: each frame's SVG is cut into chunks at every
``<g``, ``<a`` and ``<text`` element, identical chunks are stored once, and a frame is the list of
its chunk ids, or only the positions that changed since the previous frame.
All data travels as JSON in a ``<script type="application/json">`` block with
``<``, ``>``, ``&``, U+2028 and U+2029 escaped, so plan text containing
``</script>`` cannot end the block.

>>> import tempfile, pathlib
>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> out = report_html(run, pathlib.Path(tempfile.mkdtemp()) / "run.html")
>>> text = out.read_text(encoding="utf-8")
>>> "Content-Security-Policy" in text and "https://" not in text
True
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import escape
from pathlib import Path
from typing import Any, Sequence

from ..analysis.schedule import critical_path
from ..errors import PlanvizError
from ..plan.output import write_output
from ..pictures.gantt import gantt_svg
from .panels import event_row, frame_svg, legible_width, metrics_rows, plan_of

__all__ = ["report_html", "pack_frames", "unpack_frames", "script_json"]

_CHUNK = re.compile(r"(?=<(?:g|a|text)\b)")


def pack_frames(svgs: Sequence[str]) -> tuple[list[str], list[Any]]:
    """Cut SVGs into shared chunks: ``(chunks, frames)`` where a frame is a full list of chunk ids,
    or ``{"d": [pos, id, pos, id, ...]}`` changing only some positions of the previous frame.

    >>> chunks, frames = pack_frames(["<svg><g>a</g><g>b</g></svg>", "<svg><g>a</g><g>c</g></svg>"])
    >>> frames
    [[0, 1, 2], {'d': [2, 3]}]
    >>> unpack_frames(chunks, frames)[1]
    '<svg><g>a</g><g>c</g></svg>'
    """
    table: dict[str, int] = {}
    chunks: list[str] = []
    frames: list[Any] = []
    previous: list[int] | None = None
    for svg in svgs:
        ids = []
        for part in _CHUNK.split(svg):
            if part not in table:
                table[part] = len(chunks)
                chunks.append(part)
            ids.append(table[part])
        if previous is not None and len(previous) == len(ids):
            delta = [x for pos, (a, b) in enumerate(zip(previous, ids)) if a != b for x in (pos, b)]
            frames.append({"d": delta} if len(delta) < len(ids) else ids)
        else:
            frames.append(ids)
        previous = ids
    return chunks, frames


def unpack_frames(chunks: Sequence[str], frames: Sequence[Any]) -> list[str]:
    """The inverse of :func:`pack_frames` (what the page's script does)."""
    out, current = [], []
    for frame in frames:
        if isinstance(frame, dict):
            current = list(current)
            delta = frame["d"]
            for i in range(0, len(delta), 2):
                current[delta[i]] = delta[i + 1]
        else:
            current = list(frame)
        out.append("".join(chunks[c] for c in current))
    return out


def script_json(data: Any) -> str:
    """JSON safe inside an HTML ``<script>`` block: no ``<``, ``>``, ``&``, U+2028, U+2029 left raw.

    >>> script_json({"a": "</script><b>&\\u2028"})
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026\\\\u2028"}'
    """
    text = json.dumps(data, ensure_ascii=True, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def report_html(run: Any, path: str | Path) -> Path:
    """Write ``run`` as one self-contained HTML page at ``path``; returns the path.

    The page works opened from disk with no kernel and no network. ``run`` may
    also be a pair ``[a, b]``: the two-run report (:mod:`planviz.frontends.pairreport`).
    """
    if isinstance(run, (list, tuple)):
        from .pairreport import pair_report  # the two-run page builds on this module's frame packing

        return pair_report(run, path)
    path = Path(path)
    if not run.events:
        raise PlanvizError("this run has no events, so there is nothing to step through; "
                           "simulate or record at least one event first")
    svgs = [frame_svg(run, i) for i in range(len(run.events))]
    chunks, frames = pack_frames(svgs)
    first = run.plans[0] if run.plans else plan_of(run, 0)
    unit = first.time_unit
    events = [event_row(run, i) for i in range(len(run.events))]
    legible = {}  # plan version -> the narrowest width "fit width" may shrink its picture to
    for e, svg in zip(events, svgs):
        legible.setdefault(str(e["version"]), legible_width(svg))
    data = {"chunks": chunks, "frames": frames, "events": events, "unit": unit, "legible": legible}
    try:
        gantt = gantt_svg(run, critical_path(first), now=0.0, unit=unit)
    except PlanvizError as exc:  # a cycle or an unknown dependency: no schedule to chart
        gantt = f'<p class="empty">no timeline: {escape(str(exc))}</p>'
    write_output(path, _page(first.goal, run.outcome, data, gantt, metrics_rows(run)))
    return path


def _page(goal: str, outcome: str, data: dict, gantt: str, stats: list[tuple[str, str]]) -> str:
    script = _SCRIPT
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    metric_rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in stats)
    events = data["events"]
    good = "ok" if outcome == "plan_complete" else "bad"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planviz run: {escape(goal)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>{escape(goal)}</h1>
<p>outcome <span class="outcome {good}">{escape(outcome)}</span> &middot; events 0..{len(events) - 1}
&middot; generated by planviz, works offline</p>
</header>
<nav class="stepper" aria-label="step through the run">
<button type="button" id="pv-first" title="first event (Home)">&laquo; first</button>
<button type="button" id="pv-prev" title="previous event (Left arrow)">&#x25C0; prev</button>
<button type="button" id="pv-play" title="play / pause (P)">&#x25B6; play</button>
<button type="button" id="pv-next" title="next event (Right arrow)">next &#x25B6;</button>
<button type="button" id="pv-last" title="last event (End)">last &raquo;</button>
<input type="range" id="pv-slider" min="0" max="{len(events) - 1}" value="0" aria-label="event">
<label class="fit"><input type="checkbox" id="pv-fit" checked> fit width</label>
</nav>
<p id="pv-caption" class="caption" aria-live="polite"></p>
<main>
<section id="pv-diagram" class="diagram fit" aria-label="plan diagram"></section>
<div class="panels">
<section><h2>Facts held</h2><ul id="pv-facts"></ul></section>
<section><h2>Ready</h2><ul id="pv-ready"></ul></section>
<section><h2>Voided / kept by this event</h2><p id="pv-scope"></p></section>
<section><h2>Metrics (whole run)</h2><table class="metrics">{metric_rows}</table></section>
</div>
</main>
<section class="wide"><h2>Event log</h2><div class="log"><table>
<thead><tr><th>#</th><th>time</th><th>kind</th><th>step</th><th>message</th></tr></thead>
<tbody id="pv-log">{_log_rows(events)}</tbody></table></div></section>
<section class="wide"><h2>Timeline: the run against the critical path</h2><div class="gantt">{gantt}</div></section>
<script type="application/json" id="planviz-data">{script_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""


def _log_rows(events: Sequence[dict]) -> str:
    return "".join(
        f'<tr data-i="{e["index"]}"><td>{e["index"]}</td><td>{e["time"]:g}</td><td>{escape(e["kind"])}</td>'
        f'<td>{escape(e["step"])}</td><td>{escape(e["message"])}</td></tr>' for e in events)


_STYLE = """
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; }
body { margin: 0 auto; max-width: 1600px; padding: 12px 16px; }
h1 { font-size: 1.25rem; margin: 0 0 4px; }
h2 { font-size: 0.95rem; margin: 0 0 6px; }
header p { margin: 0 0 10px; color: #444; }
.outcome { font-weight: 600; padding: 1px 6px; border-radius: 3px; }
.outcome.ok { background: #d6eaf8; } .outcome.bad { background: #fbe3d6; }
.stepper { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.stepper button { font: inherit; padding: 4px 10px; cursor: pointer; }
.stepper button:focus-visible, .stepper input:focus-visible { outline: 3px solid #0072B2; outline-offset: 1px; }
#pv-slider { flex: 1; min-width: 200px; }
.caption { margin: 6px 0; min-height: 1.3em; }
.caption b { font-weight: 600; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 260px; gap: 12px; }
.diagram { border: 1px solid #ddd; overflow: auto; max-height: 62vh; background: #fff; }
.diagram.fit svg { max-width: 100%; height: auto; }
.panels section { margin-bottom: 10px; }
.panels ul { margin: 0; padding-left: 18px; max-height: 9em; overflow: auto; font-size: 0.9rem; }
.panels p { margin: 0; font-size: 0.9rem; }
table { border-collapse: collapse; font-size: 0.85rem; }
td, th { padding: 2px 6px; text-align: left; vertical-align: top; border-bottom: 1px solid #eee; }
.metrics th { font-weight: normal; color: #444; }
.wide { margin-top: 12px; }
.log { max-height: 16em; overflow: auto; border: 1px solid #ddd; }
.log thead th { position: sticky; top: 0; background: #f6f6f6; }
.log table { width: 100%; }
.log tbody tr { cursor: pointer; }
.log tr.current { background: #fff3c4; font-weight: 600; }
.gantt { overflow-x: auto; }
.empty { color: #777; font-style: italic; }
@media (max-width: 800px) { main { grid-template-columns: 1fr; } }
"""

_SCRIPT = """
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('planviz-data').textContent);
  var frames = [], current = [];
  data.frames.forEach(function (f) {
    if (Array.isArray(f)) { current = f.slice(); }
    else { current = current.slice(); for (var k = 0; k < f.d.length; k += 2) { current[f.d[k]] = f.d[k + 1]; } }
    frames.push(current);
  });
  var n = data.events.length, index = 0, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  var diagram = $('pv-diagram'), slider = $('pv-slider'), rows = $('pv-log').rows;
  var logBox = document.querySelector('.log'), logHead = logBox.querySelector('thead');
  var gantt = document.querySelector('svg.planviz-gantt');
  var cursor = gantt && gantt.querySelector('.planviz-now');
  function fill(list, items) {
    list.textContent = '';
    function add(text, cls) {
      var li = document.createElement('li');
      li.textContent = text;
      if (cls) { li.className = cls; }
      list.appendChild(li);
    }
    if (!items.length) { add('(none)', 'empty'); }
    items.forEach(function (t) { add(t); });
  }
  function reveal(row) {  // scroll the log box only, never the page
    if (!row) { return; }
    var box = logBox.getBoundingClientRect(), r = row.getBoundingClientRect();
    var head = logHead.getBoundingClientRect().height;
    if (r.top < box.top + head) { logBox.scrollTop -= box.top + head - r.top; }
    else if (r.bottom > box.bottom) { logBox.scrollTop += r.bottom - box.bottom; }
  }
  function show(i) {
    index = Math.max(0, Math.min(n - 1, i));
    var e = data.events[index];
    diagram.innerHTML = frames[index].map(function (c) { return data.chunks[c]; }).join('');
    var svg = diagram.querySelector('svg');  // fit width shrinks the picture, never its text below 9 px: then it scrolls
    if (svg) { svg.style.minWidth = (data.legible[String(e.version)] || 0) + 'px'; }
    slider.value = String(index);
    var cap = $('pv-caption'); cap.textContent = '';
    var b = document.createElement('b');
    b.textContent = 'Event ' + index + ' of ' + (n - 1) + ': ' + e.kind + (e.step ? ' ' + e.step : '');
    cap.appendChild(b);
    var rest = ' at t=' + e.time + (data.unit ? ' ' + data.unit : '');
    if (e.message) { rest += ' \\u2014 ' + e.message; }
    if (e.version > 1) { rest += ' (plan v' + e.version + ')'; }
    cap.appendChild(document.createTextNode(rest));
    fill($('pv-facts'), e.facts);
    fill($('pv-ready'), e.ready);
    $('pv-scope').textContent = (e.voided.length || e.kept.length)
      ? 'voided: ' + (e.voided.join(', ') || '(none)') + '; kept: ' + (e.kept.join(', ') || '(none)')
      : '(nothing voided at this event)';
    for (var r = 0; r < rows.length; r++) { rows[r].classList.toggle('current', r === index); }
    reveal(rows[index]);
    if (cursor) {
      var x = parseFloat(gantt.getAttribute('data-x0'))
        + e.time * parseFloat(gantt.getAttribute('data-scale'));
      cursor.setAttribute('x1', x); cursor.setAttribute('x2', x); cursor.setAttribute('visibility', 'visible');
    }
    $('pv-first').disabled = $('pv-prev').disabled = index === 0;
    $('pv-last').disabled = $('pv-next').disabled = index === n - 1;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; $('pv-play').textContent = '\\u25B6 play'; } }
  function play() {
    if (timer) { stop(); return; }
    if (index === n - 1) { show(0); }
    $('pv-play').textContent = '\\u23F8 pause';
    timer = setInterval(function () { if (index >= n - 1) { stop(); } else { show(index + 1); } }, 900);
  }
  $('pv-first').addEventListener('click', function () { stop(); show(0); });
  $('pv-prev').addEventListener('click', function () { stop(); show(index - 1); });
  $('pv-next').addEventListener('click', function () { stop(); show(index + 1); });
  $('pv-last').addEventListener('click', function () { stop(); show(n - 1); });
  $('pv-play').addEventListener('click', play);
  slider.addEventListener('input', function () { stop(); show(parseInt(slider.value, 10)); });
  $('pv-fit').addEventListener('change', function () { diagram.classList.toggle('fit', this.checked); });
  $('pv-log').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr'); if (tr) { stop(); show(parseInt(tr.getAttribute('data-i'), 10)); }
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.target === slider || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var k = ev.key;
    if (k === 'ArrowRight') { stop(); show(index + 1); }
    else if (k === 'ArrowLeft') { stop(); show(index - 1); }
    else if (k === 'Home') { stop(); show(0); }
    else if (k === 'End') { stop(); show(n - 1); }
    else if (k === 'p' || k === 'P') { play(); }
    else { return; }
    ev.preventDefault();
  });
  var start = parseInt((location.hash.match(/^#(\\d+)$/) || [])[1], 10);
  show(isNaN(start) ? 0 : start);
}());
"""
