"""to_graph, from_graph: plans as NetworkX DAGs and back."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step, from_graph, to_graph
from planviz.structure.graph import NODE_FIELDS as STEP_FIELDS


@pytest.mark.parametrize(
    "edge, facts",
    [
        (("S0", "S1"), ("leak_reproduced",)),
        (("S0", "S2"), ("leak_reproduced",)),
        (("S1", "S3"), ("key_builder_located",)),
        (("S2", "S3"), ("isolation_test_written",)),
        (("S3", "S4"), ("patch_applied",)),
    ],
)
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
    g = to_graph(
        Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="y")])
    )
    assert g.edges["A", "B"]["facts"] == ()


def test_duplicates_keep_the_first_and_unknown_dependencies_add_no_edge():
    p = Plan(
        "g", [Step("A", "first"), Step("A", "second"), Step("B", "b", depends_on=["A", "ghost"])]
    )
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
        steps.append(
            Step(
                sid,
                f"do {sid}",
                expected_evidence="e",
                depends_on=deps,
                requires=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                produces=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                duration=draw(st.integers(0, 9)),
                kind=draw(st.sampled_from([None, "patch"])),
            )
        )
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


def reference_graph(plan: Plan) -> nx.DiGraph:
    """The obvious construction, one add_node / add_edge at a time: what to_graph must build."""
    g = nx.DiGraph(
        goal=plan.goal,
        premises=plan.premises,
        unknowns=plan.unknowns,
        version=plan.version,
        trigger=plan.trigger,
        invalidated=plan.invalidated,
        time_unit=plan.time_unit,
    )
    for step in plan.steps:
        if step.id not in g:
            g.add_node(step.id, **{name: getattr(step, name) for name in STEP_FIELDS})
    for sid in list(g):
        for dep in g.nodes[sid]["depends_on"]:
            if dep in g:
                g.add_edge(
                    dep,
                    sid,
                    facts=tuple(
                        f for f in g.nodes[sid]["requires"] if f in set(g.nodes[dep]["produces"])
                    ),
                )
    return g


@dataclass(frozen=True)
class LabelledStep(Step):
    """A subclass with a field of its own: its nodes carry the Step fields only."""

    label: str = "mine"


@st.composite
def messy_plans(draw):
    """Duplicate ids, unknown and self dependencies, facts listed twice, several facts per step, a subclass."""
    ids = [f"S{i}" for i in range(draw(st.integers(0, 10)))]
    names = st.sampled_from(ids + ["ghost"]) if ids else st.just("ghost")
    facts = st.lists(st.sampled_from(["x", "y", "z"]), max_size=3)
    steps = [
        draw(st.sampled_from([Step, LabelledStep]))(
            draw(st.sampled_from(ids)) if ids and draw(st.integers(0, 6)) == 0 else sid,
            f"do {sid}",
            depends_on=draw(st.lists(names, max_size=3)),
            requires=draw(facts),
            produces=draw(facts),
            arguments=draw(st.dictionaries(st.sampled_from("ab"), st.integers(), max_size=1)),
        )
        for sid in ids
    ]
    return Plan("g", steps, premises=["p"], unknowns=["u"], version=2, trigger="t", time_unit="min")


@settings(max_examples=150, deadline=None)
@given(messy_plans())
def test_to_graph_builds_exactly_the_obvious_graph(plan):
    g, expected = to_graph(plan), reference_graph(plan)
    assert g.graph == expected.graph
    assert list(g.nodes(data=True)) == list(expected.nodes(data=True))
    assert [list(d) for _, d in g.nodes(data=True)] == [
        list(d) for _, d in expected.nodes(data=True)
    ]
    assert list(g.edges(data=True)) == list(expected.edges(data=True))
    assert [list(g.predecessors(n)) for n in g] == [
        list(expected.predecessors(n)) for n in expected
    ]
    first = {}
    for step in plan.steps:
        first.setdefault(step.id, step)
    for sid, step in first.items():
        assert all(g.nodes[sid][name] is getattr(step, name) for name in STEP_FIELDS)
