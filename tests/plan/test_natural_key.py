"""natural_key as one flat tuple orders ids exactly as the tuple of each run's 4-tuple did (the oracle)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from planviz.plan.model import natural_key

_RUNS = re.compile(r"[0-9]+|[^0-9]+")


def _nested_key(text: str) -> tuple[tuple[object, ...], ...]:
    """The key before it was flat: one 4-tuple per run of digits or of anything else."""
    return tuple(
        (0, len(n := p.lstrip("0")), n, p) if "0" <= p[0] <= "9" else (1, 0, p, p)
        for p in _RUNS.findall(text)
    )


# ids made of the runs that decide the order: digits with leading zeros, letters, separators, non-ASCII digits
_IDS = st.lists(
    st.sampled_from(
        ["0", "00", "1", "01", "9", "10", "007", "S", "s", "step_", ".v", "-", "²", "٣", "é", ""]
    ),
    max_size=6,
).map("".join)


def _sign(a: object, b: object) -> int:
    return (a > b) - (a < b)  # type: ignore[operator]


@settings(max_examples=1000, deadline=None)
@given(_IDS, _IDS)
def test_flat_key_compares_as_the_nested_one(a, b):
    assert _sign(natural_key(a), natural_key(b)) == _sign(_nested_key(a), _nested_key(b))
    assert (natural_key(a) == natural_key(b)) == (a == b)


@settings(max_examples=200, deadline=None)
@given(st.lists(_IDS | st.text(max_size=8), max_size=40))
def test_sorting_by_the_flat_key_gives_the_nested_keys_order(ids):
    assert sorted(ids, key=natural_key) == sorted(ids, key=_nested_key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("", ()),
        ("S", (1, 0, "S", "S")),
        ("S010", (1, 0, "S", "S", 0, 2, "10", "010")),
        ("007", (0, 1, "7", "007")),
        ("a1b", (1, 0, "a", "a", 0, 1, "1", "1", 1, 0, "b", "b")),
    ],
)
def test_the_key_is_four_items_per_run(text, key):
    assert natural_key(text) == key
