"""Batched ancestor queries against NetworkX, including the bitset pass (small chunks, no walks)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from planviz import Plan, Step, to_graph
from planviz.structure import ancestry
from planviz.structure.index import structure_index


def test_ancestor_queries_match_networkx_on_a_random_dag():
    rng = random.Random(7)
    steps = [Step(f"S{i}", "a", depends_on=rng.sample([f"S{j}" for j in range(i)], min(i, 2))) for i in range(300)]
    p = Plan("g", steps)
    g = to_graph(p)
    queries = [(frozenset(rng.sample(list(g), rng.randint(0, 3))), f"S{rng.randrange(300)}") for _ in range(400)]
    ix = structure_index(p)
    expected = [bool(group & nx.ancestors(g, node)) for group, node in queries]
    assert ancestry.ancestor_queries(ix, queries) == expected
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ancestry, "CHUNK_BITS", 3)
        mp.setattr(ancestry, "GIVE_UP", 0)
        assert ancestry.ancestor_queries(ix, queries) == expected
