"""planviz.pictures.arrangement: render(reduce=...) and the direction of long chains, on the parsed SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Finding, Plan, Step, render, to_graph
from planviz.errors import PlanvizTypeError, RenderError
from planviz.pictures.arrangement import LONG_CHAIN, hidden_edges
from tests.pictures.test_drawing import SVG, classes, groups, texts
from tests.strategies import plans as random_plans

# A -> B -> C -> D, plus the shortcuts A -> C (carries the fact x), A -> D and B -> D (carry nothing).
DIAMOND = Plan(
    "g",
    [
        Step("A", "a", expected_evidence="e", produces="x"),
        Step("B", "b", expected_evidence="e", depends_on="A"),
        Step("C", "c", expected_evidence="e", depends_on=["A", "B"], requires="x"),
        Step("D", "d", expected_evidence="e", depends_on=["A", "B", "C"]),
    ],
)
ALL = {"A->B", "B->C", "C->D", "A->C", "A->D", "B->D"}


@pytest.mark.parametrize(
    "reduce, drawn",
    [
        (False, ALL),
        (True, ALL - {"A->D", "B->D"}),  # the edge carrying x stays
        ("all", ALL - {"A->D", "B->D", "A->C"}),
    ],
)
def test_reduce_hides_transitive_edges(reduce, drawn):
    svg = render(DIAMOND, reduce=reduce).svg
    assert set(groups(svg, "edge-")) == drawn
    caption = " ".join(
        t.text or "" for t in ET.fromstring(svg).find(f"{SVG}g").findall(f"{SVG}text")
    )
    hidden = len(ALL - drawn)
    assert (f"{hidden} edges not drawn (reduce={reduce!r}" in caption) is bool(hidden)


def test_reduce_keeps_critical_and_flagged_edges():
    plan = DIAMOND.replace(
        steps=[
            s
            if s.id != "C"
            else Step(
                "C", "c", expected_evidence="e", depends_on=["A", "B"], requires="x", duration=0
            )
            for s in DIAMOND.steps
        ]
    )
    flagged = Finding(
        "link_mismatch", "import", "warning", "A -> D is stated twice", ("A", "D"), (("A", "D"),)
    )
    svg = render(plan.replace(import_findings=(flagged,)), reduce="all").svg
    edges = groups(svg, "edge-")
    assert "A->D" in edges and {"finding", "finding-warning"} <= classes(edges["A->D"])
    # C takes no time: B -> D is on the path
    assert "B->D" in edges and "critical" in classes(edges["B->D"])
    assert "A->C" not in edges


def test_reduce_leaves_a_plan_with_a_cycle_alone():
    plan = Plan(
        "g",
        [
            Step("A", "a", depends_on="B"),
            Step("B", "b", depends_on="A"),
            Step("C", "c", depends_on="A"),
        ],
    )
    assert len(groups(render(plan, reduce=True).svg, "edge-")) == 3


@pytest.mark.parametrize(
    "reduce, error", [("some", RenderError), (1, PlanvizTypeError), (None, PlanvizTypeError)]
)
def test_reduce_refuses_other_values(reduce, error):
    with pytest.raises(error, match=r"True, False or 'all'|'all' \(hide every transitive edge\)"):
        render(DIAMOND, reduce=reduce)


def dags():
    return random_plans(max_steps=12, max_deps=4, goal="g", premises=())


@settings(max_examples=150, deadline=None)
@given(dags(), st.sampled_from([True, "all"]))
def test_hidden_edges_keep_the_order_and_every_fact(plan, reduce):
    """NetworkX as the oracle: what is drawn has the same transitive closure, and keeps every fact-carrying edge
    under reduce=True."""
    g = to_graph(plan)
    hidden = hidden_edges(plan, reduce)
    drawn = g.copy()
    drawn.remove_edges_from(hidden)
    assert set(nx.transitive_closure_dag(drawn).edges()) == set(
        nx.transitive_closure_dag(g).edges()
    )
    assert set(nx.transitive_reduction(g).edges()) <= set(drawn.edges())
    if reduce is True:
        assert all(not g.edges[e]["facts"] for e in hidden)
    else:
        assert set(drawn.edges()) == set(nx.transitive_reduction(g).edges())


def chain(n: int) -> Plan:
    return Plan(
        "g",
        [
            Step(f"S{i}", f"step {i}", expected_evidence="e", depends_on=[f"S{i - 1}"] if i else [])
            for i in range(n)
        ],
    )


def centre(group) -> tuple[float, float]:
    t = next(group.iter(f"{SVG}text"))
    return float(t.get("x")), float(t.get("y"))


@pytest.mark.parametrize("n, vertical", [(LONG_CHAIN, False), (LONG_CHAIN + 1, True), (30, True)])
def test_a_long_chain_runs_top_to_bottom(n, vertical):
    nodes = groups(render(chain(n)).svg, "node-")
    points = [centre(nodes[f"S{i}"]) for i in range(n)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if vertical:
        assert len(set(xs)) == 1 and ys == sorted(ys) and len(set(ys)) == n
    else:
        assert len(set(ys)) == 1 and xs == sorted(xs) and len(set(xs)) == n
    assert texts(nodes["S1"])[1] == "step 1"
