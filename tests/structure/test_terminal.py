"""planviz.structure.terminal: which steps end a plan, and which steps reach them."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import Contract, Plan, Step
from planviz.structure.terminal import reaching, terminals

PLAN = Plan(
    "g",
    [
        Step("A", "a"),
        Step("B", "b", depends_on="A", kind="verify"),
        Step("C", "c", depends_on="A"),
        Step("F", "f", depends_on="B", kind="finish"),
        Step("G", "g", depends_on="F"),
    ],
)


@pytest.mark.parametrize(
    "plan, contract, expected",
    [
        (PLAN, None, ("F",)),
        (PLAN, Contract(final="verify"), ("B", "F")),  # by kind
        (PLAN, Contract(final="C"), ("C", "F")),  # by id
        (PLAN, Contract(final="nothing"), ("F",)),
        (PLAN.replace(contract=Contract(final="C")), None, ("C", "F")),  # the plan's own contract
        (Plan("g", [Step("A", "a"), Step("B", "b")]), None, ()),
    ],
)
def test_terminals(plan, contract, expected):
    assert terminals(plan, contract) == expected


def test_reaching_is_the_terminals_and_their_ancestors():
    assert reaching(PLAN) == {"A", "B", "F"}  # not C (a dead end), not G (after the end)
    assert reaching(PLAN, Contract(final="C")) == {"A", "B", "C", "F"}
    assert reaching(Plan("g", [Step("A", "a")])) == set()


def test_unknown_and_self_dependencies_are_ignored():
    plan = Plan(
        "g", [Step("A", "a", depends_on=["A", "Z"]), Step("E", "e", depends_on="A", kind="finish")]
    )
    assert reaching(plan) == {"A", "E"}


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.data())
def test_reaching_agrees_with_networkx(n, data):
    # cycles allowed
    deps = [sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=3))) for _ in range(n)]
    ends = data.draw(st.sets(st.integers(0, n - 1), max_size=2))
    plan = Plan(
        "g",
        [
            Step(
                f"S{i}",
                "s",
                depends_on=[f"S{d}" for d in deps[i]],
                kind="finish" if i in ends else None,
            )
            for i in range(n)
        ],
    )
    g = nx.DiGraph()
    g.add_nodes_from(plan.ids)
    g.add_edges_from((f"S{d}", f"S{i}") for i in range(n) for d in deps[i] if d != i)
    expected = set().union(*({f"S{e}"} | nx.ancestors(g, f"S{e}") for e in ends)) if ends else set()
    assert reaching(plan) == expected
