"""The timeline chart of the explorer and the HTML report: a run against its critical path.

One row per step: a thin bar for when the plan's schedule (forward pass)
puts it, dark when the step is critical, and a thick bar for each time the
run actually ran it, coloured by how the attempt ended (done, failed, still
running at the end, or done but later voided by a failure). A vertical line
marks the current frame's clock; the model calls a recorded run holds are drawn
in the row of the call they led to (green: the model deciding it, with its
model and tokens as tooltip); the root ``<svg>`` carries ``data-x0`` and
``data-scale`` so a script can move it (``x = x0 + time * scale``).

Every piece of text is escaped: step ids come from untrusted plan text.

>>> from planviz import examples, simulate, critical_path
>>> plan = examples.load("cache_isolation")
>>> svg = gantt_svg(simulate(plan), critical_path(plan), now=13.0, unit="min")
>>> svg.startswith("<svg") and svg.count('class="pv-row"') == 5
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from itertools import count, repeat, starmap
from operator import itemgetter
from typing import Any, Sequence

from planviz.pictures.style import AXIS, LOOKS, TIMELINE
from planviz.plan.model import natural_key
from planviz.runs.usage import model_calls

__all__ = ["Bar", "bars", "gantt_svg", "lane_columns", "BAR_LOOKS"]

#: how an attempt ended -> the look of that status (pictures/style.py, the one home of looks): a bar has the fill,
#: outline and dash its step has in every other picture
BAR_LOOKS = {
    "done": "done",
    "failed": "failed",
    "running": "running",
    "voided": "invalidated",
    "waiting": "waiting",
}
_LABEL_W, _CHART_W, _PAD, _ROW_H, _TOP = 118, 560, 16, 20, 46


@dataclass(frozen=True)
class Bar:
    """One attempt of one step: from its start event to its end (or the end of the run)."""

    step: str
    start: float
    end: float
    result: str


def bars(run: Any) -> tuple[Bar, ...]:
    """The attempts in a run, in start order, read from its start/complete/fail events.

    A completed attempt whose step a later event voids is ``voided``; one still
    open at the end is ``running``.
    """
    return tuple(starmap(Bar, _attempts(run)))


def _attempts(run: Any) -> list[tuple[str, float, float, str]]:
    """:func:`bars` as ``(step, start, end, result)`` tuples (no object per attempt), in the same order."""
    events = run.events
    if not events:
        return []
    end = float(events[-1].time)
    open_: dict[str, float] = {}
    waits: dict[str, float] = {}  # steps waiting for input, since when
    out: list[tuple[str, float, float, str]] = []
    done: dict[
        str, list[int]
    ] = {}  # the done bars of each step, by position in out: a void marks only those
    for e in events:
        voided = getattr(e, "voided", None)
        if voided:
            for sid in voided:
                for k in done.pop(sid, ()):
                    b = out[k]
                    out[k] = (b[0], b[1], b[2], "voided")
        step = e.step
        if not step:
            continue
        kind = e.kind
        if kind == "start":
            if step in waits:
                out.append((step, waits.pop(step), float(e.time), "waiting"))
            open_[step] = float(e.time)
        elif (kind == "complete" or kind == "fail") and step in open_:
            if kind == "complete":
                done.setdefault(step, []).append(len(out))
            out.append(
                (step, open_.pop(step), float(e.time), "done" if kind == "complete" else "failed")
            )
        # the attempt pauses for input: the wait is a bar of its own, to the resume
        elif kind == "wait":
            if step in open_:
                done.setdefault(step, []).append(len(out))
                out.append((step, open_.pop(step), float(e.time), "done"))
            waits[step] = float(e.time)
    out.extend((s, t, end, "running") for s, t in open_.items())
    out.extend((s, t, end, "waiting") for s, t in waits.items())
    out.sort(key=itemgetter(1, 0))
    return out


#: The row of the model calls that led to no step (a final answer).
MODEL_ROW = "(model)"


def _rows(schedule: Any, attempts: tuple[Bar, ...], models: Sequence[Bar] = ()) -> list[str]:
    planned = sorted(schedule.steps, key=lambda s: (schedule.steps[s].es, natural_key(s)))
    rows, seen = list(planned), set(planned)
    for b in list(attempts) + list(models):
        if b.step not in seen:
            seen.add(b.step)
            rows.append(b.step)
    return rows


def gantt_svg(run: Any, schedule: Any, *, now: float | None = None, unit: str = "") -> str:
    """An inline SVG Gantt chart of ``run`` against ``schedule`` (a :class:`planviz.Schedule`).

    ``now`` places the cursor (hidden when None); ``unit`` labels the time axis.
    """
    attempts = bars(run)
    models = _model_bars(run)
    rows = _rows(schedule, attempts, models)
    last = float(run.events[-1].time) if run.events else 0.0
    # a dead end may outlast the makespan
    planned_end = max((t.ef for t in schedule.steps.values()), default=0.0)
    span = max(
        [float(schedule.makespan), planned_end, last]
        + [b.end for b in attempts]
        + [b.end for b in models]
        + [1e-9]
    )
    scale = _CHART_W / span
    x0 = _LABEL_W
    height = _TOP + _ROW_H * len(rows) + 24
    width = _LABEL_W + _CHART_W + _PAD
    critical = set(schedule.critical)
    by_step: dict[str, list[Bar]] = {}
    for b in attempts:
        by_step.setdefault(b.step, []).append(b)
    models_of: dict[
        str, list[Bar]
    ] = {}  # each row's model calls, in call order: one pass, not one per row
    for b in models:
        models_of.setdefault(b.step, []).append(b)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="planviz-gantt" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-x0="{x0}" data-scale="{scale:.6g}" role="img" '
        f'font-family="sans-serif" font-size="11"><title>timeline: the run against the critical path</title>'
    ]
    out.append(_legend(any(b.result == "waiting" for b in attempts), bool(models)))
    out.append(_axis(span, scale, x0, height, unit))
    for i, step in enumerate(rows):
        y = _TOP + i * _ROW_H
        sid = escape(step)
        label = escape(step if len(step) <= 16 else step[:15] + "\u2026")
        weight = ' font-weight="bold"' if step in critical else ""
        out.append(
            f'<g class="pv-row" data-step="{sid}"><title>{sid}</title>'
            f'<text x="{x0 - 6}" y="{y + 13}" text-anchor="end"{weight}>{label}</text>'
        )
        timing = schedule.steps.get(step)
        if timing is not None:
            fill = TIMELINE["planned_critical"] if step in critical else TIMELINE["planned"]
            out.append(
                f'<rect class="pv-planned" x="{x0 + timing.es * scale:.2f}" y="{y + 2}" '
                f'width="{max((timing.ef - timing.es) * scale, 1):.2f}" height="4" fill="{fill}">'
                f"<title>{sid} planned {_num(timing.es)}\u2013{_num(timing.ef)}, slack {_num(timing.slack)}"
                f"</title></rect>"
            )
        for b in models_of.get(step, ()):
            out.append(
                f'<rect class="pv-model" x="{x0 + b.start * scale:.2f}" y="{y + 9}" '
                f'width="{max((b.end - b.start) * scale, 2):.2f}" height="6" fill="{TIMELINE["model"]}">'
                f"<title>{escape(b.result)}</title></rect>"
            )
        for b in by_step.get(step, ()):
            out.append(
                f'<rect class="pv-bar pv-{b.result}" x="{x0 + b.start * scale:.2f}" y="{y + 7}" '
                f'width="{max((b.end - b.start) * scale, 2):.2f}" height="10"{_paint(b.result)}'
                f"><title>{sid} {b.result} {_num(b.start)}\u2013{_num(b.end)}</title></rect>"
            )
        out.append("</g>")
    cursor = x0 + (now or 0.0) * scale
    hidden = ' visibility="hidden"' if now is None else ""
    out.append(
        f'<line class="planviz-now" x1="{cursor:.2f}" x2="{cursor:.2f}" y1="{_TOP - 4}" '
        f'y2="{height - 20}" stroke="{TIMELINE["now"]}" stroke-width="2"{hidden}/>'
    )
    out.append("</svg>")
    return "".join(out)


#: how many tool lanes :func:`lane_columns` draws apart (the rest share a lane "other tools")
MAX_LANES = 24
#: the lane codes' order: a pixel column several calls share is drawn as the highest of them
LANE_LOOKS = ("model", "done", "waiting", "voided", "running", "failed")


def lane_columns(run: Any) -> dict[str, Any]:
    """The calls of ``run`` as columns for the explorer's canvas timeline: the same attempts as :func:`bars` and
    the same model calls as the chart's model bars, one lane per model and per tool (then "other tools").

    ``lanes`` names the lanes (model lanes first); each call is ``lane[k]``, ``start[k]``, ``end[k]``,
    ``look[k]`` (an index into ``looks``, :data:`LANE_LOOKS`) and ``step[k]`` (an index into ``steps``; -1 for a
    model call that led to no step). ``fills`` and ``strokes`` are the looks' colours (pictures/style.py).

    >>> from planviz import examples, simulate
    >>> cols = lane_columns(simulate(examples.load("cache_isolation")))
    >>> len(cols["start"]) == len(bars(simulate(examples.load("cache_isolation")))), cols["lanes"][:1]
    (True, ['steps (no tool)'])
    """
    tool_of = {s.id: s.tool or "" for plan in run.plans for s in plan.steps}
    attempts = _attempts(run)
    lane_of = {}  # each step's lane, worked out once per step
    for sid in dict.fromkeys(map(itemgetter(0), attempts)):
        tool_name = tool_of.get(sid)
        lane_of[sid] = "tool: " + tool_name if tool_name else "steps (no tool)"
    calls: list[tuple[str, float, float, str, str | None]] = list(
        zip(
            map(lane_of.__getitem__, map(itemgetter(0), attempts)),
            map(itemgetter(1), attempts),
            map(itemgetter(2), attempts),
            map(itemgetter(3), attempts),
            map(itemgetter(0), attempts),
        )
    )
    lane_names: dict[Any, str] = {}  # each model's lane name, made once per model
    for step, c in model_calls(run):
        at, took = c.get("time"), c.get("duration")
        if isinstance(at, (int, float)) and isinstance(took, (int, float)):
            model = c.get("model")
            name = lane_names.get(model) if type(model) is str else None
            if name is None:
                name = "model: " + str(model or "?")
                if type(model) is str:
                    lane_names[model] = name
            at = float(at)
            calls.append((name, at, at + float(took), "model", step))
    ordered = sorted(calls, key=itemgetter(1, 0))
    starts = list(map(itemgetter(1), ordered))
    firsts: dict[str, float] = {}
    if any(map(math.isnan, starts)):  # no order to read the first start from
        for lane, start, *_ in calls:
            firsts[lane] = min(firsts.get(lane, start), start)
    else:  # each lane's first start is its first in start order
        firsts = dict(zip(map(itemgetter(0), reversed(ordered)), reversed(starts)))
    order = sorted(firsts, key=lambda name: (not name.startswith("model: "), firsts[name], name))
    kept = order[:MAX_LANES] + (["other tools"] if len(order) > MAX_LANES else [])
    index = {name: min(k, MAX_LANES) for k, name in enumerate(order)}
    step_ids = list(map(itemgetter(4), ordered))
    numbered = dict.fromkeys(step_ids)
    numbered.pop(None, None)
    steps = dict(zip(numbered, count()))
    out: dict[str, Any] = {
        "lanes": kept,
        "looks": list(LANE_LOOKS),
        "lane": list(map(index.__getitem__, map(itemgetter(0), ordered))),
        "start": starts,
        "end": list(map(itemgetter(2), ordered)),
        "look": list(map(LANE_LOOKS.index, map(itemgetter(3), ordered))),
        "step": list(map(steps.get, step_ids, repeat(-1))),
        "steps": list(steps),
    }
    out["fills"] = [TIMELINE["model"]] + [LOOKS[BAR_LOOKS[r]].fill for r in LANE_LOOKS[1:]]
    out["strokes"] = [TIMELINE["model"]] + [LOOKS[BAR_LOOKS[r]].stroke for r in LANE_LOOKS[1:]]
    out["now"] = TIMELINE["now"]
    return out


def _num(x: float) -> str:
    return f"{x:g}"


def _model_bars(run: Any) -> list[Bar]:
    """The model calls of a recorded run as bars in the row of the step each led to (``result``: its tooltip)."""
    out = []
    for step, c in model_calls(run):
        step = step if step is not None else MODEL_ROW
        at, took = c.get("time"), c.get("duration")
        if not isinstance(at, (int, float)) or not isinstance(took, (int, float)):
            continue
        tokens = ", ".join(
            f"{c[k]} {k.split('_')[0]} tokens"
            for k in ("input_tokens", "output_tokens")
            if isinstance(c.get(k), int)
        )
        text = (
            f"model call {c.get('model') or ''} for {step}: {_num(round(took, 6))}"
            + (" (end inferred: the trace did not record it)" if c.get("duration_inferred") else "")
            + (f", {tokens}" if tokens else "")
        )
        out.append(Bar(step, float(at), float(at) + float(took), text))
    return out


def _paint(result: str) -> str:
    """The fill, outline and dash of a bar: its status's look."""
    look = LOOKS[BAR_LOOKS[result]]
    dash = (
        ' stroke-dasharray="3 2"'
        if look.dash == "dashed"
        else ' stroke-dasharray="1 2"'
        if look.dash
        else ""
    )
    return f' fill="{look.fill}" stroke="{look.stroke}" stroke-width="1.5"{dash}'


def _legend(waiting: bool = False, models: bool = False) -> str:
    items = [
        (f' fill="{TIMELINE["planned_critical"]}"', "planned (critical path)", 4),
        (f' fill="{TIMELINE["planned"]}"', "planned", 4),
    ]
    items += [
        (_paint(r), text, 10)
        for r, text in (
            ("done", "done"),
            ("failed", "failed"),
            ("running", "running"),
            ("voided", "voided"),
            ("waiting", "waits for input"),
        )
        if r != "waiting" or waiting
    ]
    items += [(f' fill="{TIMELINE["model"]}"', "model call", 6)] if models else []
    out, x = ['<g class="pv-legend">'], 4
    for paint, text, h in items:
        out.append(
            f'<rect x="{x}" y="{9 - h // 2}" width="14" height="{h}"{paint}/>'
            f'<text x="{x + 18}" y="13">{text}</text>'
        )
        x += 26 + 6 * len(text)
    out.append("</g>")
    return "".join(out)


def _axis(span: float, scale: float, x0: float, height: int, unit: str) -> str:
    step = _tick(span)
    out = [f'<g class="pv-axis" stroke="{AXIS["line"]}">']
    t = 0.0
    while t <= span + 1e-9:
        x = x0 + t * scale
        out.append(
            f'<line x1="{x:.2f}" x2="{x:.2f}" y1="{_TOP - 8}" y2="{height - 20}"/>'
            f'<text x="{x:.2f}" y="{_TOP - 12}" text-anchor="middle" stroke="none" fill="{AXIS["text"]}">'
            f"{_num(round(t, 6))}</text>"
        )
        t += step
    label = f"time ({escape(unit)})" if unit else "time"
    out.append(
        f'<text x="{x0}" y="{height - 6}" stroke="none" fill="{AXIS["text"]}">{label}</text></g>'
    )
    return "".join(out)


def _tick(span: float) -> float:
    """A round tick spacing giving at most ~10 ticks."""
    raw = span / 10
    base: float = 10 ** int(f"{raw:e}".split("e")[1])
    for m in (1, 2, 5, 10):
        if base * m >= raw:
            return base * m
    return base * 10
