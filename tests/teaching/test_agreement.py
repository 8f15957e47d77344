"""The random plans a student's function is checked on, and how the first disagreement is found."""

from __future__ import annotations

import networkx as nx

from planviz import to_graph
from planviz.teaching.agreement import ancestor_cases, first_disagreement, random_plans, reach_cases


def test_plans_are_acyclic_small_first_and_deterministic():
    plans = random_plans(300)
    assert all(nx.is_directed_acyclic_graph(to_graph(p)) for p in plans)
    sizes = [len(p.steps) for p in plans]
    assert sizes == sorted(sizes) and sizes[0] == 1 and sizes[-1] == 8
    assert random_plans(300) == plans


def test_file_order_is_not_dependency_order():
    """Some plans list a step before one of its dependencies, so trusting the file order is caught."""
    assert any(
        p.ids.index(d) > p.ids.index(s.id)
        for p in random_plans(300)
        for s in p.steps
        for d in s.depends_on
    )


def test_reach_cases_cover_withdrawn_facts_and_waiting_on_each_other():
    cases = reach_cases()
    withdrawn = [c for c in cases if {f for s in c[1] for f in c[0].step(s).produces} - c[2]]
    assert len(withdrawn) >= 30
    for plan, completed, _ in cases:  # a completed step's dependencies are completed too
        assert all(set(plan.step(s).depends_on) <= completed for s in completed)


def test_ancestor_cases_ask_about_every_step():
    cases = ancestor_cases(20)
    assert {(id(p), s) for p, s in cases} == {
        (id(p), s) for p in {id(p): p for p, _ in cases}.values() for s in p.ids
    }


def test_first_disagreement_returns_the_exception_it_met():
    def boom(x):
        raise KeyError(x)

    case, expected, got = first_disagreement([(1,)], boom, lambda x: x)
    assert case == (1,) and expected == 1 and isinstance(got, KeyError)
    assert first_disagreement([(1,), (2,)], lambda x: x, lambda x: x) is None
