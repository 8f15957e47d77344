"""Plans as NetworkX DAGs, and back.

One node per step id carrying the step's fields as attributes; an edge
``u -> v`` for each ``u`` in ``v.depends_on``, carrying ``facts``: the facts
``u`` produces that ``v`` requires (the data flowing along the edge).

>>> from planviz import examples
>>> g = to_graph(examples.load("cache_isolation"))
>>> sorted(g.successors("S0"))
['S1', 'S2']
>>> g.edges["S1", "S3"]["facts"]
('key_builder_located',)
>>> from_graph(g).steps == examples.load("cache_isolation").steps
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from operator import attrgetter

from typing import Any

import networkx as nx

from ..errors import expect_type
from ..plan.arguments import expect_plan
from ..plan.bulk import paused_gc
from ..plan.model import Plan, Step

__all__ = ["to_graph", "from_graph", "NODE_FIELDS"]

NODE_FIELDS = tuple(f.name for f in fields(Step) if f.name != "id")


def to_graph(plan: Plan) -> nx.DiGraph:
    """The plan as a ``networkx.DiGraph``.

    Graph attributes hold the plan-level fields (``goal``, ``premises``,
    ``unknowns``, ``version``, ``time_unit``). Duplicate ids keep their first
    step; dependencies on unknown ids add no edge (``validate`` reports both).

    Parameters
    ----------
    plan : Plan
        The plan (any version).

    Returns
    -------
    networkx.DiGraph
        One node per step id with the step's fields, an edge per dependency carrying the facts it passes
        (``facts=``).

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> g = to_graph(Plan("g", [Step("A", "a", produces=["x", "y"]),
    ...                         Step("B", "b", depends_on=["A", "ghost"], requires="x")]))
    >>> list(g.edges(data="facts")), g.nodes["B"]["requires"]
    ([('A', 'B', ('x',))], ('x',))
    """
    plan = expect_plan(plan, "to_graph")
    g = nx.DiGraph(
        goal=plan.goal,
        premises=plan.premises,
        unknowns=plan.unknowns,
        version=plan.version,
        trigger=plan.trigger,
        invalidated=plan.invalidated,
        time_unit=plan.time_unit,
    )
    steps = plan.by_id
    with paused_gc():  # hundreds of thousands of small dicts, none in a cycle
        g.add_nodes_from(list(steps))  # plain ids first: NetworkX's quick path
        attrs = g.nodes
        for sid, step in steps.items():
            node = attrs[sid]
            if type(step) is Step:  # its __dict__ is exactly its fields
                node.update(vars(step))
                del node["id"]
            else:
                node.update(zip(NODE_FIELDS, _node_fields(step)))
        g.add_edges_from(_edges(steps))
    return g


_node_fields = attrgetter(*NODE_FIELDS)
_NO_FACTS = {"facts": ()}  # NetworkX copies an edge's attributes, so one dict serves every edge without facts


def _edges(steps: Mapping[str, Step]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(dependency, step, {"facts": ...})`` for each dependency on a known step, in step order.

    The facts are those the step requires (in its order) that the dependency produces.
    """
    out: list[tuple[str, str, dict[str, Any]]] = []
    add = out.append
    for sid, step in steps.items():
        requires = step.requires
        for dep in step.depends_on:
            if dep not in steps:
                continue
            produced = steps[dep].produces
            if not requires or not produced:
                add((dep, sid, _NO_FACTS))
            elif len(produced) == 1:
                n = requires.count(produced[0])
                add((dep, sid, {"facts": produced * n} if n else _NO_FACTS))
            else:
                add((dep, sid, {"facts": tuple(filter(produced.__contains__, requires))}))
    return out


def from_graph(g: nx.DiGraph) -> Plan:
    """Rebuild a :class:`Plan` from a graph made by :func:`to_graph` (or by hand).

    Steps come out in topological order (ties by id) when the graph is acyclic,
    else sorted by id. The edges are the truth for dependencies between nodes:
    a node's ``depends_on`` keeps its listed order for ids that are still
    predecessors (and for ids that are not nodes, so unknown dependencies
    survive a round trip), drops the ones whose edge was removed, and appends
    new predecessors sorted. Node ids become strings.

    Parameters
    ----------
    g : networkx.DiGraph
        A graph made by :func:`to_graph`, or by hand.

    Returns
    -------
    Plan
        The plan the graph describes.

    Raises
    ------
    PlanvizTypeError
        When ``g`` is not a DiGraph (make one with :func:`to_graph`).

    Examples
    --------
    >>> g = to_graph(Plan("g", [Step("A", "a"), Step("B", "b", depends_on=["A", "ghost"])]))
    >>> g.add_edge("C", "B")
    >>> from_graph(g).step("B").depends_on
    ('A', 'ghost', 'C')
    """
    expect_type(g, nx.DiGraph, "from_graph", "g", "a networkx DiGraph", "make one with planviz.to_graph(plan)")
    try:
        order = list(nx.lexicographical_topological_sort(g, key=str))
    except nx.NetworkXUnfeasible:
        order = sorted(g, key=str)
    steps = []
    for sid in order:
        attrs = dict(g.nodes[sid])
        preds = {str(p) for p in g.predecessors(sid)}
        listed = attrs.get("depends_on") or ()
        listed = [d for d in ((listed,) if isinstance(listed, str) else listed) if d in preds or d not in g]
        attrs["depends_on"] = tuple(listed) + tuple(sorted(preds.difference(listed)))
        attrs.setdefault("action", str(sid))
        known = {k: v for k, v in attrs.items() if k in NODE_FIELDS}
        steps.append(Step(str(sid), **known))
    meta = g.graph
    return Plan(
        meta.get("goal", ""),
        tuple(steps),
        premises=meta.get("premises", ()),
        unknowns=meta.get("unknowns", ()),
        version=meta.get("version", 1),
        trigger=meta.get("trigger", ""),
        invalidated=meta.get("invalidated", ()),
        time_unit=meta.get("time_unit", ""),
    )
