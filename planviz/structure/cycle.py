"""Cycles: the one place that finds and names the loops of a plan's dependencies.

Validation reports a ``cycle`` finding per loop and every analysis refuses a
cyclic plan with a :class:`~planviz.errors.StructureError`; both take their
cycles from :func:`find_cycles`, so they always name the same loop: for each
strongly connected component (in order of its smallest id), the shortest
cycle through its smallest id, whatever the order of steps in the file.

>>> from planviz import Plan, Step
>>> from planviz.structure.index import structure_index
>>> plan = Plan("g", [Step("A", "a", depends_on=["E", "D"]), Step("B", "b", depends_on=["C", "A"]),
...                   Step("C", "c", depends_on="E"), Step("D", "d", depends_on=["E", "A"]),
...                   Step("E", "e", depends_on=["D", "B"])])
>>> [c.route() for c in find_cycles(structure_index(plan))]
["'A' -> 'D' -> 'A'"]
"""

from __future__ import annotations

from dataclasses import dataclass

from planviz.plan.model import natural_key
from planviz.structure.index import StructureIndex

__all__ = ["Cycle", "find_cycles"]

_SHOWN = 12


@dataclass(frozen=True)
class Cycle:
    """One loop: ``steps`` (its strongly connected component, sorted) and ``edges``, a shortest cycle
    through the component's smallest id, as ``(dependency, dependent)`` pairs starting there."""

    steps: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]

    def route(self) -> str:
        """``'A' -> 'D' -> 'A'``; a long loop shows its ends and how many steps it skips."""
        nodes = [u for u, _ in self.edges]
        shown = nodes + nodes[:1]
        if len(shown) <= _SHOWN:
            return " -> ".join(map(repr, shown))
        return (
            " -> ".join(map(repr, shown[:5]))
            + f" -> ... ({len(nodes) - 9} more) -> "
            + " -> ".join(map(repr, shown[-5:]))
        )


def find_cycles(ix: StructureIndex) -> list[Cycle]:
    """Every loop among ``ix.cyclic_nodes``, one :class:`Cycle` per strongly connected component."""
    import networkx as nx  # only plans with a cycle pay for it

    rest = sorted(ix.cyclic_nodes, key=natural_key)
    inside = set(rest)
    edges = sorted(
        ((p, v) for v in rest for p in ix.parents[v] if p in inside),
        key=lambda e: (natural_key(e[0]), natural_key(e[1])),
    )
    g = nx.DiGraph()
    g.add_nodes_from(rest)
    g.add_edges_from(edges)
    sccs = sorted(
        (sorted(c, key=natural_key) for c in nx.strongly_connected_components(g) if len(c) > 1),
        key=lambda c: [natural_key(x) for x in c],
    )
    out = []
    for scc in sccs:
        h = g.subgraph(scc)
        start = scc[0]
        dist = nx.single_source_shortest_path_length(h, start)
        back = min(h.predecessors(start), key=lambda u: (dist[u], natural_key(u)))
        nodes = nx.shortest_path(h, start, back)
        out.append(Cycle(tuple(scc), tuple(zip(nodes, nodes[1:] + nodes[:1]))))
    return out
