"""The summary picture of a plan too big to draw: one node per group of ready waves, with counts.

>>> from planviz import examples
>>> d = summary_diagram(examples.load("cache_isolation"), None, "too big", None)
>>> d.summarized, d.svg.count('summary&#45;wave"')
(True, 4)
"""

from __future__ import annotations

import math
from typing import Callable

import pygraphviz as pgv

from planviz.analysis.timeline import ready_waves
from planviz.errors import PlanvizError
from planviz.pictures.diagram import Diagram
from planviz.pictures.escape import check_svg, checked_attrs, escape_label
from planviz.pictures.layout import lay_out
from planviz.pictures.style import FONT, LOOKS
from planviz.plan.model import STATUSES, Plan, natural_key
from planviz.runs.events import Frame

__all__ = ["summary_diagram"]


def summary_diagram(
    plan: Plan,
    frame: Frame | None,
    notice: str,
    index: int | None,
    groups: int = 40,
    waves_of: Callable[[Plan], tuple[frozenset[str], ...]] = ready_waves,
) -> Diagram:
    """The ready waves of ``plan`` (``waves_of``: :func:`planviz.ready_waves`, or a run summary's), in groups."""
    try:
        waves = [sorted(w, key=natural_key) for w in waves_of(plan)]
    except PlanvizError:
        waves = [sorted(set(plan.ids), key=natural_key)]
    size = max(1, math.ceil(len(waves) / groups))
    buckets = [
        (i, min(i + size, len(waves)), [s for w in waves[i : i + size] for s in w])
        for i in range(0, len(waves), size)
    ]
    a = pgv.AGraph(directed=True, strict=False, name="summary")
    a.graph_attr.update(
        checked_attrs(
            {
                "rankdir": "LR",
                "bgcolor": "white",
                "pad": "0.2",
                "fontname": FONT,
                "fontsize": 12,
                "labelloc": "t",
                "labeljust": "l",
                "label": escape_label(
                    f"Goal: {plan.goal}", limit=300, width=110, max_lines=3, align="left"
                )
                + escape_label(notice, limit=600, width=110, max_lines=5, align="left"),
            }
        )
    )
    a.node_attr.update(
        checked_attrs(
            {
                "shape": "box",
                "style": "rounded,filled",
                "fillcolor": LOOKS["step"].fill,
                "color": LOOKS["step"].stroke,
                "fontname": FONT,
                "fontsize": 10,
            }
        )
    )
    previous = None
    for k, (lo, hi, ids) in enumerate(buckets):
        lines = [f"waves {lo + 1}–{hi}" if hi - lo > 1 else f"wave {lo + 1}", f"{len(ids)} steps"]
        if frame is not None:
            counts: dict[str, int] = {}
            for (
                sid
            ) in ids:  # a step the stopped run never started is counted "not run", never voided
                key = "not run" if sid in frame.not_run else frame.statuses.get(sid, "pending")
                counts[key] = counts.get(key, 0) + 1
            lines += [
                f"{status} {counts[status]}"
                for status in (*STATUSES, "not run")
                if counts.get(status)
            ]
        name = f"~wave-{k}"
        a.add_node(name)
        a.get_node(name).attr.update(
            checked_attrs(
                {
                    "label": "\\n".join(escape_label(x) for x in lines),
                    "id": f"wave-{k}",
                    "class": "summary-wave",
                }
            )
        )
        if previous is not None:
            a.add_edge(previous, name)
        previous = name
    layout = lay_out(a)
    check_svg(layout.svg)
    return Diagram(
        layout.svg, lambda: (layout.dot, (), (), ""), notice=notice, summarized=True, at=index
    )
