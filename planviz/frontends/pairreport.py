"""The two-run HTML report: ``report_html([a, b], path)``, one self-contained page, one stepper driving both.

The page shows run ``a`` and run ``b`` at the same event index, side by side
(each side keeps its last frame once its run has ended), what
:func:`planviz.diff_runs` found (first divergence, steps in one run only,
changed steps, time and cost, with a button to jump to the divergence), and
both event logs. Like the one-run report it needs no kernel and no network:
frames are packed with :func:`pack_frames` (every frame's SVG, cut into
shared chunks: unlike the one-run report, which lays each plan version out
once and restyles it, this page holds each frame), data travels as
:func:`~planviz.frontends.htmlreport.script_json`, and a
Content-Security-Policy allows only the page's own script, by its hash.

>>> import tempfile, pathlib
>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> out = pair_report([simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")])],
...                   pathlib.Path(tempfile.mkdtemp()) / "pair.html")
>>> text = out.read_text(encoding="utf-8")
>>> "first divergence: event 10" in text and "https://" not in text
True
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from ..errors import PlanvizError, PlanvizTypeError
from ..plan.output import write_output
from ..pictures.escape import escape_html as escape
from ..runs.events import Run
from ..runs.rundiff import diff_runs
from .page import asset, content_security_policy, script_json
from .panels import event_row, frame_svg

__all__ = ["pair_report", "pack_frames", "unpack_frames"]

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


def pair_report(runs: Sequence[Any], path: str | Path, labels: Sequence[str] = ("a", "b")) -> Path:
    """Write two runs as one self-contained HTML page at ``path``; returns the path."""
    runs = list(runs)
    if len(runs) != 2 or not all(isinstance(r, Run) for r in runs):
        raise PlanvizTypeError(f"report_html([a, b], path) compares exactly two planviz Runs, got "
                               f"{len(runs)} item(s): {', '.join(type(r).__name__ for r in runs)}")
    for label, run in zip(labels, runs):
        if not run.events or not run.plans:
            raise PlanvizError(f"run {label} has no events or no plan, so there is nothing to step through")
    diff = diff_runs(*runs)
    sides = []
    for label, run in zip(labels, runs):
        chunks, frames = pack_frames([frame_svg(run, i) for i in range(len(run.events))])
        sides.append({"label": str(label), "chunks": chunks, "frames": frames, "unit": run.plans[0].time_unit,
                      "events": [event_row(run, i) for i in range(len(run.events))]})
    data = {"sides": sides, "divergence": diff.first_divergence,
            "n": max(len(r.events) for r in runs)}
    path = Path(path)
    write_output(path, _page(runs, list(labels), diff, data))
    return path


def _page(runs: list[Run], labels: list[str], diff: Any, data: dict) -> str:
    script = asset("stepper.js") + asset("pairreport.js")
    csp = content_security_policy(script)
    goal = runs[0].plans[0].goal
    heads = "".join(f'<section class="side" id="pv-side-{k}"><h2>{escape(label)} &middot; outcome '
                    f'{escape(str(run.outcome))}</h2><p class="caption" id="pv-caption-{k}" aria-live="polite"></p>'
                    f'<div class="diagram" id="pv-diagram-{k}"></div></section>'
                    for k, (label, run) in enumerate(zip(labels, runs)))
    logs = "".join(f'<section class="side"><h2>Event log {escape(label)}</h2><div class="log"><table><tbody '
                   f'id="pv-log-{k}">{_rows(side["events"])}</tbody></table></div></section>'
                   for k, (label, side) in enumerate(zip(labels, data["sides"])))
    n = data["n"]
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planviz: two runs of {escape(goal)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header><h1>{escape(goal)}</h1>
<p>two runs, one stepper &middot; generated by planviz, works offline</p></header>
<nav class="stepper" aria-label="step through both runs">
<button type="button" id="pv-first">&laquo; first</button>
<button type="button" id="pv-prev">&#x25C0; prev</button>
<button type="button" id="pv-play">&#x25B6; play</button>
<button type="button" id="pv-next">next &#x25B6;</button>
<button type="button" id="pv-last">last &raquo;</button>
<input type="range" id="pv-slider" min="0" max="{n - 1}" value="0" aria-label="event">
<button type="button" id="pv-diverge"{'' if diff.first_divergence is not None else ' disabled'}>first divergence</button>
</nav>
<p id="pv-where" class="caption"></p>
<main>{heads}</main>
<section class="wide"><h2>What differs</h2><pre id="pv-diff">{escape(diff.to_text())}</pre></section>
<div class="logs">{logs}</div>
<script type="application/json" id="planviz-data">{script_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""


def _rows(events: list[dict]) -> str:
    return "".join(f'<tr data-i="{e["index"]}"><td>{e["index"]}</td><td>{e["time"]:g}</td><td>{escape(e["kind"])}'
                   f'</td><td>{escape(e["step"])}</td><td>{escape(e["message"])}</td></tr>' for e in events)


_STYLE = """
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; }
body { margin: 0 auto; max-width: 1500px; padding: 12px 16px; }
h1 { font-size: 1.25rem; margin: 0 0 4px; } h2 { font-size: 0.95rem; margin: 0 0 6px; }
header p { margin: 0 0 10px; color: #444; }
.stepper { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.stepper button { font: inherit; padding: 4px 10px; cursor: pointer; }
.stepper button:focus-visible, .stepper input:focus-visible { outline: 3px solid #0072B2; outline-offset: 1px; }
#pv-slider { flex: 1; min-width: 200px; }
.caption { margin: 6px 0; min-height: 1.3em; font-size: 0.9rem; }
main, .logs { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.diagram { border: 1px solid #ddd; overflow: auto; max-height: 60vh; background: #fff; }
.diagram svg { max-width: 100%; height: auto; }
.diverged { background: #fbe3d6; font-weight: 600; padding: 0 4px; }
pre { font-size: 0.85rem; white-space: pre-wrap; background: #f8f8f8; padding: 6px; }
table { border-collapse: collapse; font-size: 0.8rem; width: 100%; }
td { padding: 1px 5px; text-align: left; vertical-align: top; border-bottom: 1px solid #eee; }
.log { max-height: 14em; overflow: auto; border: 1px solid #ddd; }
tr.current { background: #fff3c4; font-weight: 600; }
.wide { margin-top: 12px; }
@media (max-width: 900px) { main, .logs { grid-template-columns: 1fr; } }
"""
