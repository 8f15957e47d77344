"""The offline HTML report: one self-contained file that steps through a run.

``report_html(run, path)`` writes a page with the picture of the run, a
stepper (first/previous/play/next/last, a slider, arrow keys, Home/End), the
event log, the current facts and ready set, a timeline of the run against the
critical path and the metrics. "Fit width" (the default) shrinks a wide picture
to the page, but never its text below 9 pixels: each version's picture sits in
a box no narrower than :func:`~planviz.frontends.panels.legible_width`, so a
bigger plan scrolls instead. It needs no kernel and no network: no CDN, no
external file; a restrictive Content-Security-Policy allows only the page's
own inline script (by its sha256 hash), inline styles and ``data:`` images.

Each plan version is laid out once; the page's script steps through the frames
by restyling nodes from a compact per-event delta table
(:mod:`planviz.frontends.deltatable`), so the page grows with the run's events
plus one picture per plan version, not with events x steps. Without script the
page is a static report of the run's last frame: its picture, facts, ready
set and log. An unfinished run (a trace whose agent stopped before ``stop``)
shows as ``unfinished``, drawn where it stopped. All data travels as JSON in a
``<script type="application/json">`` block with ``<``, ``>``, ``&``, U+2028
and U+2029 escaped, so plan text containing ``</script>`` cannot end the block.

>>> import tempfile, pathlib
>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> out = report_html(run, pathlib.Path(tempfile.mkdtemp()) / "run.html")
>>> text = out.read_text(encoding="utf-8")
>>> "Content-Security-Policy" in text and "https://" not in text
True
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any, Sequence

from ..analysis.schedule import critical_path
from ..errors import PlanvizError
from ..pictures.gantt import gantt_svg
from ..plan.output import write_output
from ..runs.events import expect_run
from ..runs.machine import ProgressCallback
from .deltatable import VersionPicture, delta_table
from .page import asset, content_security_policy, script_json
from .pairreport import pair_report
from .panels import legible_width, metrics_rows, outcome_label

__all__ = ["report_html"]


def report_html(run: Any, path: str | Path, *, progress: ProgressCallback | None = None) -> Path:
    """Write ``run`` as one self-contained HTML page at ``path``; returns the path.

    The page works opened from disk with no kernel and no network. ``run`` may
    also be a pair ``[a, b]``: the two-run report (:mod:`planviz.frontends.pairreport`).
    ``progress(what, done, total)`` hears of the work on long runs (the
    command line shows it on a terminal).
    """
    if not isinstance(run, (list, tuple)):
        run = expect_run(run, "report_html")
    if isinstance(run, (list, tuple)):

        return pair_report(run, path)
    path = Path(path)
    if not run.events:
        raise PlanvizError("this run has no events, so there is nothing to step through; "
                           "simulate or record at least one event first")
    data, pictures = delta_table(run, progress)
    for spec, picture in zip(data["versions"], pictures):  # how narrow "fit width" may make each version
        spec["legible"] = legible_width(picture.svg)
    first = run.plans[0]
    data["unit"] = first.time_unit
    end = float(run.events[-1].time)
    try:
        gantt = gantt_svg(run, critical_path(first), now=end if math.isfinite(end) else None, unit=first.time_unit)
    except PlanvizError as exc:  # a cycle or an unknown dependency: no schedule to chart
        gantt = f'<p class="empty">no timeline: {escape(str(exc))}</p>'
    write_output(path, _page(run, data, pictures, gantt))
    return path


def _page(run: Any, data: dict, pictures: Sequence[VersionPicture], gantt: str) -> str:
    script = asset("stepper.js") + asset("report.js")
    csp = content_security_policy(script)
    metric_rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in metrics_rows(run))
    n = len(run.events)
    label = outcome_label(run)
    badge = "ok" if run.outcome == "plan_complete" else "open" if run.outcome is None else "bad"
    last = run.frame(-1)
    e = run.events[-1]
    goal = run.plans[0].goal
    shown, others = pictures[-1], pictures[:-1]
    templates = "".join(f'<template id="pv-version-{k}">{p.svg}</template>\n' for k, p in enumerate(others))
    scope = (f"voided: {', '.join(sorted(e.voided)) or '(none)'}; kept: {', '.join(sorted(e.kept)) or '(none)'}"
             if e.voided or e.kept else "(nothing voided at this event)")
    unfinished = (" The run is <b>unfinished</b>: it has no stop event (the agent stopped recording), so this is "
                  "where it stopped." if run.outcome is None else "")
    return f"""<!DOCTYPE html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planviz run: {escape(goal)}</title>
<style>{asset("report.css")}</style>
</head>
<body>
<header>
<h1>{escape(goal)}</h1>
<p>outcome <span class="outcome {badge}">{escape(label)}</span> &middot; events 0..{n - 1}
&middot; generated by planviz, works offline</p>
</header>
<p class="static-note">Without script this page shows the run's last frame; allow scripts to step through
every frame.{unfinished}</p>
<nav class="stepper" aria-label="step through the run">
<button type="button" id="pv-first" title="first event (Home)">&laquo; first</button>
<button type="button" id="pv-prev" title="previous event (Left arrow)">&#x25C0; prev</button>
<button type="button" id="pv-play" title="play / pause (P)">&#x25B6; play</button>
<button type="button" id="pv-next" title="next event (Right arrow)">next &#x25B6;</button>
<button type="button" id="pv-last" title="last event (End)">last &raquo;</button>
<input type="range" id="pv-slider" min="0" max="{n - 1}" value="{n - 1}" aria-label="event">
<label class="fit"><input type="checkbox" id="pv-fit" checked> fit width</label>
</nav>
<p id="pv-caption" class="caption" aria-live="polite">{_caption(run, n - 1, data["unit"])}</p>
<main>
<section id="pv-diagram" class="diagram fit" aria-label="plan diagram">
<div class="pv-version" data-v="{len(others)}" style="min-width: {data["versions"][-1]["legible"]}px">{shown.svg}</div>
</section>
<div class="panels">
<section><h2>Facts held</h2><ul id="pv-facts">{_items(sorted(last.facts))}</ul></section>
<section><h2>Ready</h2><ul id="pv-ready">{_items(sorted(last.ready))}</ul></section>
<section><h2>Voided / kept by this event</h2><p id="pv-scope">{escape(scope)}</p></section>
<section><h2>Metrics (whole run)</h2><table class="metrics">{metric_rows}</table></section>
</div>
</main>
<section class="wide"><h2>Event log</h2><div class="log"><table>
<thead><tr><th>#</th><th>time</th><th>kind</th><th>step</th><th>message</th></tr></thead>
<tbody id="pv-log">{_log_rows(run.events)}</tbody></table></div></section>
<section class="wide"><h2>Timeline: the run against the critical path</h2><div class="gantt">{gantt}</div></section>
{templates}<script type="application/json" id="planviz-data">{script_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""


def _time(t: float) -> str:
    return f"{float(t):g}"


def _caption(run: Any, i: int, unit: str) -> str:
    """The caption of frame ``i`` as the page's script writes it (the static page shows the last frame's)."""
    e = run.events[i]
    what = f"Event {i} of {len(run.events) - 1}: {e.kind}" + (f" {e.step}" if e.step else "")
    rest = f" at t={_time(e.time)}" + (f" {unit}" if unit else "")
    rest += f" \u2014 {e.message}" if e.message else ""
    rest += f" (plan v{e.plan_version})" if e.plan_version > 1 else ""
    return f"<b>{escape(what)}</b>{escape(rest)}"


def _items(items: Sequence[str]) -> str:
    if not items:
        return '<li class="empty">(none)</li>'
    return "".join(f"<li>{escape(x)}</li>" for x in items)


def _log_rows(events: Sequence[Any]) -> str:
    last = len(events) - 1
    return "".join(
        f'<tr{" class=" + chr(34) + "current" + chr(34) if i == last else ""}><td>{i}</td>'
        f'<td>{_time(e.time)}</td><td>{escape(e.kind)}</td><td>{escape(e.step or "")}</td>'
        f'<td>{escape(e.message or "")}</td></tr>' for i, e in enumerate(events))
