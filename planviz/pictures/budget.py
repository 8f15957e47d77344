"""What a Graphviz layout will cost, estimated before it is tried.

Graphviz ``dot`` cannot be interrupted inside the Python process, and its
cost depends far more on the shape of a graph than on its number of steps: a
chain of 2,000 steps lays out in 0.1 s, a plan of 35 steps that each depend on
every earlier one takes 12 s, and at 60 steps minutes. ``dot`` gives every
rank (column) its own node for each edge that passes through it, so an edge
spanning ``k`` ranks costs ``k - 1`` extra nodes, and when any edge has a label
the ranks are doubled to make room for it. :func:`layout_features` counts
those nodes (``nodes``: real plus virtual), the edge segments, and the widest
rank, from the longest-path ranking, in ``O(V + E)``.

:func:`estimate` turns them into seconds and bytes with a model fitted on
layouts measured on a 2-core machine (``benchmarks/fit_layout_cost.py``;
the data and the fit are in ``benchmarks/layout_cost.json`` and ``.md``)::

    ln seconds = a + b ln N + c ln W + d (ln N)(ln W) + e ln(1 + X)
    bytes      = m0 + m1 V + m2 X + m3 E

where ``N`` counts the nodes with the virtual ones, ``X`` the virtual ones,
``V`` the real ones, ``W`` the widest rank and ``E`` the edges: the time
grows about linearly along a chain (``W`` small, no virtual nodes) and about
quadratically as the graph widens or its edges lengthen. Over 42 measured
layouts the estimate is within a factor of 1.48 of the measured time for
half of them and within 2.0 for nine in ten (leaving each layout out of the
fit in turn: 1.52 for half); long edges over a narrow graph are the worst
case (4.3 times under). Seconds are CPU seconds of ``dot`` alone; on a busy
machine the wall time is longer (up to five times under a load of 8 on 2
cores): :func:`pick_layout` scales the estimate by the load average per core. Labels
enter through the edges: an edge label doubles the ranks. Node labels are
capped at three wrapped lines by :func:`~planviz.pictures.escape.escape_label`,
and their length has no measurable effect (1.45 s vs 1.44 s for 500 steps of
one character or 280).

>>> f = layout_features(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")], labelled=False)
>>> f.nodes, f.segments, f.width
(4, 4, 2)
>>> estimate(f).seconds < 0.01
True
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Sequence

from planviz.errors import PlanvizTypeError, RenderError, show_value
from planviz.plan.model import Plan

__all__ = [
    "LayoutFeatures",
    "LayoutCost",
    "layout_features",
    "view_features",
    "estimate",
    "pick_layout",
    "duration_text",
    "slowdown",
    "TIME_MODEL",
    "MEMORY_MODEL",
    "IN_PROCESS_SECONDS",
    "QUICK_SECONDS",
]

#: ``(a, b, c, d, e)`` of the time model (see the module docstring); from ``benchmarks/layout_cost.json``.
TIME_MODEL = (-12.638, 1.4261, -0.4353, 0.0878, 0.1433)
#: ``(m0, m1, m2, m3)`` of the memory model, in bytes. Fitted on layouts of up to 75 MB; issue 13's plan of
#: 600 steps that each depend on every earlier one (36 million virtual nodes) used 23 GB, a fifth of what
#: it predicts there, so it errs on the side of not trying.
MEMORY_MODEL = (4284289.0, 3375.8, 2942.1, 4500.1)
#: Layouts estimated to take longer than this run in a child process (with a time and memory limit).
IN_PROCESS_SECONDS = 0.5
#: Layouts estimated under this are tried even when the budget is spent (the summary costs as much).
QUICK_SECONDS = 0.1


@dataclass(frozen=True)
class LayoutFeatures:
    """The size of a graph as ``dot`` sees it: ``nodes`` counts the virtual nodes of long edges too."""

    steps: int
    edges: int
    nodes: int
    segments: int
    width: int
    ranks: int
    labelled: bool


@dataclass(frozen=True)
class LayoutCost:
    """An estimate of one ``dot`` layout: CPU ``seconds``, peak ``memory`` in bytes, and what it rests on."""

    seconds: float
    memory: float
    features: LayoutFeatures

    def __str__(self) -> str:
        f = self.features
        return (
            f"{f.steps:,} nodes and {f.edges:,} edges ({f.nodes:,} nodes for dot, widest rank {f.width:,}): "
            f"{duration_text(self.seconds)} and about {_bytes_text(self.memory)}"
        )


def layout_features(
    nodes: Sequence[Hashable], edges: Iterable[tuple[Hashable, Hashable]], labelled: bool
) -> LayoutFeatures:
    """Count what ``dot`` will lay out: nodes including the virtual ones of long edges, segments, widest rank.

    Ranks come from the longest path from the sources (``dot`` balances
    them, so spans are at most these); nodes on a cycle are ranked after
    their ranked predecessors. With ``labelled`` the ranks are doubled, as
    ``dot`` does when any edge has a label.
    """
    index = {n: i for i, n in enumerate(nodes)}
    pairs = [(index[u], index[v]) for u, v in edges if u != v]
    kids: list[list[int]] = [[] for _ in index]
    parents: list[list[int]] = [[] for _ in index]
    for u, v in pairs:
        kids[u].append(v)
        parents[v].append(u)
    waiting = [len(p) for p in parents]
    level = [-1] * len(index)
    todo = [i for i, w in enumerate(waiting) if not w]
    for i in todo:
        level[i] = 0
    while todo:
        u = todo.pop()
        for v in kids[u]:
            level[v] = max(level[v], level[u] + 1)
            waiting[v] -= 1
            if not waiting[v]:
                todo.append(v)
    for i in range(len(level)):  # on or behind a cycle: after whatever ranked parent is known
        if level[i] < 0:
            level[i] = max((level[u] + 1 for u in parents[i] if level[u] >= 0), default=0)
    m = 2 if labelled else 1
    ranks = m * (max(level, default=0) + 1) + 1
    through = [0] * (ranks + 1)
    width = [0] * (ranks + 1)
    for lv in level:
        width[m * lv] += 1
    segments = 0
    for u, v in pairs:
        a, b = sorted((m * level[u], m * level[v]))
        segments += b - a
        if b - a > 1:
            through[a + 1] += 1
            through[b] -= 1
    running = widest = 0
    for r in range(ranks):
        running += through[r]
        widest = max(widest, width[r] + running)
    virtual = segments - sum(1 for u, v in pairs if level[u] != level[v])
    return LayoutFeatures(
        len(index), len(pairs), len(index) + virtual, segments, widest, ranks, labelled
    )


def view_features(plan: Plan, view: Any) -> LayoutFeatures:
    """The features of the picture :func:`planviz.render` draws for ``view`` (a :class:`~planviz.View`)."""
    by_id = plan.by_id
    nodes: list[Hashable] = [*view.steps, *range(len(view.groups))]
    edges = [*view.edges, *((u, v) for u, v, _ in view.links)]
    produced: dict[str, frozenset[str]] = {}
    labelled = False
    for u, v in view.edges:
        requires = by_id[v].requires
        if requires:
            if u not in produced:
                produced[u] = frozenset(by_id[u].produces)
            if not produced[u].isdisjoint(requires):
                labelled = True
                break
    return layout_features(nodes, edges, labelled)


def estimate(features: LayoutFeatures) -> LayoutCost:
    """The estimated CPU seconds and peak bytes of laying these features out with ``dot``."""
    a, b, c, d, e = TIME_MODEL
    ln_n, ln_w = math.log(max(features.nodes, 1)), math.log(max(features.width, 1))
    ln_x = math.log(1 + features.nodes - features.steps)
    seconds = math.exp(min(a + b * ln_n + c * ln_w + d * ln_n * ln_w + e * ln_x, 700.0))
    m0, m1, m2, m3 = MEMORY_MODEL
    virtual = features.nodes - features.steps
    return LayoutCost(
        seconds, m0 + m1 * features.steps + m2 * virtual + m3 * features.edges, features
    )


def pick_layout(
    plan: Plan,
    views: Iterable[Any],
    budget: float | None,
    memory: int | None,
    attempt: Callable[[Any, bool], Any],
    *,
    asked_focus: bool = False,
) -> tuple[Any, str]:
    """Lay out the first of ``views`` that fits the budget; returns its picture (None if none did) and a notice.

    ``budget`` and ``memory`` (``render``'s arguments) are checked first: a number > 0, or None.

    A view is tried when its estimate, scaled by :func:`slowdown`, is within
    half of what is left of ``budget`` seconds (None: any time; a view estimated under
    :data:`QUICK_SECONDS` always) and within ``memory`` bytes (None: any size);
    so after a layout ran out of time only quick views are tried.
    ``attempt(view, in_child)`` lays it out, in a child process when the
    estimate is above :data:`IN_PROCESS_SECONDS`, and returns a picture whose
    ``layout`` is None when the child ran out of time or memory. The notice
    says what is shown, what was not tried and why, and how to draw it all (``asked_focus``: the caller
    chose the focus, so drawing it all means dropping it, not only the step limit).
    """
    for name, value in (("budget", budget), ("memory", memory)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise PlanvizTypeError(
                f"render({name}=...) expects a number > 0 or None, got {type(value).__name__} "
                f"{show_value(value)}"
            )
        if value is not None and not 0 < value < 1e300:
            raise RenderError(
                f"render({name}={show_value(value)}) is not a limit: use a number > 0, or None for none"
            )
    skipped: list[str] = []
    started = time.monotonic()
    slower = slowdown()
    for view in views:
        cost = estimate(view_features(plan, view))
        left = None if budget is None else budget - (time.monotonic() - started)
        if left is not None and cost.seconds * slower > max(left / 2, QUICK_SECONDS):
            busy = (
                f"; this machine is busy, {slower:.1f} times slower than idle"
                if slower > 1.5
                else ""
            )
            skipped.append(
                f"laying out {view.name} would take {duration_text(cost.seconds * slower)} "
                f"(estimated from its size{busy}), more than the budget of {budget:g} s allows"
            )
            continue
        if memory is not None and cost.memory > memory:
            skipped.append(
                f"laying out {view.name} would need about {_bytes_text(cost.memory)}, more than "
                f"memory={memory:,} bytes"
            )
            continue
        base = attempt(view, cost.seconds > IN_PROCESS_SECONDS)
        if base.layout is None:
            skipped.append(f"{view.name}: {base.notice}")
            continue
        return base, _notice(view, skipped, asked_focus)
    return None, _notice(None, skipped, asked_focus)


def slowdown() -> float:
    """How much slower than an idle core a layout runs now: the load average per core, at least 1.

    The estimates are CPU seconds and the budget is wall time; on a machine
    busy with other work (a shared server, a test run) a layout takes that much
    longer. 1 where the load average is unknown.
    """
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (AttributeError, OSError):
        return 1.0


def _notice(view: Any, skipped: list[str], asked_focus: bool = False) -> str:
    text = (
        " ".join(view.describe().split())
        if view is not None and not (view.whole and not view.omitted)
        else ""
    )
    if not skipped:
        if not (text and view.focus):
            return text
        return text + (
            " Without focus= (planviz render without --focus), max_steps=None (--full) draws every step."
            if asked_focus
            else " max_steps=None (planviz render --full) draws every step."
        )
    why = skipped[0][0].upper() + skipped[0][1:]
    shown = text if view is not None else "Showing one node per group of ready waves instead."
    return (
        f"{why}. {shown} To draw every step whatever it takes, write it to a file: "
        "render(plan, max_steps=None, budget=None).save('plan.svg') or planviz render --full."
    )


def duration_text(seconds: float) -> str:
    """A rough duration for people: ``'under a second'``, ``'about 40 s'``, ``'about 12 min'``, ``'about 9 days'``.

    >>> [duration_text(s) for s in (0.2, 40, 725, 3 * 3600, 9 * 86400, 1e9)]
    ['under a second', 'about 40 s', 'about 12 min', 'about 3 h', 'about 9 days', 'more than a year']
    """
    if seconds < 1:
        return "under a second"
    if seconds > 366 * 86400:
        return "more than a year"
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            return f"about {seconds / size:,.0f} {unit}"
    return f"about {seconds:,.0f} s"


def _bytes_text(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n / 1e3:,.0f} kB"
