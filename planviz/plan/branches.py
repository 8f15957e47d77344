"""Branches: a set of steps split into the groups their dependencies connect.

Findings about many steps at once (a dead end, nodes not reached from START)
name each connected branch once rather than each step. Read from raw
dependency lists, so importers (before a plan exists) and checks share it.

>>> connected_branches({"b", "a", "c"}, {"a": [], "b": ["a"], "c": ["x"]})
[['a', 'b'], ['c']]
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from planviz.plan.model import natural_key

__all__ = ["connected_branches"]


def connected_branches(
    members: set[str], parents: Mapping[str, Iterable[str]], key: Callable[[str], Any] = natural_key
) -> list[list[str]]:
    """``members`` split into the groups their dependencies connect (direction ignored).

    Each branch is sorted by ``key`` and the branches by their first member.
    Dependencies on steps outside ``members`` are ignored.
    """
    import networkx as nx  # only an input with such a branch pays for it

    g = nx.Graph()
    g.add_nodes_from(members)
    g.add_edges_from((p, u) for u in members for p in parents[u] if p in members)
    return sorted((sorted(c, key=key) for c in nx.connected_components(g)), key=lambda b: key(b[0]))
