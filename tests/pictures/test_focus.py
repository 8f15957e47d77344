"""Focused views: the steps drawn are exactly those claimed, and summary nodes count what they hide (parsed SVG)."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import networkx as nx
import pygraphviz as pgv
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Fault, Plan, Step, View, render, simulate, to_graph
from planviz.errors import PlanvizTypeError, RenderError, UnknownStepError
from planviz.pictures import drawing
from planviz.pictures.focus import plan_view

SVG = "{http://www.w3.org/2000/svg}"
COUNT = re.compile(r"^([\d,]+) (?:other )?steps?\b")


def parsed(svg: str) -> tuple[set[str], dict[str, int], list[ET.Element]]:
    """(step nodes drawn, {summary node name: the count its label states}, link edges) read from the SVG."""
    root = ET.fromstring(svg)
    steps, counts, links = set(), {}, []
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id") or ""
        if gid.startswith("node-"):
            steps.add(g.find(f"{SVG}title").text)
        elif gid.startswith("group-"):
            first = next(g.iter(f"{SVG}text")).text
            counts[gid.removeprefix("group-")] = int(COUNT.match(first).group(1).replace(",", ""))
        elif gid.startswith("link-"):
            links.append(g)
    return steps, counts, links


def layered(n: int, width: int = 5, seed: int = 1, kinds: tuple[str, ...] = ()) -> Plan:
    rnd = random.Random(seed)
    steps: list[Step] = []
    for i in range(n):
        pool = [s.id for s in steps[max(0, (i // width - 2) * width) : (i // width) * width]]
        deps = rnd.sample(pool, min(len(pool), rnd.randint(1, 3))) if pool else []
        steps.append(
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence="ok",
                depends_on=deps,
                produces=[f"f{i}"],
                requires=[f"f{d[1:]}" for d in deps],
                duration=rnd.randint(1, 5),
                kind=kinds[i % len(kinds)] if kinds else None,
            )
        )
    return Plan("layered", steps)


@st.composite
def dags(draw):
    n = draw(st.integers(1, 22))
    steps = []
    for i in range(n):
        deps = (
            draw(st.lists(st.sampled_from([f"T{j}" for j in range(i)]), unique=True, max_size=3))
            if i
            else []
        )
        steps.append(
            Step(
                f"T{i}",
                f"do {i}",
                expected_evidence="e",
                depends_on=deps,
                kind=draw(st.sampled_from(["read", "patch", None])),
            )
        )
    return Plan("random", draw(st.permutations(steps)))


def check_partition(plan: Plan, view: View, svg: str) -> None:
    """Every step is drawn or inside exactly one group; the SVG shows the same, with the right counts."""
    steps, counts, links = parsed(svg)
    assert steps == set(view.steps)
    assert counts == {g.name: len(g.members) for g in view.groups}
    members = [m for g in view.groups for m in g.members]
    assert len(members) == len(set(members)) and not set(members) & set(view.steps)
    assert set(members) | set(view.steps) == set(plan.ids) and len(steps) + sum(
        counts.values()
    ) == len(plan.ids)
    owner = {s: s for s in view.steps} | {
        m: i for i, g in enumerate(view.groups) for m in g.members
    }
    g = to_graph(plan)
    expected: dict[tuple, int] = {}
    for u, v in g.edges:
        if owner[u] != owner[v] and not (isinstance(owner[u], str) and isinstance(owner[v], str)):
            expected[(owner[u], owner[v])] = expected.get((owner[u], owner[v]), 0) + 1
    assert {(a, b): n for a, b, n in view.links} == expected
    assert set(view.edges) == {(u, v) for u, v in g.edges if u in steps and v in steps}
    assert len(links) == len(view.links)


@settings(max_examples=25, deadline=None)
@given(dags(), st.integers(0, 3), st.data())
def test_focus_draws_exactly_the_k_hop_neighbourhood(plan, hops, data):
    focus = data.draw(st.sampled_from(plan.ids))
    d = render(plan, focus=focus, hops=hops, max_steps=None)
    oracle = nx.ego_graph(to_graph(plan).to_undirected(), focus, radius=hops)
    assert set(d.view.steps) == set(oracle) and d.view.focus == (focus,) and d.view.hops == hops
    check_partition(plan, d.view, d.svg)
    g = to_graph(plan)
    up = set().union(*(nx.ancestors(g, s) for s in d.view.steps))
    down = set().union(*(nx.descendants(g, s) for s in d.view.steps))
    for grp in d.view.groups:
        relation = grp.name.split("-")[0]
        for m in grp.members:
            assert relation == (
                "between"
                if m in up and m in down
                else "upstream"
                if m in up
                else "downstream"
                if m in down
                else "elsewhere"
            ), (grp.name, m)


def test_big_plan_is_focused_by_default_and_whole_on_request():
    plan = layered(80)
    d = render(plan, max_steps=30)
    assert not d.view.whole and len(d.view.steps) <= 30
    assert "max_steps=None" in d.notice and str(len(d.view.steps)) in d.notice
    check_partition(plan, d.view, d.svg)
    full = render(plan, max_steps=None)
    assert full.view.whole and parsed(full.svg)[0] == set(plan.ids) and not full.notice


def test_failure_view_is_the_voided_subgraph_with_the_steps_that_feed_it():
    plan = layered(60)
    run = simulate(plan, faults=[Fault("S42", "side_effect")])
    at = next(e.index for e in run.events if e.kind == "invalidate")
    d = render(plan, run=run, at=at, max_steps=40)
    voided = set().union(
        *(
            run.frame(e.index).voided
            for e in run.events
            if e.kind == "invalidate" and e.plan_version == plan.version
        )
    )
    failed = {e.step for e in run.events if e.kind == "fail" and e.plan_version == plan.version}
    seeds = voided | failed
    feeding = {p for s in seeds for p in plan.by_id[s].depends_on} - seeds
    assert voided and set(d.view.steps) == seeds | feeding
    assert "voided" in d.view.reason and "feed" in d.view.reason
    check_partition(plan, d.view, d.svg)


def test_summary_nodes_count_each_frames_statuses_without_a_new_layout(monkeypatch):
    plan = layered(40)
    run = simulate(plan)
    calls = []
    real = drawing.lay_out
    monkeypatch.setattr(drawing, "lay_out", lambda *a, **k: calls.append(1) or real(*a, **k))
    drawing._base.cache_clear()
    for i in range(0, len(run.events), 7):
        d = render(plan, run=run, at=i, focus="S20", hops=1)
        frame = run.frame(i)
        for g in ET.fromstring(d.svg).iter(f"{SVG}g"):
            if (g.get("id") or "").startswith("group-"):
                group = next(
                    x for x in d.view.groups if x.name == g.get("id").removeprefix("group-")
                )
                shown = [t.text for t in g.iter(f"{SVG}text")][-1].replace(" …", "")
                for part in shown.split(" · "):
                    count, status = part.split(" ")
                    assert int(count) == sum(frame.statuses[m] == status for m in group.members), (
                        i,
                        part,
                    )
    assert len(calls) == 1


CHAINS = [
    (
        "a chain into a fork",
        [("B", "A"), ("C", "B"), ("D", "C"), ("E", "D"), ("F", "D")],
        [["A", "B", "C", "D"]],
    ),
    ("a diamond has no chain", [("B", "A"), ("C", "A"), ("D", "B"), ("D", "C")], []),
    (
        "two chains joined",
        [("B", "A"), ("D", "C"), ("E", "B"), ("E", "D"), ("F", "E"), ("G", "F")],
        [["A", "B"], ["C", "D"], ["E", "F", "G"]],
    ),
]


@pytest.mark.parametrize("name, edges, chains", CHAINS, ids=[c[0] for c in CHAINS])
def test_collapse_chains(name, edges, chains):
    ids = sorted({x for e in edges for x in e})
    plan = Plan(
        "g",
        [
            Step(s, s.lower(), expected_evidence="e", depends_on=[u for v, u in edges if v == s])
            for s in ids
        ],
    )
    d = render(plan, collapse="chains")
    assert [list(g.members) for g in d.view.groups] == chains
    assert all(g.kind == "chain" for g in d.view.groups)
    titles = {
        g.get("id"): next(g.iter(f"{SVG}text")).text
        for g in ET.fromstring(d.svg).iter(f"{SVG}g")
        if (g.get("id") or "").startswith("group-")
    }
    assert titles == {
        f"group-{g.name}": f"{len(g.members)} steps in a chain" for g in d.view.groups
    }
    assert parsed(d.svg)[0] == set(ids) - {m for c in chains for m in c}


@settings(max_examples=25, deadline=None)
@given(dags())
def test_collapsed_chains_are_maximal_single_links(plan):
    d = render(plan, collapse="chains", highlight=())
    g = to_graph(plan)
    foldable = {
        (u, v) for u, v in g.edges if g.out_degree(u) == 1 and g.in_degree(v) == 1 and u != v
    }
    inside = [
        (c[i], c[i + 1]) for c in (grp.members for grp in d.view.groups) for i in range(len(c) - 1)
    ]
    assert set(inside) == foldable
    check_partition_chains = {m for grp in d.view.groups for m in grp.members} | set(d.view.steps)
    assert check_partition_chains == set(plan.ids)


def test_group_by_kind_draws_one_cluster_per_kind():
    plan = layered(12, kinds=("read", "patch", "test"))
    d = render(plan, group_by="kind")
    graph = pgv.AGraph(string=d.dot)  # kept alive while its subgraphs are read
    clusters = {
        sub.graph_attr["label"]: set(sub.nodes())
        for sub in graph.subgraphs()
        if sub.name.startswith("cluster_kind_")
    }
    assert clusters == {
        k: {s.id for s in plan.steps if s.kind == k} for k in ("read", "patch", "test")
    }


BAD = [
    ({"focus": "S99"}, UnknownStepError, r"render\(focus='S99'\): no step 'S99'"),
    ({"focus": 3}, PlanvizTypeError, r"expects a step id or a list of step ids, got int 3"),
    ({"focus": ["S1", 2]}, PlanvizTypeError, r"expects step ids \(strings\), got 2"),
    ({"focus": []}, RenderError, r"names no step"),
    ({"focus": "S1", "hops": -1}, RenderError, r"hops=-1: expected a whole number"),
    ({"collapse": "cycles"}, RenderError, r"collapse='cycles': choose one of 'chains'"),
    ({"group_by": "tool"}, RenderError, r"group_by='tool': choose one of 'kind'"),
    ({"max_steps": 0}, RenderError, r"max_steps=0: expected a number of steps >= 1, or None"),
]


@pytest.mark.parametrize("options, error, message", BAD, ids=[str(b[0]) for b in BAD])
def test_bad_view_options_say_what_is_valid(options, error, message):
    with pytest.raises(error, match=message):
        render(layered(5), **options)


@settings(max_examples=25, deadline=None)
@given(dags(), st.data())
def test_thin_views_leave_out_exactly_the_edges_other_drawn_edges_imply(plan, data):
    g = to_graph(plan)
    keep = frozenset(
        data.draw(st.lists(st.sampled_from(sorted(g.edges)), max_size=2)) if g.edges else []
    )
    view = plan_view(plan, max_steps=None, thin=True, keep=keep)
    assert set(view.edges) == set(nx.transitive_reduction(g).edges) | keep
    assert view.omitted == g.number_of_edges() - len(view.edges)


def test_a_dense_plan_too_costly_to_lay_out_is_drawn_without_its_transitive_edges():
    # 780 dependencies: about a minute of dot
    plan = Plan(
        "dense",
        [
            Step(f"S{i}", "x", expected_evidence="e", depends_on=[f"S{j}" for j in range(i)])
            for i in range(40)
        ],
    )
    d = render(plan)
    steps, counts, _ = parsed(d.svg)
    assert steps == set(plan.ids) and not counts and d.view.omitted == 780 - 39
    edges = {
        g.get("id")
        for g in ET.fromstring(d.svg).iter(f"{SVG}g")
        if (g.get("id") or "").startswith("edge-")
    }
    assert edges == {f"edge-S{i}->S{i + 1}" for i in range(39)}
    assert re.match(
        r"Laying out all 40 steps would take about \d+ s .*Showing all 40 steps; 741 transitive "
        r"dependencies are left out",
        d.notice,
    )
