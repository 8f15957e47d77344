"""Batched ancestor queries against NetworkX: every tier, bit reuse, several sweeps, the few-groups sweep, any
file order."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step, to_graph
from planviz.structure import ancestry
from planviz.structure.index import structure_index

# (MAX_BITS, EPOCH, FEW): the defaults; one bit (every group waits for its own sweep); bits reused at every
# step; every sweep pulling one bit per group from the dependencies
LIMITS = [
    (ancestry.MAX_BITS, ancestry.EPOCH, ancestry.FEW),
    (1, 1, 0),
    (2, 1, 0),
    (3, 5, 0),
    (1, 1, 10**9),
]


def oracle(g: nx.DiGraph, queries):
    return [bool(group & nx.ancestors(g, node)) for group, node in queries]


def asked(plan: Plan, queries, limits=None, near=True):
    with pytest.MonkeyPatch.context() as mp:
        if limits is not None:
            mp.setattr(ancestry, "MAX_BITS", limits[0])
            mp.setattr(ancestry, "EPOCH", limits[1])
            mp.setattr(ancestry, "FEW", limits[2])
        return ancestry.ancestor_queries(structure_index(plan), queries, near=near)


@pytest.mark.parametrize("limits", LIMITS)
def test_ancestor_queries_match_networkx_on_a_random_dag(limits):
    rng = random.Random(7)
    steps = [
        Step(f"S{i}", "a", depends_on=rng.sample([f"S{j}" for j in range(i)], min(i, 2)))
        for i in range(300)
    ]
    p = Plan("g", steps)
    g = to_graph(p)
    queries = [
        (frozenset(rng.sample(list(g), rng.randint(0, 3))), f"S{rng.randrange(300)}")
        for _ in range(400)
    ]
    expected = oracle(g, queries)
    assert asked(p, queries, limits) == expected
    assert asked(p, queries, limits, near=False) == expected


def far_producer_plan(n: int, seed: int) -> tuple[Plan, list[tuple[frozenset[str], str]]]:
    """Layers of ~sqrt(n) steps; each step asks for a step 2 to 20 levels up along a random path, or a stranger."""
    rng = random.Random(seed)
    width = max(2, int(n**0.5))
    parents: dict[str, list[str]] = {}
    layers: list[list[str]] = []
    queries = []
    for i in range(n):
        layer, col = divmod(i, width)
        if col == 0:
            layers.append([])
        sid = f"S{i}"
        deps = (
            rng.sample(layers[layer - 1], rng.randint(1, min(3, len(layers[layer - 1]))))
            if layer
            else []
        )
        parents[sid] = deps
        layers[-1].append(sid)
        if layer >= 2:
            up = rng.randint(2, min(20, layer))
            a = rng.choice(deps)
            for _ in range(up - 1):
                a = rng.choice(parents[a])
            # same level as the ancestor, maybe not one
            stranger = rng.choice(layers[max(0, layer - up)])
            queries.append((frozenset((a,)), sid))
            queries.append((frozenset((stranger,)), sid))
            queries.append((frozenset((a, stranger)), sid))
    steps = [Step(sid, "a", depends_on=deps) for sid, deps in parents.items()]
    rng.shuffle(steps)  # answers never depend on the file order
    return Plan("g", steps), queries


@pytest.mark.parametrize("limits", LIMITS)
def test_facts_from_far_up_match_networkx(limits):
    plan, queries = far_producer_plan(600, seed=3)
    expected = oracle(to_graph(plan), queries)
    assert any(expected) and not all(expected)
    assert asked(plan, queries, limits) == expected
    assert asked(plan, queries, limits, near=False) == expected


@st.composite
def dags_and_queries(draw):
    n = draw(st.integers(1, 25))
    ids = [f"S{i}" for i in range(n)]
    steps = [
        Step(sid, "a", depends_on=draw(st.lists(st.sampled_from(ids[:i]), max_size=3)) if i else [])
        for i, sid in enumerate(ids)
    ]
    steps = draw(st.permutations(steps))
    groups = st.frozensets(st.sampled_from(ids), max_size=4)
    queries = draw(st.lists(st.tuples(groups, st.sampled_from(ids)), max_size=30))
    return Plan("g", steps), queries


@pytest.mark.parametrize("limits", LIMITS)
@settings(max_examples=80, deadline=None)
@given(case=dags_and_queries(), near=st.booleans())
def test_ancestor_queries_agree_with_networkx(limits, case, near):
    plan, queries = case
    assert asked(plan, queries, limits, near) == oracle(to_graph(plan), queries)


@pytest.mark.parametrize("limits", LIMITS)
@settings(max_examples=60, deadline=None)
@given(case=dags_and_queries())
def test_ancestor_pairs_agree_with_networkx(limits, case):
    plan, queries = case
    pairs = [(min(group), node) for group, node in queries if group]  # one step each
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ancestry, "MAX_BITS", limits[0])
        mp.setattr(ancestry, "EPOCH", limits[1])
        mp.setattr(ancestry, "FEW", limits[2])
        answers = ancestry.ancestor_pairs(
            structure_index(plan), [a for a, _ in pairs], [s for _, s in pairs]
        )
    assert answers == oracle(to_graph(plan), [(frozenset((a,)), s) for a, s in pairs])


def test_plans_with_duplicates_and_self_dependencies_are_answered_on_their_first_steps():
    plan = Plan(
        "g",
        [
            Step("A", "a"),
            Step("B", "b", depends_on=["A", "B"]),
            Step("C", "c", depends_on="B"),
            Step("A", "again", depends_on="C"),
        ],
    )
    queries = [
        (frozenset("A"), "C"),
        (frozenset("C"), "A"),
        (frozenset("B"), "B"),
        (frozenset(), "C"),
    ]
    assert asked(plan, queries) == asked(plan, queries, (1, 1, 0)) == [True, False, False, False]


@pytest.mark.parametrize("limits", LIMITS)
@pytest.mark.parametrize("listed", ["in dependency order", "reversed"])
def test_long_edges_and_bits_reused_match_networkx(limits, listed):
    """Steps reading dependencies far back (which must not be dropped or keep a reused bit) and near ones."""
    rng = random.Random(11)
    ids = [f"S{i}" for i in range(400)]
    steps = [
        Step(
            sid,
            "a",
            depends_on=sorted(
                {
                    rng.choice(ids[:i]) if rng.random() < 0.2 else ids[i - 1]
                    for _ in range(rng.randint(1, 3))
                }
            )
            if i
            else [],
        )
        for i, sid in enumerate(ids)
    ]
    plan = Plan("g", steps if listed == "in dependency order" else steps[::-1])
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(600)]
    queries = [(frozenset((a,)), s) for a, s in pairs] + [
        (frozenset(rng.sample(ids, 3)), rng.choice(ids)) for _ in range(200)
    ]
    expected = oracle(to_graph(plan), queries)
    assert any(expected) and not all(expected)
    assert asked(plan, queries, limits, near=False) == expected
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ancestry, "MAX_BITS", limits[0])
        mp.setattr(ancestry, "EPOCH", limits[1])
        mp.setattr(ancestry, "FEW", limits[2])
        answers = ancestry.ancestor_pairs(
            structure_index(plan), [a for a, _ in pairs], [s for _, s in pairs]
        )
    assert answers == expected[: len(pairs)]
