"""How a plan's graph is arranged in a picture: which way its ranks run, which edges are left out.

Long chains: a plan whose longest chain has more than :data:`LONG_CHAIN`
steps is drawn top to bottom instead of left to right, so its labels keep a
readable size instead of shrinking into one very wide row.

Transitive edges: ``render(plan, reduce=True)`` leaves out every edge
``u -> v`` that the rest of the graph already implies (v is reachable from u
without it; :func:`networkx.transitive_reduction` keeps the others), unless
the edge carries facts (a fact u produces and v requires), is on the bold
critical path, or is named by a finding: those say something no other path
says, so they stay. ``reduce="all"`` also leaves out transitive edges that
carry facts (critical and flagged edges still stay). A plan with a cycle or
an unknown dependency has no transitive reduction: nothing is left out.

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A"),
...                   Step("C", "c", depends_on=["A", "B"], requires="x"), Step("D", "d", depends_on=["A", "C"])])
>>> sorted(hidden_edges(plan, True)), sorted(hidden_edges(plan, "all"))
([('A', 'D')], [('A', 'C'), ('A', 'D')])
>>> rank_direction(12), rank_direction(13)
('LR', 'TB')
"""

from __future__ import annotations

from typing import Any, Iterable

import networkx as nx

from planviz.errors import PlanvizTypeError, RenderError, show_value
from planviz.plan.model import Plan
from planviz.structure.graph import to_graph
from planviz.structure.index import structure_index

__all__ = [
    "LONG_CHAIN",
    "REDUCE_CHOICES",
    "rank_direction",
    "hidden_edges",
    "check_reduce",
    "reduction_note",
]

LONG_CHAIN = 12
REDUCE_CHOICES = (False, True, "all")


def rank_direction(ranks: int) -> str:
    """``LR`` (left to right), or ``TB`` (top to bottom) for a plan whose longest chain has more than
    :data:`LONG_CHAIN` steps."""
    return "TB" if ranks > LONG_CHAIN else "LR"


def check_reduce(reduce: Any) -> bool | str:
    """The ``reduce=`` argument of ``render``, checked: False, True or ``"all"``."""
    if not isinstance(reduce, (bool, str)):
        raise PlanvizTypeError(
            f"render(reduce=...) expects True, False or 'all', got {type(reduce).__name__} "
            f"{show_value(reduce, 60)}"
        )
    if reduce not in REDUCE_CHOICES:
        raise RenderError(
            f"render(reduce={show_value(reduce, 60)}) is not a choice: use True (hide transitive edges that "
            "carry no fact), 'all' (hide every transitive edge) or False"
        )
    return reduce


def hidden_edges(
    plan: Plan, reduce: bool | str, keep: Iterable[tuple[str, str]] = ()
) -> frozenset[tuple[str, str]]:
    """The edges ``render(..., reduce=reduce)`` leaves out; ``keep`` lists edges that must stay (critical,
    flagged by a finding)."""
    if not reduce or not structure_index(plan).clean:
        return frozenset()
    g = to_graph(plan)
    needed = set(nx.transitive_reduction(g).edges()) | set(map(tuple, keep))
    return frozenset(
        (u, v)
        for u, v, facts in g.edges(data="facts")
        if (u, v) not in needed and (reduce == "all" or not facts)
    )


def reduction_note(hidden: frozenset[tuple[str, str]], reduce: bool | str) -> tuple[str, ...]:
    """A caption line saying how many edges the picture leaves out, and why."""
    if not hidden:
        return ()
    what = "every transitive edge" if reduce == "all" else "transitive edges that carry no fact"
    n = len(hidden)
    return (
        f"{n} edge{'s' * (n != 1)} not drawn (reduce={reduce!r}: {what}; the order they state follows "
        "from the edges drawn)",
    )
