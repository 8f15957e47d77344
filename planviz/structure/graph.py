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

from dataclasses import fields
from operator import attrgetter

import networkx as nx

from planviz.errors import expect_type
from planviz.plan.arguments import expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.model import Plan, Step

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
    # Written straight into the new graph's own dicts (node -> attributes, successors, predecessors), as
    # NetworkX's graph builders do: add_nodes_from/add_edges_from would check and copy every node and edge
    # again, which cost as much as making them (issue 28). Each edge gets its own attribute dict, shared by
    # its two ends as NetworkX shares it; tests/structure/test_graph.py compares with add_node/add_edge.
    nodes, succ, pred = g._node, g._succ, g._pred
    with paused_gc():  # hundreds of thousands of small dicts, none in a cycle
        for sid, step in steps.items():
            nodes[sid] = dict(zip(NODE_FIELDS, _node_fields(step)))
            succ[sid] = {}
            pred[sid] = {}
        for sid, step in steps.items():
            requires = step.requires
            into = pred[sid]
            for dep in step.depends_on:
                if dep not in steps:
                    continue
                produced = steps[dep].produces
                if not requires or not produced:
                    facts: tuple[str, ...] = ()
                elif len(produced) == 1:
                    facts = produced * requires.count(produced[0])
                else:
                    facts = tuple(filter(produced.__contains__, requires))
                succ[dep][sid] = into[dep] = {"facts": facts}
    return g


_node_fields = attrgetter(*NODE_FIELDS)


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
    expect_type(
        g,
        nx.DiGraph,
        "from_graph",
        "g",
        "a networkx DiGraph",
        "make one with planviz.to_graph(plan)",
    )
    try:
        order = list(nx.lexicographical_topological_sort(g, key=str))
    except nx.NetworkXUnfeasible:
        order = sorted(g, key=str)
    steps = []
    for sid in order:
        attrs = dict(g.nodes[sid])
        preds = {str(p) for p in g.predecessors(sid)}
        listed = attrs.get("depends_on") or ()
        listed = [
            d
            for d in ((listed,) if isinstance(listed, str) else listed)
            if d in preds or d not in g
        ]
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
