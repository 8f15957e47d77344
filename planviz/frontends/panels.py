"""What the explorer and the HTML report both show: a frame's picture, an event's row, the metrics.

The two front ends present the same run the same way; these functions are
the one place that turns a run into what they display. Nothing here imports
ipywidgets.

>>> from planviz import examples, simulate
>>> run = simulate(examples.load("cache_isolation"))
>>> event_row(run, 1)["kind"], frame_svg(run, 1).startswith("<svg")
('start', True)
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Sequence

from planviz.errors import FrameIndexError, PlanvizError
from planviz.io.syntax import show_value
from planviz.pictures.diagram import Diagram
from planviz.pictures.drawing import render
from planviz.pictures.escape import escape_html as escape
from planviz.pictures.fatepicture import render_alignment
from planviz.pictures.style import LEGEND_TEXT, LOOKS
from planviz.plan.model import natural_key
from planviz.runs.events import EVENT_KINDS, Run
from planviz.runs.modelcall import FIGURES
from planviz.runs.summary.runsummary import run_summary
from planviz.runs.usage import UNITS, time_unit

__all__ = [
    "event_index",
    "SliderIndex",
    "plan_of",
    "version_options",
    "frame_diagram",
    "frame_svg",
    "inline_svg",
    "legible_width",
    "LEGIBLE_PX",
    "event_row",
    "metrics_rows",
    "metrics_html",
    "fault_html",
    "fault_text",
    "caption_text",
    "caption_line",
    "legend_html",
    "outcome_label",
    "list_html",
    "caption_html",
    "log_html",
    "alignment_html",
]

_LOG_WINDOW = 40

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_VIEWBOX = re.compile(r'<svg\b[^>]*?\bviewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) [0-9.]+"')
_FONT_SIZE = re.compile(r'\bfont-size="([0-9.]+)"')
#: The smallest text a picture shown in a page may have, in CSS pixels: below it, shrink no further and scroll.
LEGIBLE_PX = 9.0


def plan_of(run: Any, index: int) -> Any:
    """The plan version shown by event ``index`` of ``run``."""
    if not run.plans:
        raise PlanvizError(
            "this run carries no plan, so its frames cannot be drawn; "
            "record the plan with the run (Recorder.propose) and load the trace again"
        )
    return run.plan_at(index) if run.events else run.plans[-1]


def version_options(plan: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Render ``options`` for one plan version of a run: a focus on steps this version lacks (a replan renamed
    them) falls back to the default view, so every version can be drawn."""
    focus = options.get("focus")
    if focus is None:
        return options
    kept = [sid for sid in ([focus] if isinstance(focus, str) else focus) if sid in plan]
    return {**options, "focus": (kept[0] if isinstance(focus, str) else kept) if kept else None}


def frame_diagram(run: Any, index: int, **options: Any) -> Diagram:
    """Render's picture of event ``index`` (laid out once per plan version and view); ``options`` go to render."""
    plan = plan_of(run, index)
    return render(plan, run=run, at=index, **version_options(plan, options))


def frame_svg(run: Any, index: int, **options: Any) -> str:
    """The inline SVG (no XML prolog) of event ``index``: render's picture, laid out once per plan version."""
    return inline_svg(frame_diagram(run, index, **options).svg)


def inline_svg(svg: str) -> str:
    """The SVG without its XML prolog, to sit inside HTML."""
    return _PROLOG.sub("", svg, count=1)


def legible_width(svg: str, smallest: float = LEGIBLE_PX) -> int:
    """The narrowest width (CSS pixels) at which every text of ``svg`` still shows at ``smallest`` pixels or
    more: a page that fits a picture to its width stops shrinking there and scrolls instead.

    >>> from planviz import examples, render
    >>> svg = render(examples.load("cache_isolation")).svg
    >>> width = legible_width(svg)
    >>> 0 < width < float(_VIEWBOX.search(svg).group(1)) * 4 / 3  # narrower than its natural size (1 pt = 4/3 px)
    True
    """
    box = _VIEWBOX.search(svg)
    sizes = [float(x) for x in _FONT_SIZE.findall(svg) if float(x) > 0]
    if box is None or not sizes:
        return 0
    return math.ceil(float(box.group(1)) * smallest / min(sizes))


def event_row(run: Run, index: int) -> dict[str, Any]:
    """The JSON-able summary of event ``index`` and the frame after it (sorted lists, plain types)."""
    event, frame = run.events[index], run.frame(index)
    return {
        "index": int(event.index),
        "time": float(event.time),
        "kind": str(event.kind),
        "step": event.step or "",
        "message": str(event.message or ""),
        "version": int(event.plan_version),
        "facts": sorted(frame.facts),
        "ready": sorted(frame.ready, key=natural_key),
        "voided": sorted(getattr(event, "voided", ()) or (), key=natural_key),
        "kept": sorted(getattr(event, "kept", ()) or (), key=natural_key),
    }


def outcome_label(run: Any) -> str:
    """How a run ended, for people: its outcome, or ``unfinished`` when it never stopped (a crashed agent).

    >>> from types import SimpleNamespace
    >>> outcome_label(SimpleNamespace(outcome=None)), outcome_label(SimpleNamespace(outcome="blocked"))
    ('unfinished', 'blocked')
    """
    return str(run.outcome) if run.outcome is not None else "unfinished"


def metrics_rows(run: Any) -> list[tuple[str, str]]:
    """(name, value) pairs of :func:`planviz.metrics` for display, in the metrics' own order (``Metrics.cells``,
    times with their unit), then the tokens and cost the run records (:func:`planviz.run_usage`, the one count of
    usage) and its :func:`planviz.hindsight`, all read from the run's one summary (:func:`planviz.run_summary`).

    >>> from planviz import examples, simulate
    >>> rows = dict(metrics_rows(simulate(examples.load("cache_isolation"))))
    >>> rows["model calls"], rows["time"], rows["hindsight"]
    ('1', '29 min', '29 min ran, 29 min possible: nothing waited that did not need to')
    """
    unit = time_unit(run)
    summary = run_summary(run)
    out = [
        (
            name.replace("_", " "),
            f"{shown} {unit}"
            if name in ("time", "critical_path_delay") and shown not in ("-", "unknown")
            else shown,
        )
        for name, shown in summary.metrics.cells()
    ]
    usage = summary.usage
    for name in FIGURES:
        value = getattr(usage, name)
        if value is not None:
            out.append(
                (
                    name.replace("_", " "),
                    f"{value:.3g} {UNITS[name]}"
                    if isinstance(value, float)
                    else f"{value} {UNITS[name]}",
                )
            )
    if getattr(run, "events", None):
        h = summary.hindsight
        out.append(("hindsight", h.summary()))
        if h.data_edges:
            shown = "; ".join(f"{v} waits for {u} ({why})" for u, v, why in h.data_edges[:5])
            out.append(
                (
                    "data edges",
                    shown
                    + (f"; and {len(h.data_edges) - 5} more" if len(h.data_edges) > 5 else ""),
                )
            )
        if h.plan is not None and h.path:
            out.append(
                (
                    "ideal schedule",
                    " -> ".join(h.path) + " (planviz hindsight TRACE --plan ideal.yaml "
                    "writes it as a plan)",
                )
            )
    return out


def metrics_html(run: Any) -> str:
    """The metrics of ``run`` as a small table."""
    rows = "".join(
        f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in metrics_rows(run)
    )
    return f'<table class="pv-log"><tbody>{rows}</tbody></table>'


def fault_html(faults: Sequence[Any], run: Any, error: str = "") -> str:
    """What the injected faults did to ``run`` (voided, kept, outcome), or an ``error`` to show instead."""
    if error:
        return f'<span class="pv-error">{escape(error)}</span>'
    if not faults:
        return (
            '<span class="pv-empty">no fault injected: pick a step and a kind, then Inject</span>'
        )
    voided = sorted(
        {s for e in run.events for s in (getattr(e, "voided", ()) or ())}, key=natural_key
    )
    kept = sorted(
        {s for e in run.events for s in (getattr(e, "kept", ()) or ())} - set(voided),
        key=natural_key,
    )
    return (
        f'<span class="pv-scope">faults: {escape(", ".join(str(f) for f in faults))}<br>voided: '
        f"{escape(', '.join(voided) or '(none)')}<br>kept: {escape(', '.join(kept) or '(none)')}<br>"
        f"outcome: {escape(outcome_label(run))}</span>"
    )


def fault_text(faults: Sequence[Any], run: Any) -> str:
    """What the injected faults did to ``run`` (voided, kept, outcome), as lines of plain text."""
    if not faults:
        return "no fault injected: pick a step and a kind, then Inject"
    voided = sorted(
        {s for e in run.events for s in (getattr(e, "voided", ()) or ())}, key=natural_key
    )
    kept = sorted(
        {s for e in run.events for s in (getattr(e, "kept", ()) or ())} - set(voided),
        key=natural_key,
    )
    return (
        f"faults: {', '.join(str(f) for f in faults)}\nvoided: {', '.join(voided) or '(none)'}\n"
        f"kept: {', '.join(kept) or '(none)'}\noutcome: {outcome_label(run)}"
    )


def caption_line(i: int, n: int, row: Sequence[Any], unit: str, version: int) -> tuple[str, str]:
    """The caption of event ``i`` of ``n`` from its log row (time, kind, step, message): the bold part and the
    rest, as the front-end module (``explorer.js``) writes them."""
    head = f"Event {i} of {n - 1}: {row[1]}" + (f" {row[2]}" if row[2] else "")
    rest = (
        f" at t={row[0]}" + (f" {unit}" if unit else "") + (f" \u2014 {row[3]}" if row[3] else "")
    )
    return head, rest + (f" (plan v{version})" if version > 1 else "")


def caption_text(run: Any, i: int) -> str:
    """The caption of frame ``i`` of ``run`` as plain text, as the front end shows it."""
    e = run.events[i]
    head, rest = caption_line(
        i,
        len(run.events),
        (f"{float(e.time):g}", e.kind, e.step or "", e.message or ""),
        run.plans[0].time_unit,
        e.plan_version,
    )
    scope = ""
    if e.voided or e.kept:
        scope = (
            f"\nvoided: {', '.join(sorted(e.voided, key=natural_key)) or '(none)'}; "
            f"kept: {', '.join(sorted(e.kept, key=natural_key)) or '(none)'}"
        )
    return head + rest + scope


def legend_html(keys: Iterable[str]) -> str:
    """A legend of the looks ``keys`` (a diagram's ``legend``: what is on screen), one swatch per look drawn
    with its fill, outline colour, width and dash."""
    items = []
    for key in keys:
        look = LOOKS[key]
        style = "double" if look.double else look.dash or "solid"
        width = 4 if look.double else max(1, round(look.penwidth))
        items.append(
            f'<li class="pv-legend-{key}"><span class="pv-swatch" style="display:inline-block;'
            f"width:22px;height:12px;margin-right:6px;vertical-align:middle;border-radius:3px;"
            f'background:{look.fill};border:{width}px {style} {look.stroke}"></span>'
            f"{escape(LEGEND_TEXT[key])}</li>"
        )
    return (
        (
            '<ul class="pv-legend" style="list-style:none;margin:0;padding:0;font-size:12px;line-height:2">'
            + "".join(items)
            + "</ul>"
        )
        if items
        else ""
    )


def list_html(items: Iterable[str]) -> str:
    """An HTML list of escaped items, or a note that there are none."""
    items = list(items)
    if not items:
        return '<ul class="pv-list"><li class="pv-empty">(none)</li></ul>'
    return '<ul class="pv-list">' + "".join(f"<li>{escape(str(x))}</li>" for x in items) + "</ul>"


def caption_html(e: dict[str, Any], n: int, time_unit: str = "") -> str:
    """The caption of one frame: event, time, message, plan version and what it voided and kept."""
    unit = f" {escape(time_unit)}" if time_unit else ""
    what = escape(e["kind"] + (f" {e['step']}" if e["step"] else ""))
    text = f'<span class="pv-caption"><b>Event {e["index"]} of {n - 1}: {what}</b> at t={e["time"]:g}{unit}'
    if e["message"]:
        text += f" &mdash; {escape(e['message'])}"
    if e["version"] > 1:
        text += f" (plan v{e['version']})"
    if e["voided"] or e["kept"]:
        text += (
            f'<br><span class="pv-scope">voided: {escape(", ".join(e["voided"]) or "(none)")}; '
            f"kept: {escape(', '.join(e['kept']) or '(none)')}</span>"
        )
    return text + "</span>"


def log_html(events: Sequence[Any], index: int) -> str:
    """A window of the event log around event ``index``, the current row marked; each row's class names its
    kind (``pv-kind-recheck``...), so the new kinds of a run (recheck, expand, approval) stand out."""
    lo = max(0, index - 3)  # the current event stays near the top of the box
    rows = []
    for e in events[lo : lo + _LOG_WINDOW]:
        current = e.index == index
        kind = e.kind if e.kind in EVENT_KINDS else "other"  # a class name, so only the known kinds
        mark = f' class="pv-kind-{kind}{" pv-current" if current else ""}"'
        rows.append(
            f"<tr{mark}><td>{'&#x25B6;' if current else ''}{int(e.index)}</td><td>{float(e.time):g}</td>"
            f"<td>{escape(str(e.kind))}</td><td>{escape(e.step or '')}</td>"
            f"<td>{escape(str(e.message or ''))}</td></tr>"
        )
    more = (
        f'<p class="pv-empty">events {lo}..{lo + len(rows) - 1} of 0..{len(events) - 1}</p>'
        if len(rows) < len(events)
        else ""
    )
    return (
        f'{more}<table class="pv-log"><thead><tr><th>#</th><th>time</th><th>kind</th><th>step</th>'
        f"<th>message</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def alignment_html(plan: Any, run: Run) -> str:
    """The alignment of ``plan`` with ``run``: its picture (inline SVG) and the table of fates."""
    try:
        alignment = run_summary(run).alignment(plan)
        svg = _PROLOG.sub("", render_alignment(alignment).svg, count=1)
    except PlanvizError as exc:
        return f'<p class="pv-empty">no alignment: {escape(str(exc))}</p>'
    return f'<div class="pv-alignment">{svg}{alignment._repr_html_()}</div>'


def event_index(value: Any, n: int) -> int:
    """``value`` as an index into ``n`` events (negative counts from the end), or FrameIndexError saying why.

    >>> event_index(-1, 5), event_index(2, 5)
    (4, 2)
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise FrameIndexError(f"event index must be an int, got {show_value(value)}")
    if not -n <= value < n:
        raise FrameIndexError(
            f"event index {show_value(value)} is outside this run; it has events 0..{n - 1}"
        )
    return value % n


class SliderIndex:
    """``index``, the event a stepper shows, for widgets whose ``slider`` holds it: read it, or set it
    (negative counts from the end, like a list). The widget says how many events it steps through."""

    slider: Any

    def _event_count(self) -> int:
        return int(self.slider.max) + 1

    @property
    def index(self) -> int:
        """The event shown now; settable (negative counts from the end, like a list)."""
        value: int = self.slider.value
        return value

    @index.setter
    def index(self, value: int) -> None:
        self.slider.value = event_index(value, self._event_count())
