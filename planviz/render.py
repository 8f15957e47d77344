"""Pictures of plans, validation findings and run frames, drawn by Graphviz and safe with untrusted text.

:func:`render` turns a plan (and optionally a run and an event index, or a
validation report) into a :class:`Diagram`: one left-to-right ``dot`` picture
that shows itself in a notebook and saves as SVG, PNG or DOT. Each node shows
the step id, kind and duration, its action (wrapped) and, in a run frame, its
status; edges carry the facts that flow along them; the critical path (from
:func:`planviz.analysis.critical_path`) is bold; a legend explains the colours
(Okabe-Ito, safe for colour-blind readers, on a white card that reads on dark
notebook themes too).

Every SVG node group is ``<g id="node-<id>" class="node status-<status> ...">``
(the id encoded by :func:`planviz._escape.dom_id`), every edge group
``<g id="edge-<u>-><v>" class="edge ...">``, so a test or a browser can query
them. The layout is computed once per plan version and kept (a small memo of
a pure function); every frame of a run restyles that picture by node id, so
stepping through a run never lays the graph out again. Plan text is untrusted:
see :mod:`planviz._escape`.

>>> from planviz import examples
>>> d = render(examples.load("cache_isolation"))
>>> d.svg.count('class="node status-pending critical')
4
>>> 'id="edge-S0->S1"' in d.svg.replace("&#45;", "-").replace("&gt;", ">")
True
"""

from __future__ import annotations

import functools
import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import networkx as nx
import pygraphviz as pgv

from ._escape import check_svg, checked_attrs, dom_id, escape_label
from ._style import (EDGE_COLOUR, LEGEND_TEXT, LOOKS, STATUS_PLACEHOLDER, FrameState, Look, Mark, edge_marks,
                     frame_state, legend_keys, node_attrs, run_looks, node_marks, num, step_tooltip, tip)
from ._layout import SLOT, Layout, draw_positioned, frame_template, lay_out
from .analysis import critical_path, ready_waves
from .errors import LayoutTimeout, PlanvizError, RenderError
from .graph import to_graph
from .model import STATUSES, Plan

__all__ = ["render", "Diagram", "Look", "LOOKS", "HIGHLIGHTS", "FORMATS"]

FONT = "Helvetica,Arial,sans-serif"
HIGHLIGHTS = ("critical",)
FORMATS = (".svg", ".png", ".dot")
_DASH_SVG = {"dashed": "5,2", "dotted": "1,5", "": None}
_EVENT_LINES, _EVENT_WIDTH = 2, 80


@dataclass(frozen=True)
class _Base:
    """A plan drawn once: the layout plus what frames need to restyle it (``layout`` None: it timed out)."""

    layout: Layout | None
    labels: Mapping[str, str]
    tips: Mapping[Any, str]  # step id or (u, v) -> tooltip text
    edges: tuple[tuple[str, str], ...]
    caption: str
    run_mode: bool
    notice: str = ""
    template: str = ""
    slots: tuple[tuple[str, Any], ...] = ()


class Diagram:
    """A picture of a plan or of one moment of a run.

    ``svg`` is the SVG text (it always parses as XML and holds no script,
    handler, link, ``foreignObject`` or image); ``dot`` the positioned
    Graphviz source; :meth:`save` writes ``.svg``, ``.png`` or ``.dot``. In a
    notebook it shows itself inline (``text/html`` with the ``<svg>`` element,
    so the DOM can be inspected, plus ``image/svg+xml``). ``notice`` says why a
    summary picture was drawn instead of the full plan (``summarized``).
    """

    def __init__(self, svg: str, frame: Callable[[], tuple[str, tuple, tuple, str]], *, notice: str = "",
                 summarized: bool = False, at: int | None = None) -> None:
        self.svg = svg
        self._frame = frame
        self.notice = notice
        self.summarized = summarized
        self.at = at

    def _graph(self) -> pgv.AGraph:
        positioned, nodes, edges, caption = self._frame()
        g = pgv.AGraph(string=positioned)
        for name, attrs in nodes:
            g.get_node(name).attr.update(checked_attrs(dict(attrs)))
        for (u, v), attrs in edges:
            g.get_edge(u, v).attr.update(checked_attrs(dict(attrs)))
        if caption:
            g.graph_attr.update(checked_attrs({"label": caption}))
        return g

    @functools.cached_property
    def dot(self) -> str:
        """The Graphviz source of this picture, with positions (``pos``), styles and labels."""
        return self._graph().string()

    def png(self, dpi: float = 96.0) -> bytes:
        """The picture as PNG bytes at ``dpi`` (drawn from the stored positions, without a new layout)."""
        g = self._graph()
        g.graph_attr.update(checked_attrs({"dpi": num(float(dpi))}))
        return draw_positioned(g, "png")

    def save(self, path: str | Path, *, dpi: float = 96.0) -> Path:
        """Write the picture; the suffix (``.svg``, ``.png`` or ``.dot``) chooses the format (``dpi``: PNG only)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            raise RenderError(f"cannot save a diagram as {str(path)!r}: unknown suffix {suffix!r}; "
                              f"use one of {', '.join(FORMATS)}")
        if suffix == ".png":
            path.write_bytes(self.png(dpi))
        else:
            path.write_text(self.svg if suffix == ".svg" else self.dot, encoding="utf-8")
        return path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        inline = self.svg[self.svg.find("<svg"):]
        note = f'<p style="margin:0 0 4px 0">{html.escape(self.notice)}</p>' if self.notice else ""
        card = ('<div class="planviz-diagram" style="background:#ffffff;color:#000000;display:inline-block;'
                f'max-width:100%;overflow:auto;padding:4px;border-radius:4px">{note}{inline}</div>')
        return {"text/html": card, "image/svg+xml": self.svg}

    def __repr__(self) -> str:
        what = "summary" if self.summarized else "plan" if self.at is None else f"frame {self.at}"
        return f"<planviz.Diagram ({what}): .svg {len(self.svg)} chars; .save('out.svg'|'out.png'|'out.dot')>"


def render(plan: Plan, run: Any = None, at: int | None = None, report: Any = None,
           highlight: Iterable[str] = ("critical",), *, max_nodes: int = 2000, timeout: float = 60.0) -> Diagram:
    """Draw a plan, or the moment ``at`` (an event index, default the last) of a ``run``.

    In a run frame, statuses come from ``run.events[at].statuses``, the voided
    and kept steps from the latest ``invalidate`` event of that plan version,
    conflicts from its ``conflict`` events; the plan drawn is the run's plan of
    that version when the run holds it. ``report`` (a validation
    :class:`~planviz.validate.Report`) and ``plan.import_findings`` outline the
    steps they name (red for errors, orange for warnings) with the messages as
    tooltips, and colour a cycle's edges red. ``highlight`` may contain
    ``"critical"`` (bold critical path).

    Plans with more than ``max_nodes`` steps are laid out in a child process
    killed after ``timeout`` seconds; if it does not finish, or the plan has
    more than ten times ``max_nodes`` steps, the diagram is a summary (one
    node per group of ready waves, with counts) and ``diagram.notice`` says why.

    >>> from planviz.model import Plan, Step
    >>> d = render(Plan("g", [Step("A", "a", duration=2), Step("B", "b", depends_on="A")]))
    >>> d.svg.count('class="node status-pending')
    2
    >>> d.save("out.gif")
    Traceback (most recent call last):
    ...
    planviz.errors.RenderError: cannot save a diagram as 'out.gif': unknown suffix '.gif'; use one of .svg, .png, .dot
    """
    if not isinstance(plan, Plan):
        raise RenderError(f"render expects a planviz Plan, got {type(plan).__name__}: {plan!r:.80}")
    wanted = (highlight,) if isinstance(highlight, str) else tuple(highlight or ())
    unknown = [h for h in wanted if h not in HIGHLIGHTS]
    if unknown:
        raise RenderError(f"unknown highlight {unknown[0]!r}; choose from {', '.join(map(repr, HIGHLIGHTS))}")
    frame, event, index = None, None, None
    if run is not None and getattr(run, "events", None):
        events = run.events
        index = len(events) - 1 if at is None else at
        if not isinstance(index, int) or not -len(events) <= index < len(events):
            raise RenderError(f"at={at!r} is outside the run's events; choose 0..{len(events) - 1}")
        index %= len(events)
        event = events[index]
        plan = {p.version: p for p in getattr(run, "plans", ()) or ()}.get(event.plan_version, plan)
        frame = frame_state(events, index)
    elif at is not None:
        raise RenderError(f"at={at!r} needs a run with events; pass run=simulate(plan) or a loaded trace")

    findings = tuple(dict.fromkeys(tuple(plan.import_findings) + tuple(getattr(report, "findings", ()) or ())))
    schedule, why_not = _schedule(plan) if "critical" in wanted else (None, "")
    n = len(plan.ids)
    if n > 10 * max_nodes:
        return _summary(plan, frame, f"This plan has {n} steps, more than {10 * max_nodes} (ten times "
                                     f"max_nodes={max_nodes}): it is too big to draw in full.", index)
    crit_nodes, crit_edges = _critical(plan, schedule)
    legend = legend_keys(plan, frame is not None, bool(crit_nodes), findings,
                         run_looks(run.events) if frame is not None else None)
    caption = _caption(plan, schedule, why_not, findings)
    notes = _slack_notes(plan, schedule) + _finding_notes(findings)
    key = (plan, frame is not None, legend, crit_edges, caption, notes, n > max_nodes, float(timeout))
    try:
        hash(key)
    except TypeError:  # a plan holding an unhashable value (hand-built): draw it without the memo
        base = _base.__wrapped__(*key)
    else:
        base = _base(*key)
    if base.layout is None:
        return _summary(plan, frame, f"{base.notice}. Showing one node per group of ready waves instead; "
                                     "render a sub-plan, or raise timeout= to try again.", index)
    marks = node_marks(plan, frame, crit_nodes, findings)
    edges = edge_marks(plan, base.edges, crit_edges, findings)
    event_lines = _event_lines(event, index, run, plan) if frame is not None else ()
    svg = _fill(base, marks, edges, event_lines)
    check_svg(svg)
    return Diagram(svg, functools.partial(_dot_frame, base, marks, edges, event_lines), at=index)


# --- what the picture says: critical path, captions, notes ------------------------------------------------------


def _schedule(plan: Plan) -> tuple[Any, str]:
    try:
        return critical_path(plan), ""
    except PlanvizError as exc:  # a cycle or an unknown dependency: still draw the plan, say why
        return None, str(exc)


def _critical(plan: Plan, schedule: Any) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    if schedule is None:
        return frozenset(), frozenset()
    crit, timing = schedule.critical, schedule.steps
    eps = 1e-9 * max(1.0, schedule.makespan)
    edges = frozenset((u, s.id) for s in plan.steps if s.id in crit for u in s.depends_on
                      if u in crit and abs(timing[u].ef - timing[s.id].es) <= eps)
    return frozenset(crit), edges


def _slack_notes(plan: Plan, schedule: Any) -> tuple[tuple[str, str], ...]:
    """``slack 5 min`` under each step off the critical path: how late it may finish without delaying the goal."""
    if schedule is None:
        return ()
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    return tuple((sid, f"slack {num(t.slack)}{unit}") for sid, t in sorted(schedule.steps.items()) if t.slack > 0)


def _finding_notes(findings: tuple) -> tuple[tuple[str, str], ...]:
    """One label line per step with findings (``error: cycle, unmet_requirement``), so a printed picture says why."""
    codes: dict[str, dict[str, None]] = {}
    for f in findings:
        for sid in f.steps:
            codes.setdefault(sid, {})[f"{f.severity}: {f.code}"] = None
    notes = []
    for sid, found in codes.items():
        shown = sorted(found, key=lambda c: (not c.startswith("error"), c))
        notes.append((sid, ", ".join(shown[:2]) + (f" +{len(shown) - 2} more" if len(shown) > 2 else "")))
    return tuple(sorted(notes))


def _caption(plan: Plan, schedule: Any, why_not: str, findings: tuple = ()) -> tuple[str, ...]:
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    head = f"plan v{plan.version} · {len(plan.ids)} steps"
    if schedule is not None:
        path = " → ".join(schedule.path)
        head += (f" · makespan {num(schedule.makespan)}{unit} (serial {num(schedule.serial_time)}{unit})"
                 f" · critical path: {path or '(none)'}")
    elif why_not:
        head += f" · no critical path: {why_not}"
    lines = [f"Goal: {plan.goal}", head]
    if findings:
        errors = sum(f.severity == "error" for f in findings)
        warnings = len(findings) - errors
        lines.append(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}: "
                     "outlined in red-orange (error) or yellow-orange (warning), named in the step's label; "
                     "hover a step for the message")
    return tuple(lines)


def _event_lines(event: Any, index: int | None, run: Any, plan: Plan) -> tuple[str, ...]:
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    last = len(run.events) - 1
    what = f"{event.kind} {event.step}" if getattr(event, "step", None) else f"{event.kind}"
    text = f"event {index} of {last} · t = {num(float(event.time or 0))}{unit} · {what}: {event.message or ''}"
    outcome = getattr(run, "outcome", None)
    if index == last and outcome and str(outcome) not in text:
        text += f" · outcome: {outcome}"
    lines = escape_label(text, limit=_EVENT_LINES * _EVENT_WIDTH, width=_EVENT_WIDTH,
                         max_lines=_EVENT_LINES, target="text").split("\n")
    return tuple(lines + [" "] * (_EVENT_LINES - len(lines)))


# --- the base picture (laid out once per plan version) -------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _base(plan: Plan, run_mode: bool, legend: tuple[str, ...], crit_edges: frozenset, caption: tuple[str, ...],
          notes: tuple[tuple[str, str], ...], in_child: bool, timeout: float) -> _Base:
    """Build and lay out the neutral picture of a plan (memoised: the result depends only on the arguments)."""
    g = to_graph(plan)
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    cap = "".join(escape_label(line, limit=300, width=110, max_lines=3, align="left") for line in caption)
    placeholder = escape_label("n" * _EVENT_WIDTH, align="left") * _EVENT_LINES if run_mode else ""
    a = pgv.AGraph(directed=True, strict=False, name="plan")
    a.graph_attr.update(checked_attrs({
        "rankdir": "LR", "bgcolor": "white", "pad": "0.2", "nodesep": "0.3", "ranksep": "0.45",
        "fontname": FONT, "fontsize": 12, "labelloc": "t", "labeljust": "l", "label": cap + placeholder}))
    a.node_attr.update(checked_attrs({"shape": "box", "style": "rounded,filled", "fontname": FONT,
                                      "fontsize": 10, "margin": "0.12,0.05", "fillcolor": "white"}))
    a.edge_attr.update(checked_attrs({"fontname": FONT, "fontsize": 9, "color": EDGE_COLOUR, "fontcolor": "#333333",
                                      "arrowsize": 0.7}))
    labels, tips, noted = {}, {}, {}
    for sid, note in notes:
        noted[sid] = f"{noted[sid]}; {note}" if sid in noted else note
    for sid in g:
        step = plan.step(sid)
        head = " · ".join(x for x in (sid, step.kind or "", f"{num(step.duration)}{unit}") if x)
        parts = [escape_label(head, limit=60),
                 escape_label(step.action or "(no action)", width=28, max_lines=3, limit=90)]
        if step.horizon == "far":
            parts.append(escape_label("(far-horizon goal)"))
        if sid in noted:
            parts.append(escape_label(noted[sid], width=34, max_lines=2, limit=80))
        labels[sid] = "\\n".join(parts)
        label = labels[sid] + ("\\n" + escape_label(STATUS_PLACEHOLDER) if run_mode else "")
        name = dom_id(sid)
        a.add_node(name)
        tips[sid] = tip(step_tooltip(step), "text")
        attrs = node_attrs(LOOKS["step"], ["status-pending"], tip(step_tooltip(step)))
        a.get_node(name).attr.update(checked_attrs({**attrs, "label": label, "id": f"node-{name}",
                                                     "peripheries": 2 if run_mode else 1}))
    edges = []
    for u, v, facts in sorted(g.edges(data="facts")):
        shown = [escape_label(f, limit=32) for f in (facts or ())[:3]]
        if len(facts or ()) > 3:
            shown.append(escape_label(f"+{len(facts) - 3} more"))
        a.add_edge(dom_id(u), dom_id(v))
        line = f"{u} → {v}" + (f": {', '.join(facts)}" if facts else "")
        tips[(u, v)] = tip([line], "text")
        attrs = {"id": f"edge-{dom_id(u)}->{dom_id(v)}", "tooltip": tip([line]), "class": "",
                 "penwidth": 3.0 if (u, v) in crit_edges else 1.2}
        if shown:
            attrs["label"] = "\\n".join(shown)
        a.get_edge(dom_id(u), dom_id(v)).attr.update(checked_attrs(attrs))
        edges.append((u, v))
    _add_legend(a, legend, _ranks(g))
    try:
        layout = lay_out(a, in_child=in_child, timeout=timeout)
    except LayoutTimeout as exc:  # remembered, so the next frame does not wait for the time limit again
        return _Base(None, labels, tips, tuple(edges), cap, run_mode, notice=str(exc))
    template, slots = frame_template(layout.svg, run_mode, labels, edges, _EVENT_LINES)
    return _Base(layout, labels, tips, tuple(edges), cap, run_mode, template=template, slots=slots)


def _ranks(g: Any) -> int:
    """How many columns the plan itself takes (its longest chain), or its size when it has a cycle."""
    try:
        return sum(1 for _ in nx.topological_generations(g))
    except nx.NetworkXUnfeasible:
        return len(g)


def _add_legend(a: pgv.AGraph, keys: tuple[str, ...], ranks: int) -> None:
    # Legend nodes share dot's ranks (columns) with the plan: no more columns than the plan has,
    # so the legend never makes the picture wider than the plan (and the plan smaller on screen).
    per_row = min(max(3, math.ceil(len(keys) / 2)), max(3, ranks))
    rows = [keys[i:i + per_row] for i in range(0, len(keys), per_row)]
    rows.reverse()  # dot stacks the rows of a left-to-right graph bottom-up
    names = [f"~legend-{k}" for row in rows for k in row]
    a.add_nodes_from(names)
    sub = a.add_subgraph(names, name="cluster_legend")
    sub.graph_attr.update(checked_attrs({"label": "Legend", "style": "rounded", "color": "#BBBBBB",
                                         "fontsize": 10, "fontname": FONT, "labeljust": "l"}))
    for row in rows:
        for i, key in enumerate(row):
            look, name = LOOKS[key], f"~legend-{key}"
            a.get_node(name).attr.update(checked_attrs({
                **node_attrs(look, ["legend", f"legend-{key}"], tip([LEGEND_TEXT[key]])),
                "label": escape_label(LEGEND_TEXT[key]), "id": f"legend-{key}", "fontsize": 9,
                "peripheries": 2 if look.double else 1, "height": 0.3, "margin": "0.08,0.03"}))
            if i:
                sub.add_edge(f"~legend-{row[i - 1]}", name)
                sub.get_edge(f"~legend-{row[i - 1]}", name).attr.update(checked_attrs({"style": "invis"}))


# --- frames: restyle the base picture (SVG) or its positioned DOT ------------------------------------------------


def _value(kind: str, m: Mark, base_tip: str) -> str:
    look = m.look
    if kind in ("class", "edge-class"):
        return " ".join(("node" if kind == "class" else "edge",) + m.classes)
    if kind in ("tooltip", "edge-tooltip"):
        return base_tip + ("\n" + tip(m.extra, "text") if m.extra else "")
    kind = kind.removeprefix("edge-")
    if kind == "outer-stroke":
        return look.stroke if look.double else "none"
    if kind.endswith("stroke-dasharray"):
        return _DASH_SVG.get(look.dash) or "none"
    if kind.endswith("stroke-width"):
        return num(look.penwidth)
    return {"fill": look.fill, "stroke": look.stroke, "status": look.text}[kind]


def _fill(base: _Base, marks: dict[str, Mark], edges: dict, event_lines: tuple[str, ...]) -> str:
    """One frame's SVG: the base template with each slot filled from the frame's marks (no parsing, no layout)."""
    values = []
    for kind, key in base.slots:
        if kind == "event":
            text = event_lines[key] if key < len(event_lines) else " "
        else:
            m = edges[key] if kind.startswith("edge-") else marks[key]
            text = _value(kind, m, base.tips[key])
        values.append(html.escape(text, quote=True).replace("\n", "&#10;"))
    return SLOT.sub(lambda found: values[int(found.group(1))], base.template)


def _dot_frame(base: _Base, marks: dict[str, Mark], edges: dict,
               event_lines: tuple[str, ...]) -> tuple[str, tuple, tuple, str]:
    node_attrs_list = []
    for sid, m in marks.items():
        label = base.labels.get(sid)
        if label is None:
            continue
        attrs = node_attrs(m.look, m.classes, tip(base.tips[sid].split("\n") + list(m.extra)))
        attrs["peripheries"] = 2 if m.look.double else 1
        attrs["fixedsize"] = "true"
        if base.run_mode:
            attrs["label"] = label + "\\n" + escape_label(m.look.text)
        node_attrs_list.append((dom_id(sid), tuple(attrs.items())))
    edge_attrs_list = []
    for (u, v), m in edges.items():
        edge_attrs_list.append(((dom_id(u), dom_id(v)), (
            ("color", m.look.stroke), ("penwidth", num(m.look.penwidth)), ("style", m.look.dash or "solid"),
            ("class", " ".join(m.classes)), ("tooltip", tip(base.tips[(u, v)].split("\n") + list(m.extra))))))
    caption = ""
    if event_lines:
        caption = base.caption + "".join(escape_label(line, align="left") for line in event_lines)
    return base.layout.dot, tuple(node_attrs_list), tuple(edge_attrs_list), caption


# --- summary picture for plans too big to draw -------------------------------------------------------------------


def _summary(plan: Plan, frame: FrameState | None, notice: str, index: int | None, groups: int = 40) -> Diagram:
    try:
        waves = [sorted(w) for w in ready_waves(plan)]
    except PlanvizError:
        waves = [sorted(set(plan.ids))]
    size = max(1, math.ceil(len(waves) / groups))
    buckets = [(i, min(i + size, len(waves)), [s for w in waves[i:i + size] for s in w])
               for i in range(0, len(waves), size)]
    a = pgv.AGraph(directed=True, strict=False, name="summary")
    a.graph_attr.update(checked_attrs({
        "rankdir": "LR", "bgcolor": "white", "pad": "0.2", "fontname": FONT, "fontsize": 12, "labelloc": "t",
        "labeljust": "l", "label": escape_label(f"Goal: {plan.goal}", limit=300, width=110, max_lines=3,
                                                align="left") + escape_label(notice, limit=600, width=110,
                                                                             max_lines=5, align="left")}))
    a.node_attr.update(checked_attrs({"shape": "box", "style": "rounded,filled", "fillcolor": "#FFFFFF",
                                      "color": "#555555", "fontname": FONT, "fontsize": 10}))
    previous = None
    for k, (lo, hi, ids) in enumerate(buckets):
        lines = [f"waves {lo + 1}–{hi}" if hi - lo > 1 else f"wave {lo + 1}", f"{len(ids)} steps"]
        if frame is not None:
            counts: dict[str, int] = {}
            for sid in ids:
                counts[frame.statuses.get(sid, "pending")] = counts.get(frame.statuses.get(sid, "pending"), 0) + 1
            lines += [f"{status} {counts[status]}" for status in STATUSES if counts.get(status)]
        name = f"~wave-{k}"
        a.add_node(name)
        a.get_node(name).attr.update(checked_attrs({"label": "\\n".join(escape_label(x) for x in lines),
                                                    "id": f"wave-{k}", "class": "summary-wave"}))
        if previous is not None:
            a.add_edge(previous, name)
        previous = name
    layout = lay_out(a)
    check_svg(layout.svg)
    return Diagram(layout.svg, lambda: (layout.dot, (), (), ""), notice=notice, summarized=True, at=index)
