"""The what-if picture: a recorded run's timeline with what the faults void, keep and re-run (:func:`render_what_if`).

One row per step that ran, in the order they first started. The thick upper
bar is each recorded attempt, in the look of its fate under the faults: kept
(verified work that stands) or voided, after the model call that led to it
(thin, as in the timeline chart); the thin lower bar is each attempt of
the replay (:attr:`planviz.WhatIf.run`) on the same clock, coloured like the
timeline chart's bars (done, failed, voided, running). A re-run step's label
says so. The looks are those of :mod:`planviz.pictures.style`; every piece of
text is escaped (step ids come from untrusted traces).

>>> from planviz import Fault, examples, simulate, what_if
>>> w = what_if(simulate(examples.load("cache_isolation")), faults=[Fault("S4", "side_effect")])
>>> svg = render_what_if(w)
>>> svg.startswith("<svg") and svg.count('class="pv-row"') == 5 and svg.count("pv-recorded pv-voided") == 2
True
"""

from __future__ import annotations

from planviz.errors import expect_type
from planviz.pictures.escape import escape_html, escape_label
from planviz.pictures.gantt import Bar, _axis, _paint, bars
from planviz.pictures.style import LOOKS, TIMELINE
from planviz.runs.hindsight.whatif import FINAL_ANSWER, WhatIf

__all__ = ["render_what_if"]

_LABEL_W, _CHART_W, _PAD, _ROW_H, _TOP = 118, 600, 16, 22, 46


def _text(value: object, limit: int = 1000) -> str:
    """Untrusted text for the SVG: control characters shown as symbols (:func:`escape_label`), then escaped."""
    return escape_html(escape_label(value, limit=limit, target="text"))


def _look(name: str) -> str:
    """The fill, outline and dash of a look of :data:`planviz.pictures.style.LOOKS`."""
    look = LOOKS[name]
    dash = (
        ' stroke-dasharray="3 2"'
        if look.dash == "dashed"
        else ' stroke-dasharray="1 2"'
        if look.dash
        else ""
    )
    return f' fill="{look.fill}" stroke="{look.stroke}" stroke-width="1.5"{dash}'


def _recorded_bars(w: WhatIf, t0: float) -> tuple[list[Bar], list[Bar]]:
    """The recorded attempts (the final answer's model calls standing for its step), and the model calls that
    led to each step (part of its time in the replay), on the recorded clock from its first event."""
    out = [Bar(b.step, b.start - t0, b.end - t0, b.result) for b in bars(w.recorded)]
    models = []
    for c in w.recorded.model_calls:
        if c.duration is None:
            continue
        if c.step is None and FINAL_ANSWER in w.plan:
            out.append(Bar(FINAL_ANSWER, c.start - t0, c.start - t0 + c.duration, "done"))
        elif c.step is not None:
            models.append(Bar(c.step, c.start - t0, c.start - t0 + c.duration, "model"))
    return out, models


def render_what_if(what_if: WhatIf) -> str:
    """Draw ``what_if`` on the recorded timeline: each recorded attempt kept or voided, the replay beneath.

    Parameters
    ----------
    what_if : WhatIf
        From :func:`planviz.what_if`.

    Returns
    -------
    str
        An SVG document (no script, no link); save it as ``.svg`` or show it with ``IPython.display.SVG``.

    Raises
    ------
    PlanvizTypeError
        When ``what_if`` is not a WhatIf (make one with :func:`planviz.what_if`).

    Examples
    --------
    >>> from planviz import Fault, examples, simulate, what_if
    >>> w = what_if(simulate(examples.load("cache_isolation")), faults=[Fault("S1", "tool_error")])
    >>> render_what_if(w).count("pv-kept")
    2
    """
    w = expect_type(
        what_if,
        WhatIf,
        "render_what_if",
        "what_if",
        "a planviz WhatIf",
        "make one with planviz.what_if(run, faults=[...])",
    )
    t0 = w.recorded.events[0].time if w.recorded.events else 0.0
    r0 = w.run.events[0].time if w.run.events else 0.0
    recorded, models = _recorded_bars(w, t0)
    roots = {s.id: s.revises or s.id for p in w.run.plans for s in p.steps}
    replayed = [Bar(_root(b.step, roots), b.start - r0, b.end - r0, b.result) for b in bars(w.run)]
    first: dict[str, float] = {}
    for b in sorted(recorded, key=lambda b: b.start):
        first.setdefault(b.step, b.start)
    rows = sorted(
        dict.fromkeys([*w.voided, *w.kept]), key=lambda s: (s not in first, first.get(s, 0.0))
    )
    rows += [s for s in dict.fromkeys(b.step for b in replayed) if s not in rows]
    span = max([w.makespan, w.recorded_makespan, 1e-9] + [b.end for b in recorded + replayed])
    scale = _CHART_W / span
    x0, height, width = _LABEL_W, _TOP + _ROW_H * len(rows) + 24, _LABEL_W + _CHART_W + _PAD
    voided, rerun = set(w.voided), set(w.rerun)
    faults = ", ".join(map(str, w.faults)) or "no fault"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="planviz-whatif" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-x0="{x0}" data-scale="{scale:.6g}" role="img" '
        f'font-family="sans-serif" font-size="11"><title>what-if: {_text(faults)}</title>',
        _legend(),
        _axis(span, scale, x0, height, w.time_unit),
    ]
    for i, step in enumerate(rows):
        y = _TOP + i * _ROW_H
        sid = _text(step)
        fate = "voided" if step in voided else "kept" if step in w.kept else "not run"
        fate += ", re-run" if step in rerun else ""
        label = _text(step, 14) + (" \u21bb" if step in rerun else "")
        out.append(
            f'<g class="pv-row" data-step="{sid}"><title>{sid}: {fate}</title>'
            f'<text x="{x0 - 6}" y="{y + 13}" text-anchor="end">{label}</text>'
        )
        for b in models:
            if b.step == step:
                out.append(
                    f'<rect class="pv-model" x="{x0 + b.start * scale:.2f}" y="{y + 4}" '
                    f'width="{max((b.end - b.start) * scale, 2):.2f}" height="6" fill="{TIMELINE["model"]}">'
                    f"<title>{sid}: the model call that led to it {b.start:g}\u2013{b.end:g}</title></rect>"
                )
        for b in recorded:
            if b.step == step:
                look = "invalidated" if step in voided else "kept"
                out.append(
                    f'<rect class="pv-recorded pv-{"voided" if step in voided else "kept"}" '
                    f'x="{x0 + b.start * scale:.2f}" y="{y + 2}" width="{max((b.end - b.start) * scale, 2):.2f}" '
                    f'height="10"{_look(look)}><title>{sid} recorded {b.start:g}\u2013{b.end:g}: {fate}'
                    f"</title></rect>"
                )
        for b in replayed:
            if b.step == step:
                out.append(
                    f'<rect class="pv-replay pv-{b.result}" x="{x0 + b.start * scale:.2f}" y="{y + 14}" '
                    f'width="{max((b.end - b.start) * scale, 2):.2f}" height="5"{_paint(b.result)}>'
                    f"<title>{sid} what-if {b.result} {b.start:g}\u2013{b.end:g}</title></rect>"
                )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _root(sid: str, revises: dict[str, str]) -> str:
    seen = {sid}
    while revises.get(sid, sid) != sid and revises[sid] not in seen:
        sid = revises[sid]
        seen.add(sid)
    return sid


def _legend() -> str:
    items = [
        (_look("kept"), "recorded, kept", 10),
        (_look("invalidated"), "recorded, voided", 10),
        (_paint("done"), "what-if: done", 5),
        (_paint("failed"), "what-if: failed", 5),
        (_paint("voided"), "what-if: voided", 5),
        (f' fill="{TIMELINE["model"]}"', "model call", 6),
    ]
    out, x = ['<g class="pv-legend">'], 4
    for paint, text, h in items:
        out.append(
            f'<rect x="{x}" y="{9 - h // 2}" width="14" height="{h}"{paint}/><text x="{x + 18}" y="13">'
            f"{text}</text>"
        )
        x += 26 + 6 * len(text)
    out.append(f'<text x="{x}" y="13">\u21bb re-run</text></g>')
    return "".join(out)
