"""to_graph, from_graph: plans as NetworkX DAGs and back."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planviz import Plan, Step, from_graph, to_graph
from planviz.structure.graph import NODE_FIELDS as STEP_FIELDS


@pytest.mark.parametrize("edge, facts", [
    (("S0", "S1"), ("leak_reproduced",)),
    (("S0", "S2"), ("leak_reproduced",)),
    (("S1", "S3"), ("key_builder_located",)),
    (("S2", "S3"), ("isolation_test_written",)),
    (("S3", "S4"), ("patch_applied",)),
])
def test_cache_edges_carry_their_facts(cache_plan, edge, facts):
    g = to_graph(cache_plan)
    assert g.edges[edge]["facts"] == facts


def test_cache_graph_shape(cache_plan):
    g = to_graph(cache_plan)
    assert sorted(g.nodes) == ["S0", "S1", "S2", "S3", "S4"]
    assert g.number_of_edges() == 5
    assert nx.is_directed_acyclic_graph(g)
    assert g.nodes["S3"]["rollback"] == "git revert the patch commit"
    assert g.nodes["S4"]["duration"] == 10.0
    assert g.graph["goal"] == cache_plan.goal and g.graph["time_unit"] == "min"
    assert g.graph["premises"] == ("the service uses the level-1 cache",)


def test_every_step_field_is_a_node_attribute(cache_plan):
    g = to_graph(cache_plan)
    for s in cache_plan.steps:
        assert {name: getattr(s, name) for name in STEP_FIELDS} == g.nodes[s.id]


def test_edge_facts_empty_when_nothing_flows():
    g = to_graph(Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="y")]))
    assert g.edges["A", "B"]["facts"] == ()


def test_duplicates_keep_the_first_and_unknown_dependencies_add_no_edge():
    p = Plan("g", [Step("A", "first"), Step("A", "second"), Step("B", "b", depends_on=["A", "ghost"])])
    g = to_graph(p)
    assert g.nodes["A"]["action"] == "first"
    assert sorted(g.edges) == [("A", "B")] and "ghost" not in g


def test_self_dependency_is_a_self_loop():
    g = to_graph(Plan("g", [Step("A", "a", depends_on="A")]))
    assert list(nx.selfloop_edges(g)) == [("A", "A")]


def test_from_graph_of_a_hand_made_graph():
    g = nx.DiGraph([("fetch", "parse"), ("parse", "report"), ("fetch", "report")])
    g.nodes["parse"]["duration"] = 2
    p = from_graph(g)
    assert p.ids == ("fetch", "parse", "report")
    assert p.step("report").depends_on == ("fetch", "parse")
    assert p.step("fetch").action == "fetch" and p.step("parse").duration == 2.0


def test_from_graph_follows_edited_edges(cache_plan):
    g = to_graph(cache_plan)
    g.remove_edge("S2", "S3")
    g.add_edge("S2", "S4")
    p = from_graph(g)
    assert p.step("S3").depends_on == ("S1",)
    assert p.step("S4").depends_on == ("S3", "S2")


def test_from_graph_of_a_cycle_sorts_by_id():
    p = from_graph(nx.DiGraph([("b", "a"), ("a", "b"), ("c", "a")]))
    assert p.ids == ("a", "b", "c")
    assert p.step("a").depends_on == ("b", "c")


def test_from_graph_ignores_unknown_attributes():
    g = nx.DiGraph()
    g.add_node("A", action="a", URL="javascript:alert(1)", color="red")
    assert from_graph(g).step("A") == Step("A", "a")


@st.composite
def plans(draw):
    n = draw(st.integers(0, 12))
    ids = [f"S{i}" for i in range(n)]
    facts = ["x", "y", "z"]
    steps = []
    for i, sid in enumerate(ids):
        deps = draw(st.lists(st.sampled_from(ids[:i]), max_size=3, unique=True)) if i else []
        steps.append(Step(sid, f"do {sid}", expected_evidence="e", depends_on=deps,
                          requires=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                          produces=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                          duration=draw(st.integers(0, 9)), kind=draw(st.sampled_from([None, "patch"]))))
    return Plan("g", steps, premises=["p"], time_unit="min")


@settings(max_examples=80, deadline=None)
@given(plans(), st.randoms(use_true_random=False))
def test_graph_matches_the_plan_and_round_trips(p, rnd):
    g = to_graph(p)
    assert set(g.edges) == {(d, s.id) for s in p.steps for d in s.depends_on}
    for u, v, facts in g.edges(data="facts"):
        assert set(facts) == set(p.step(u).produces) & set(p.step(v).requires)
    back = from_graph(g)
    assert sorted(back.steps, key=lambda s: s.id) == sorted(p.steps, key=lambda s: s.id)
    assert (back.goal, back.premises, back.time_unit) == (p.goal, p.premises, p.time_unit)
    assert list(back.ids) == list(nx.lexicographical_topological_sort(g))
    steps = list(p.steps)
    rnd.shuffle(steps)
    shuffled = to_graph(p.replace(steps=tuple(steps)))
    assert nx.utils.graphs_equal(shuffled, g)
    assert from_graph(shuffled) == back
