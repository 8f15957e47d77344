"""Pictures of plans, validation findings and run frames, drawn by Graphviz and safe with untrusted text.

:func:`render` turns a plan (and optionally a run and an event index, or a
validation report) into a :class:`Diagram`: one left-to-right ``dot`` picture
that shows itself in a notebook and saves as SVG, PNG or DOT. Each node shows
the step id, kind and duration, its action (wrapped) and, in a run frame, its
status; edges carry the facts that flow along them; the critical path (from
:func:`planviz.critical_path`) is bold; a legend explains the colours
(Okabe-Ito, safe for colour-blind readers, on a white card that reads on dark
notebook themes too).

Every SVG node group is ``<g id="node-<id>" class="node status-<status> ...">``
(the id encoded by :func:`planviz.pictures.escape.dom_id`), every edge group
``<g id="edge-<u>-><v>" class="edge ...">``, so a test or a browser can query
them. The layout is computed once per plan version and kept (a small memo of
a pure function); every frame of a run restyles that picture by node id, so
stepping through a run never lays the graph out again. Plan text is untrusted:
see :mod:`planviz.pictures.escape`.

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
from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator, Mapping

import networkx as nx
import pygraphviz as pgv

from planviz.analysis.timeline import ready_waves
from planviz.checks.report import Report
from planviz.errors import LayoutTimeout, RenderError, expect_type, show_value
from planviz.pictures.arrangement import check_reduce, hidden_edges, rank_direction, reduction_note
from planviz.pictures.budget import pick_layout
from planviz.pictures.captions import (
    EVENT_LINES,
    EVENT_WIDTH,
    caption_lines,
    critical_edges,
    critical_steps,
    event_lines,
    finding_notes,
    run_notes,
    schedule_of,
    slack_notes,
)
from planviz.pictures.diagram import Diagram
from planviz.pictures.escape import check_svg, checked_attrs, dom_id, escape_label
from planviz.pictures.focus import View, candidate_views
from planviz.pictures.grouping import add_groups, group_marks, node_name, traits_of
from planviz.pictures.layout import SLOT, Layout, frame_template, lay_out
from planviz.pictures.style import (
    EDGE_COLOUR,
    FONT,
    LEGEND_TEXT,
    LOOKS,
    STATUS_PLACEHOLDER,
    Mark,
    edge_marks,
    legend_keys,
    node_attrs,
    node_marks,
    num,
    run_looks,
    screen_legend,
    slot_value,
    step_tooltip,
    tip,
)
from planviz.pictures.summary import summary_diagram
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.runs.events import Run, expect_run
from planviz.runs.summary.runsummary import run_summary
from planviz.structure.graph import to_graph

__all__ = ["render", "HIGHLIGHTS"]

HIGHLIGHTS = ("critical",)


@dataclass(frozen=True)
class _Base:
    """A plan drawn once: the layout plus what frames need to restyle it (``layout`` None: it timed out)."""

    layout: Layout | None
    labels: Mapping[Any, str]  # step id or group index -> label
    tips: Mapping[Any, str]  # step id, group index or (u, v) -> tooltip text
    edges: tuple[tuple[str, str], ...]
    caption: str
    run_mode: bool
    view: View
    notice: str = ""
    template: str = ""
    slots: tuple[tuple[str, Any], ...] = ()


def render(
    plan: Plan,
    run: Run | None = None,
    at: int | None = None,
    report: Report | None = None,
    highlight: Iterable[str] = ("critical",),
    *,
    focus: str | Iterable[str] | None = None,
    hops: int = 2,
    collapse: str | None = None,
    group_by: str | None = None,
    reduce: bool | str = False,
    max_steps: int | None = 300,
    budget: float | None = 10.0,
    memory: int | None = 2 * 2**30,
    legend: bool = True,
) -> Diagram:
    """Draw a plan, or the moment ``at`` (an event index, default the last) of a ``run``.

    In a run frame, statuses, the voided and kept steps and the conflicts
    come from ``run.frame(at)``; the plan drawn is the run's plan of
    that version when the run holds it. ``report`` (a validation
    :class:`~planviz.Report`) and ``plan.import_findings`` outline the
    steps they name (vermillion for errors, purple for warnings, sky blue for notes) with the messages as
    tooltips, and colour a cycle's edges red. ``highlight`` may contain
    ``"critical"`` (bold critical path). ``reduce=True`` leaves out the
    transitive edges that carry no fact (``"all"``: every transitive edge;
    critical and flagged edges always stay), see
    :mod:`planviz.pictures.arrangement`; a plan whose longest chain is long is
    drawn top to bottom. ``legend=False`` leaves the legend out of the
    picture (a front end that shows its own beside it: the explorer);
    ``diagram.legend`` names the looks this picture shows either way.

    Big plans stay readable: with ``focus`` (a step id, or several) the
    picture shows their ``hops``-hop neighbourhood; without it, a plan of
    more than ``max_steps`` steps shows a focused view (what a failure of the
    run voided with the kept steps that feed it, else the failed steps,
    the steps with findings, or the critical path). The other steps are
    summed up in summary nodes that say how many steps they hold and carry
    their dependencies; ``diagram.view`` (a :class:`~planviz.View`) says
    exactly which steps are drawn and ``diagram.notice`` why.
    ``collapse="chains"`` draws each chain of single-successor,
    single-predecessor links as one node; ``group_by="kind"`` puts each
    kind's steps in a cluster.

    No layout blocks the caller beyond ``budget`` seconds. Before laying out,
    a cost model fitted on 42 measured layouts (:mod:`planviz.pictures.budget`;
    data and fit in ``benchmarks/layout_cost.json`` and ``.md``: within a
    factor of 2 for nine in ten) estimates ``dot``'s time and memory from the
    nodes, edges, how many ranks each edge spans and the edge labels. A layout
    estimated above half the budget (room for the model's error; on a busy
    machine the estimate is scaled by the load average per core) or above
    ``memory`` bytes is not tried: the same view without the edges that a path
    through other drawn steps implies is, then smaller ones (fewer hops, then
    fewer steps), else a summary of ready waves, and the notice says how long
    the whole layout would take. A layout estimated above half a second runs in a
    child process killed at ``budget`` seconds or ``memory`` bytes. To draw
    every step of a big plan whatever it costs, and write it to a file:
    ``render(plan, max_steps=None, budget=None).save("plan.svg")``.

    Parameters
    ----------
    plan : Plan
        The plan to draw.
    run : Run, optional
        A run whose frame ``at`` is drawn.
    at : int, optional
        Event index (negative from the end); default the last.
    report : Report, optional
        Validation findings to outline.
    highlight : iterable of str
        ``"critical"`` draws the critical path bold.
    focus, hops : str or list of str, int
        Draw these steps' ``hops``-hop neighbourhood.
    collapse, group_by : str, optional
        ``"chains"``; ``"kind"``.
    reduce : bool or 'all'
        Leave out transitive edges.
    max_steps, budget, memory : int, float, int, optional
        Limits of the picture (None: no limit).
    legend : bool
        Draw the legend inside the picture.

    Returns
    -------
    Diagram
        ``.svg``, ``.dot``, ``.save(path)``, ``.view``, ``.notice``, ``.legend``; shows itself in a notebook.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).
    RenderError
        For a bad option value or an ``at`` outside the run.
    LayoutTimeout
        When even the smallest view cannot be laid out within the budget.

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> d = render(Plan("g", [Step("A", "a", duration=2), Step("B", "b", depends_on="A")]))
    >>> d.svg.count('class="node status-pending')
    2
    >>> d.save("out.gif")
    Traceback (most recent call last):
    ...
    planviz.errors.RenderError: cannot save a diagram as 'out.gif': unknown suffix '.gif'; use one of .svg, .png, .dot
    """
    plan = expect_plan(plan, "render")
    reduce = check_reduce(reduce)
    wanted = (
        (highlight,)
        if isinstance(highlight, str)
        else tuple(
            expect_type(
                highlight or (),
                (list, tuple, set, frozenset),
                "render",
                "highlight",
                "'critical', a list of them or None",
            )
        )
    )
    unknown = [h for h in wanted if h not in HIGHLIGHTS]
    if unknown:
        raise RenderError(
            f"unknown highlight {show_value(unknown[0])}; choose from {', '.join(map(repr, HIGHLIGHTS))}"
        )
    frame, event, index = None, None, None
    run = None if run is None else expect_run(run, "render")
    if report is not None:
        expect_type(
            report, Report, "render", "report", "a planviz Report or None", "planviz.validate(plan)"
        )
    if at is not None:
        expect_type(at, int, "render", "at", "an event index (an int) or None")
    if run is not None and run.events:
        events = run.events
        index = len(events) - 1 if at is None else at
        if not isinstance(index, int) or not -len(events) <= index < len(events):
            raise RenderError(
                f"at={show_value(at)} is outside the run's events; choose 0..{len(events) - 1}"
            )
        index %= len(events)
        event = events[index]
        plan = run.plan_at(index) or plan
        frame = run.frame(index)
    elif at is not None:
        raise RenderError(
            f"at={show_value(at)} needs a run with events; pass run=simulate(plan) or a loaded trace"
        )

    findings = tuple(
        dict.fromkeys(tuple(plan.import_findings) + tuple(getattr(report, "findings", ()) or ()))
    )
    if "critical" not in wanted:
        schedule, why_not = None, ""
    elif run is not None:  # a run's plan version: its critical path from the run's one summary
        schedule, why_not = run_summary(run).schedule_or_why(plan)
    else:
        schedule, why_not = schedule_of(plan)
    crit_nodes = critical_steps(schedule)
    # the critical edges are looked up among the steps a view draws (a big plan's view draws a few hundred), and
    # made whole only where every edge counts: the edges a reduced picture keeps, a thinned view's
    hidden = (
        hidden_edges(
            plan,
            reduce,
            critical_edges(plan, schedule) | {tuple(e) for f in findings for e in f.edges},
        )
        if reduce
        else frozenset()  # (what hidden_edges gives then)
    )
    caption = caption_lines(plan, schedule, why_not, findings) + reduction_note(hidden, reduce)
    found_notes = finding_notes(findings)

    def notes_of(view: View) -> tuple[tuple[str, str], ...]:
        """The label notes of the steps ``view`` draws (only those are shown: a big plan's view draws a few
        hundred of its steps), in the order slack, findings, run."""
        drawn = set(view.steps)
        return (
            slack_notes(plan, schedule, findings, ids=drawn)
            + tuple(note for note in found_notes if note[0] in drawn)
            + (run_notes(run, ids=drawn) if frame is not None else ())
        )

    looks = run_looks(run) if frame is not None and run is not None else None

    def attempt(view: View, in_child: bool) -> _Base:
        keys = (
            legend_keys(plan, frame is not None, bool(crit_nodes), findings, looks)
            if legend
            else ()
        )
        keys += ("summary",) if view.hidden and legend else ()
        lines = (
            caption
            if view.whole and not (view.omitted and not reduce)
            else caption + (view.describe(),)
        )
        key = (
            plan,
            frame is not None,
            keys,
            critical_edges(plan, schedule, view.steps),
            lines,
            notes_of(view),
            view,
            in_child,
            budget,
            memory,
        )
        try:
            known = hash(key)
        # a plan holding an unhashable value (hand-built): draw it without the memo
        except TypeError:
            return _build_base(*key)
        return _base(_Key(key, known))  # the key hashed once (a 50k-step plan: a hash of each step)

    options = dict(
        focus=focus,
        hops=hops,
        collapse=collapse,
        group_by=group_by,
        max_steps=max_steps,
        run=run if frame is not None else None,
        findings=findings,
        critical=schedule.path if schedule is not None else (),
    )

    def views() -> Iterator[View]:
        """The view asked for, then (it costs too much) smaller ones without the edges other drawn edges imply."""
        yield next(candidate_views(plan, **options, hidden=hidden))
        yield from candidate_views(
            plan,
            **options,
            hidden=hidden,
            thin=True,
            keep=critical_edges(plan, schedule) | {tuple(e) for f in findings for e in f.edges},
        )

    base, notice = pick_layout(plan, views(), budget, memory, attempt, asked_focus=bool(focus))
    if base is None:
        # a run's from its one summary
        waves = run_summary(run).waves if run is not None else ready_waves
        return summary_diagram(plan, frame, notice, index, waves_of=waves)
    # step id or group index -> mark: the steps drawn (and asked for), in the plan's order, then the groups (whose
    # traits are read from the critical path and the findings, not from a mark of each member: a big plan's groups
    # hold most of its steps)
    view = base.view
    asked = view.focus if focus is not None else ()
    drawn = {*view.steps, *asked}
    marks: dict[Any, Mark] = node_marks(
        plan,
        frame,
        crit_nodes,
        findings,
        ids=[sid for sid in dict.fromkeys(plan.ids) if sid in drawn],
    )
    # the steps asked for, not an automatic focus
    for sid in asked:
        marks[sid] = replace(marks[sid], classes=marks[sid].classes + ("focus",))
    marks.update(
        group_marks(view, frame, marks, traits_of(view.groups, plan, crit_nodes, findings))
    )
    edges = edge_marks(plan, base.edges, critical_edges(plan, schedule, view.steps), findings)
    lines = event_lines(event, index, run, plan) if frame is not None else ()
    svg = _fill(base, marks, edges, lines)
    check_svg(svg)
    shown = [marks[s] for s in base.view.steps] + [marks[i] for i in range(len(base.view.groups))]
    return Diagram(
        svg,
        functools.partial(_dot_frame, base, marks, edges, lines),
        at=index,
        notice=notice,
        view=base.view,
        legend=screen_legend(shown, edges.values()),
    )


# --- the base picture (laid out once per plan version) -------------------------------------------------------


class _Key:
    """The arguments of :func:`_build_base` and their hash, worked out once: what :func:`_base` is memoised on."""

    __slots__ = ("args", "known")

    def __init__(self, args: tuple[Any, ...], known: int) -> None:
        self.args, self.known = args, known

    def __hash__(self) -> int:
        return self.known

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.known == other.known and self.args == other.args


@functools.lru_cache(maxsize=8)
def _base(key: _Key) -> _Base:
    """:func:`_build_base` of ``key``'s arguments, memoised (it depends only on them)."""
    return _build_base(*key.args)


def _build_base(
    plan: Plan,
    run_mode: bool,
    legend: tuple[str, ...],
    crit_edges: frozenset[tuple[str, str]],
    caption: tuple[str, ...],
    notes: tuple[tuple[str, str], ...],
    view: View,
    in_child: bool,
    timeout: float | None,
    memory: int | None,
) -> _Base:
    """Build and lay out the neutral picture of a view of a plan (memoised: it depends only on the arguments)."""
    g = to_graph(plan if view.whole else plan.replace(steps=[plan.by_id[s] for s in view.steps]))
    if view.omitted:
        drawn = set(view.edges)
        g.remove_edges_from([e for e in g.edges if e not in drawn])
    ranks = _ranks(g)
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    cap = "".join(
        escape_label(line, limit=300, width=110, max_lines=3, align="left") for line in caption
    )
    placeholder = escape_label("n" * EVENT_WIDTH, align="left") * EVENT_LINES if run_mode else ""
    a = pgv.AGraph(directed=True, strict=False, name="plan")
    a.graph_attr.update(
        checked_attrs(
            {
                "rankdir": rank_direction(ranks),
                "bgcolor": "white",
                "pad": "0.2",
                "nodesep": "0.3",
                "ranksep": "0.45",
                "fontname": FONT,
                "fontsize": 12,
                "labelloc": "t",
                "labeljust": "l",
                "label": cap + placeholder,
            }
        )
    )
    a.node_attr.update(
        checked_attrs(
            {
                "shape": "box",
                "style": "rounded,filled",
                "fontname": FONT,
                "fontsize": 10,
                "margin": "0.12,0.05",
                "fillcolor": "white",
            }
        )
    )
    a.edge_attr.update(
        checked_attrs(
            {
                "fontname": FONT,
                "fontsize": 9,
                "color": EDGE_COLOUR,
                "fontcolor": "#333333",
                "arrowsize": 0.7,
            }
        )
    )
    labels: dict[str, str] = {}
    tips: dict[Any, str] = {}  # step id or (u, v) -> tooltip text
    noted: dict[str, str] = {}
    for sid, note in notes:
        noted[sid] = f"{noted[sid]}; {note}" if sid in noted else note
    for sid in view.steps:
        step = plan.by_id[sid]
        head = " · ".join(x for x in (sid, step.kind or "", f"{num(step.duration)}{unit}") if x)
        parts = [
            escape_label(head, limit=60),
            escape_label(step.action or "(no action)", width=28, max_lines=3, limit=90),
        ]
        if step.horizon == "far":
            budget = step.budget
            limits = [
                f"{budget.steps} steps" if budget and budget.steps is not None else "",
                f"{num(budget.duration)}{unit}" if budget and budget.duration is not None else "",
            ]
            parts.append(
                escape_label(
                    "(far-horizon goal"
                    + (f", budget {', '.join(filter(None, limits))}" if any(limits) else "")
                    + ")",
                    width=34,
                    max_lines=2,
                )
            )
        if sid in noted:
            parts.append(escape_label(noted[sid], width=34, max_lines=2, limit=80))
        labels[sid] = "\\n".join(parts)
        label = labels[sid] + ("\\n" + escape_label(STATUS_PLACEHOLDER) if run_mode else "")
        name = dom_id(sid)
        a.add_node(name)
        tips[sid] = tip(step_tooltip(step), "text")
        attrs = node_attrs(LOOKS["step"], ["status-pending"], tip(step_tooltip(step)))
        a.get_node(name).attr.update(
            checked_attrs(
                {**attrs, "label": label, "id": f"node-{name}", "peripheries": 2 if run_mode else 1}
            )
        )
    edges = []
    for u, v, facts in sorted(g.edges(data="facts")):
        shown = [escape_label(f, limit=32) for f in (facts or ())[:3]]
        if len(facts or ()) > 3:
            shown.append(escape_label(f"+{len(facts) - 3} more"))
        a.add_edge(dom_id(u), dom_id(v))
        line = f"{u} → {v}" + (f": {', '.join(facts)}" if facts else "")
        tips[(u, v)] = tip([line], "text")
        attrs = {
            "id": f"edge-{dom_id(u)}->{dom_id(v)}",
            "tooltip": tip([line]),
            "class": "",
            "penwidth": 3.0 if (u, v) in crit_edges else 1.2,
        }
        if shown:
            attrs["label"] = "\\n".join(shown)
        a.get_edge(dom_id(u), dom_id(v)).attr.update(checked_attrs(attrs))
        edges.append((u, v))
    group_labels, group_tips = add_groups(a, view, run_mode)
    _add_legend(a, legend, ranks)
    try:
        layout = lay_out(a, in_child=in_child, timeout=timeout, memory=memory)
    except (
        LayoutTimeout
    ) as exc:  # remembered, so the next frame does not wait for the time limit again
        return _Base(None, labels, tips, tuple(edges), cap, run_mode, view, notice=str(exc))
    template, slots = frame_template(
        layout.svg,
        run_mode,
        labels,
        edges,
        EVENT_LINES,
        [(f"group-{grp.name}", i) for i, grp in enumerate(view.groups)],
    )
    every_label: dict[Any, str] = {**labels, **group_labels}
    return _Base(
        layout,
        every_label,
        {**tips, **group_tips},
        tuple(edges),
        cap,
        run_mode,
        view,
        template=template,
        slots=slots,
    )


def _ranks(g: Any) -> int:
    """How many columns the plan itself takes (its longest chain), or its size when it has a cycle."""
    try:
        return sum(1 for _ in nx.topological_generations(g))
    except nx.NetworkXUnfeasible:
        return len(g)


def _add_legend(a: pgv.AGraph, keys: tuple[str, ...], ranks: int) -> None:
    if not keys:
        return
    # Legend nodes share dot's ranks (columns) with the plan: no more columns than the plan has,
    # so the legend never makes the picture wider than the plan (and the plan smaller on screen).
    per_row = min(max(3, math.ceil(len(keys) / 2)), max(3, ranks))
    rows = [keys[i : i + per_row] for i in range(0, len(keys), per_row)]
    rows.reverse()  # dot stacks the rows of a left-to-right graph bottom-up
    names = [f"~legend-{k}" for row in rows for k in row]
    a.add_nodes_from(names)
    sub = a.add_subgraph(names, name="cluster_legend")
    sub.graph_attr.update(
        checked_attrs(
            {
                "label": "Legend",
                "style": "rounded",
                "color": "#BBBBBB",
                "fontsize": 10,
                "fontname": FONT,
                "labeljust": "l",
            }
        )
    )
    for row in rows:
        for i, key in enumerate(row):
            look, name = LOOKS[key], f"~legend-{key}"
            a.get_node(name).attr.update(
                checked_attrs(
                    {
                        **node_attrs(look, ["legend", f"legend-{key}"], tip([LEGEND_TEXT[key]])),
                        "label": escape_label(LEGEND_TEXT[key]),
                        "id": f"legend-{key}",
                        "fontsize": 9,
                        "peripheries": 2 if look.double else 1,
                        "height": 0.3,
                        "margin": "0.08,0.03",
                    }
                )
            )
            if i:
                sub.add_edge(f"~legend-{row[i - 1]}", name)
                sub.get_edge(f"~legend-{row[i - 1]}", name).attr.update(
                    checked_attrs({"style": "invis"})
                )


# --- frames: restyle the base picture (SVG) or its positioned DOT ------------------------------------------------


def _fill(
    base: _Base,
    marks: Mapping[Any, Mark],
    edges: dict[tuple[str, str], Mark],
    event_lines: tuple[str, ...],
) -> str:
    """One frame's SVG: the base template with each slot filled from the frame's marks (no parsing, no layout)."""
    values = []
    for kind, key in base.slots:
        if kind == "event":
            text = event_lines[key] if key < len(event_lines) else " "
        else:
            m = edges[key] if kind.startswith("edge-") else marks[key]
            text = slot_value(kind, m, base.tips[key])
        values.append(html.escape(text, quote=True).replace("\n", "&#10;"))
    return SLOT.sub(lambda found: values[int(found.group(1))], base.template)


def _dot_frame(
    base: _Base,
    marks: Mapping[Any, Mark],
    edges: dict[tuple[str, str], Mark],
    event_lines: tuple[str, ...],
) -> tuple[str, tuple[Any, ...], tuple[Any, ...], str]:
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
        node_attrs_list.append((node_name(base.view, sid), tuple(attrs.items())))
    edge_attrs_list = []
    for (u, v), m in edges.items():
        edge_attrs_list.append(
            (
                (dom_id(u), dom_id(v)),
                (
                    ("color", m.look.stroke),
                    ("penwidth", num(m.look.penwidth)),
                    ("style", m.look.dash or "solid"),
                    ("class", " ".join(m.classes)),
                    ("tooltip", tip(base.tips[(u, v)].split("\n") + list(m.extra))),
                ),
            )
        )
    caption = ""
    if event_lines:
        caption = base.caption + "".join(escape_label(line, align="left") for line in event_lines)
    if base.layout is None:  # render draws frames only from a base that was laid out
        raise RenderError("the plan was not laid out, so it has no Graphviz DOT source")
    return base.layout.dot, tuple(node_attrs_list), tuple(edge_attrs_list), caption
