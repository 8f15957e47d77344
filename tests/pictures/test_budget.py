"""The layout cost model: what it counts (NetworkX as the oracle), what it predicts, and how render uses it."""

from __future__ import annotations

from types import SimpleNamespace

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step
from planviz.pictures import budget
from planviz.pictures.budget import (
    duration_text,
    estimate,
    layout_features,
    pick_layout,
    view_features,
)
from planviz.pictures.focus import candidate_views, plan_view

# the real one (tests/conftest.py pins it to an idle machine during tests)
SLOWDOWN = budget.slowdown


def dense(n: int) -> Plan:
    return Plan(
        "dense",
        [
            Step(f"S{i}", "x", expected_evidence="e", depends_on=[f"S{j}" for j in range(i)])
            for i in range(n)
        ],
    )


def chain(n: int) -> Plan:
    return Plan(
        "chain",
        [
            Step(f"S{i}", "x", expected_evidence="e", depends_on=[f"S{i - 1}"] if i else [])
            for i in range(n)
        ],
    )


@st.composite
def dags(draw):
    n = draw(st.integers(1, 30))
    edges = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e[0] < e[1]),
            max_size=60,
            unique=True,
        )
    )
    return list(range(n)), edges


@settings(max_examples=60, deadline=None)
@given(dags(), st.booleans())
def test_features_count_the_virtual_nodes_of_long_edges(graph, labelled):
    nodes, edges = graph
    f = layout_features(nodes, edges, labelled)
    g = nx.DiGraph(edges)
    g.add_nodes_from(nodes)
    # longest path from a source
    rank = {v: i for i, gen in enumerate(nx.topological_generations(g)) for v in gen}
    m = 2 if labelled else 1
    spans = [m * (rank[v] - rank[u]) for u, v in edges]
    assert (f.steps, f.edges, f.labelled) == (len(nodes), len(edges), labelled)
    assert f.segments == sum(spans) and f.nodes == len(nodes) + sum(s - 1 for s in spans)
    occupancy = [0] * (m * len(nodes) + 2)
    for v in nodes:
        occupancy[m * rank[v]] += 1
    for (u, v), _s in zip(edges, spans):
        for r in range(m * rank[u] + 1, m * rank[v]):
            occupancy[r] += 1
    assert f.width == max(occupancy)


def test_features_of_a_cycle_are_finite():
    f = layout_features(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "b")], labelled=False)
    assert f.nodes >= 3 and f.width >= 1


@pytest.mark.parametrize(
    "plan, low, high",
    [
        (chain(300), 0.0, 0.5),  # a chain is cheap whatever its length
        (dense(15), 0.0, 1.0),  # 15 steps, 105 dependencies: measured 0.06 s
        (dense(40), 10.0, None),  # measured about 40 s
        (dense(60), 600.0, None),  # issue 13: over 10 minutes
    ],
)
def test_estimates_of_known_shapes(plan, low, high):
    seconds = estimate(view_features(plan, plan_view(plan, max_steps=None))).seconds
    assert seconds >= low and (high is None or seconds <= high), seconds


def test_memory_grows_with_the_nodes_dot_creates():
    small, big = (
        estimate(view_features(p, plan_view(p, max_steps=None))).memory
        for p in (dense(40), dense(600))
    )
    assert big > 1e9 > small  # issue 13: the 600-step dense plan used 23 GB


def attempts(ok=lambda view: True):
    tried = []

    def attempt(view, in_child):
        tried.append((view, in_child))
        return SimpleNamespace(
            layout=object() if ok(view) else None, notice="stopped at the time limit", view=view
        )

    return tried, attempt


def test_a_layout_over_half_the_budget_is_not_tried():
    plan = dense(60)
    tried, attempt = attempts()
    base, notice = pick_layout(plan, candidate_views(plan, max_steps=300), 10.0, None, attempt)
    assert tried and base.view is tried[0][0] and not tried[0][0].whole
    assert estimate(view_features(plan, tried[0][0])).seconds <= 5.0
    assert (
        notice.startswith("Laying out all 60 steps would take about ")
        and "budget of 10 s" in notice
    )


def test_a_view_that_fails_falls_back_to_the_next_and_none_left_means_a_summary():
    plan = chain(40)
    tried, attempt = attempts(ok=lambda view: len(view.steps) < 20)
    base, notice = pick_layout(plan, candidate_views(plan, max_steps=30), 10.0, None, attempt)
    assert [len(v.steps) for v, _ in tried] == [30, 15] and base.view is tried[1][0]
    assert "stopped at the time limit" in notice and "Showing the first 15 steps" in notice
    tried, attempt = attempts(ok=lambda view: False)
    assert pick_layout(plan, candidate_views(plan, max_steps=30), 10.0, None, attempt)[0] is None


def test_no_budget_tries_anything_and_slow_layouts_go_to_a_child(monkeypatch):
    plan = dense(30)
    tried, attempt = attempts()
    pick_layout(plan, candidate_views(plan, max_steps=None), None, None, attempt)
    assert [(v.whole, in_child) for v, in_child in tried] == [(True, True)]
    monkeypatch.setattr(budget, "IN_PROCESS_SECONDS", 1e9)
    tried, attempt = attempts()
    pick_layout(plan, candidate_views(plan, max_steps=None), None, None, attempt)
    assert [in_child for _, in_child in tried] == [False]


def test_memory_limit_skips_views_estimated_above_it():
    plan = dense(40)
    tried, attempt = attempts()
    _, notice = pick_layout(plan, candidate_views(plan, max_steps=None), None, 1000, attempt)
    assert not tried and "would need about" in notice and "memory=1,000 bytes" in notice


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0.2, "under a second"),
        (40, "about 40 s"),
        (130, "about 2 min"),
        (725, "about 12 min"),
        (3 * 3600, "about 3 h"),
        (9 * 86400, "about 9 days"),
        (1e9, "more than a year"),
    ],
)
def test_duration_text(seconds, text):
    assert duration_text(seconds) == text


def test_after_a_layout_ran_out_of_time_only_quick_views_are_tried(monkeypatch):
    plan = dense(24)  # views of 24 steps (about 1.6 s) and 12 (under 0.1 s)
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(budget.time, "monotonic", lambda: clock.now)
    tried = []

    def attempt(view, in_child):  # every layout runs out of the whole budget
        tried.append(view)
        clock.now += 10.0
        return SimpleNamespace(layout=None, notice="stopped at the time limit", view=view)

    pick_layout(plan, candidate_views(plan, max_steps=300), 10.0, None, attempt)
    seconds = [estimate(view_features(plan, v)).seconds for v in tried]
    assert len(seconds) >= 2 and budget.QUICK_SECONDS < seconds[0] <= 5.0
    assert all(s <= budget.QUICK_SECONDS for s in seconds[1:])


def test_a_busy_machine_makes_estimates_longer(monkeypatch):
    # its whole view is estimated at about 1.6 s: tried on an idle machine, not at 4x slower
    plan = dense(24)
    tried, attempt = attempts()
    pick_layout(plan, candidate_views(plan, max_steps=300), 10.0, None, attempt)
    assert tried[0][0].whole
    monkeypatch.setattr(budget, "slowdown", lambda: 4.0)
    tried, attempt = attempts()
    _, notice = pick_layout(plan, candidate_views(plan, max_steps=300), 10.0, None, attempt)
    assert not tried[0][0].whole and "this machine is busy, 4.0 times slower than idle)" in notice


@pytest.mark.parametrize("load, cores, factor", [(8.0, 2, 4.0), (0.5, 2, 1.0), (3.0, None, 3.0)])
def test_slowdown_is_the_load_per_core_and_at_least_one(monkeypatch, load, cores, factor):
    monkeypatch.setattr(budget.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(budget.os, "cpu_count", lambda: cores)
    assert SLOWDOWN() == factor


def test_slowdown_without_a_load_average_is_one(monkeypatch):
    monkeypatch.delattr(budget.os, "getloadavg")
    assert SLOWDOWN() == 1.0


@pytest.mark.parametrize(
    "focus, hint",
    [
        (
            "S3",
            "Without focus= (planviz render without --focus), max_steps=None (--full) draws every step.",
        ),
        (None, "max_steps=None (planviz render --full) draws every step."),
    ],
)
def test_the_notice_says_how_to_draw_every_step(focus, hint):
    from planviz import render

    plan = Plan(
        "g",
        [
            Step(
                f"S{i}",
                "a",
                expected_evidence="e",
                produces=f"f{i}",
                depends_on=[f"S{i - 1}"] if i else [],
            )
            for i in range(400)
        ],
    )
    notice = render(plan, focus=focus).notice
    assert notice.endswith(hint) and (("neighbourhood of 'S3'" in notice) == (focus is not None))
