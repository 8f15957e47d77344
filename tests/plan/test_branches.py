"""connected_branches: steps grouped by the dependencies that connect them, in a stable order."""

from __future__ import annotations

import pytest

from planviz.plan.branches import connected_branches

CASES = [
    (set(), {}, []),
    ({"a"}, {"a": []}, [["a"]]),
    # x is outside: no edge
    (
        {"a", "b", "c"},
        {"a": [], "b": ["a"], "c": ["x"]},
        [["a", "b"], ["c"]],
    ),
    ({"b", "c"}, {"b": ["a"], "c": ["a"]}, [["b"], ["c"]]),  # joined only through a step outside
    # natural order
    (
        {"s10", "s9", "s2"},
        {"s10": ["s9"], "s9": [], "s2": []},
        [["s2"], ["s9", "s10"]],
    ),
    ({"d", "e", "f"}, {"d": [], "e": [], "f": ["d", "e"]}, [["d", "e", "f"]]),  # direction ignored
]


@pytest.mark.parametrize(("members", "parents", "expected"), CASES)
def test_branches(members, parents, expected):
    assert connected_branches(members, parents) == expected


def test_a_key_orders_each_branch_and_the_branches():
    rank = {"a": 2, "b": 1, "c": 0}.__getitem__
    assert connected_branches({"a", "b", "c"}, {"a": [], "b": ["a"], "c": []}, rank) == [
        ["c"],
        ["b", "a"],
    ]
