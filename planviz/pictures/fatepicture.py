"""The picture of a plan aligned with a run: each planned step's fate, the calls nobody planned, the damage.

:func:`render_alignment` draws an :class:`~planviz.Alignment` as one
left-to-right Graphviz picture: every planned step coloured by its fate
(ran as planned, with other arguments, failed, voided, unfinished, never
ran), the never-run steps in a failure's scope drawn as blocked (they had no
work to void, so they never look voided), and each
unplanned call as a dashed grey box hung after the planned step that ran just
before it (dashed edge). Node groups are ``<g id="node-<id>" class="node
fate-<fate> ...">`` (unplanned: ``node-run:<id>``, class ``fate-unplanned``),
so tests and browsers can query them. Text is escaped like every planviz
picture (:mod:`planviz.pictures.escape`).

>>> from planviz import Fault, align, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> d = render_alignment(align(plan, simulate(plan, faults=[Fault("S3", "tool_error", times=9)],
...                                           strategy="workflow")))
>>> d.svg.count("fate-failed"), d.svg.count("fate-not_run invalidated")
(1, 1)
"""

from __future__ import annotations

import pygraphviz as pgv

from planviz.errors import PlanvizTypeError
from planviz.pictures.diagram import Diagram
from planviz.pictures.escape import check_svg, checked_attrs, dom_id, escape_label
from planviz.pictures.layout import lay_out, serialise_svg
from planviz.pictures.style import EDGE_COLOUR, FATE_LOOKS, FONT, Look, node_attrs, tip
from planviz.runs.comparisons.alignment import FATES, Alignment

__all__ = ["render_alignment", "FATE_LOOKS"]


def render_alignment(alignment: Alignment, *, timeout: float = 60.0) -> Diagram:
    """Draw ``alignment`` (from :func:`planviz.align`): fates, unplanned calls, the failure's invalidated subgraph.

    Parameters
    ----------
    alignment : Alignment
        From :func:`planviz.align`.
    timeout : float
        Seconds the layout may take.

    Returns
    -------
    Diagram
        The declared plan coloured by each step's fate, with the unplanned calls beside it.

    Raises
    ------
    PlanvizTypeError
        When ``alignment`` is not an Alignment (make one with :func:`planviz.align`).

    Examples
    --------
    >>> from planviz import align, examples, simulate
    >>> plan = examples.load("cache_isolation")
    >>> render_alignment(align(plan, simulate(plan))).svg.startswith("<?xml")
    True
    """
    if not isinstance(alignment, Alignment):
        raise PlanvizTypeError(
            f"render_alignment(alignment=...) expects a planviz Alignment, got "
            f"{type(alignment).__name__}; make one with planviz.align(plan, run)"
        )
    plan = alignment.plan
    counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in alignment.counts().items() if n)
    caption = "".join(
        escape_label(line, limit=300, width=110, max_lines=3, align="left")
        for line in (
            f"Goal: {plan.goal}",
            f"plan v{plan.version} against the run ({alignment.run.outcome or 'unfinished'}): "
            f"{counts}",
        )
    )
    a = pgv.AGraph(directed=True, strict=False, name="alignment")
    a.graph_attr.update(
        checked_attrs(
            {
                "rankdir": "LR",
                "bgcolor": "white",
                "pad": "0.2",
                "nodesep": "0.3",
                "ranksep": "0.45",
                "fontname": FONT,
                "fontsize": 12,
                "labelloc": "t",
                "labeljust": "l",
                "label": caption,
            }
        )
    )
    a.node_attr.update(
        checked_attrs({"shape": "box", "fontname": FONT, "fontsize": 10, "margin": "0.12,0.05"})
    )
    a.edge_attr.update(
        checked_attrs({"fontname": FONT, "fontsize": 9, "color": EDGE_COLOUR, "arrowsize": 0.7})
    )
    used = set()
    for f in alignment.fates:
        key = "invalidated" if f.fate == "not_run" and f.step in alignment.invalidated else f.fate
        used.add(key)
        look, _ = FATE_LOOKS[key]
        step = plan.by_id[f.step]
        lines = [
            escape_label(f.step, limit=60),
            escape_label(step.action or "(no action)", width=28, max_lines=2, limit=70),
        ]
        if f.ran_as and f.ran_as != f.step:
            lines.append(escape_label(f"ran as {f.ran_as}", limit=60))
        lines.append(escape_label(look.text or f.fate))
        why = [f"{f.step}: {f.fate.replace('_', ' ')}" + (f" — {f.why}" if f.why else "")]
        if f.fate == "other_arguments":
            why += [f"planned: {dict(f.arguments)}", f"ran: {dict(f.ran_arguments)}"]
        classes = [f"fate-{f.fate}"] + (["invalidated"] if f.step in alignment.invalidated else [])
        _node(a, f.step, look, classes, lines, why)
    for u in alignment.unplanned:
        used.add("unplanned")
        look, _ = FATE_LOOKS["unplanned"]
        lines = [
            escape_label(u.step, limit=60),
            escape_label(f"{u.tool or 'call'} · {u.status}", limit=60),
            escape_label(look.text),
        ]
        _node(
            a,
            f"run:{u.step}",
            look,
            ["fate-unplanned", f"status-{u.status}"],
            lines,
            [
                f"unplanned call {u.step} ({u.status})" + (f", after {u.after}" if u.after else ""),
                f"arguments: {dict(u.arguments)}",
            ],
        )
        if u.after is not None:
            _edge(a, u.after, f"run:{u.step}", {"style": "dashed", "class": "unplanned"})
    for step in plan.steps:
        for d in step.depends_on:
            if d in plan.by_id:
                _edge(a, d, step.id, {"class": "plan"})
    _legend(a, [k for k in (*FATES[:-1], "not_run", "invalidated", "unplanned") if k in used])
    layout = lay_out(a, in_child=len(plan) > 2000, timeout=timeout)
    # re-serialised: plain text in class names (no &#45;)
    svg = serialise_svg(check_svg(layout.svg))
    return Diagram(svg, lambda: (layout.dot, (), (), ""))


def _node(
    a: pgv.AGraph, name: str, look: Look, classes: list[str], lines: list[str], why: list[str]
) -> None:
    node = dom_id(name)
    a.add_node(node)
    attrs = node_attrs(look, classes, tip(why))
    a.get_node(node).attr.update(
        checked_attrs(
            {
                **attrs,
                "label": "\\n".join(lines),
                "id": f"node-{node}",
                "peripheries": 2 if look.double else 1,
            }
        )
    )


def _edge(a: pgv.AGraph, u: str, v: str, extra: dict[str, str]) -> None:
    a.add_edge(dom_id(u), dom_id(v))
    a.get_edge(dom_id(u), dom_id(v)).attr.update(
        checked_attrs({"id": f"edge-{dom_id(u)}->{dom_id(v)}", **extra})
    )


def _legend(a: pgv.AGraph, keys: list[str]) -> None:
    names = [f"~legend-{k}" for k in keys]
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
    for i, k in enumerate(keys):
        look, text = FATE_LOOKS[k]
        a.get_node(names[i]).attr.update(
            checked_attrs(
                {
                    **node_attrs(look, ["legend", f"legend-{k}"], tip([text])),
                    "label": escape_label(text),
                    "id": f"legend-{k}",
                    "fontsize": 9,
                    "height": 0.3,
                }
            )
        )
        if i:
            sub.add_edge(names[i - 1], names[i])
            sub.get_edge(names[i - 1], names[i]).attr.update(checked_attrs({"style": "invis"}))
