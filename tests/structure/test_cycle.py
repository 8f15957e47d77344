"""One cycle extractor: validation and every analysis refusal name the same loop."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Plan,
    Step,
    StructureError,
    critical_path,
    failure_scope,
    ready_timeline,
    ready_waves,
    validate,
)

REFUSALS = [
    critical_path,
    ready_waves,
    ready_timeline,
    lambda p: failure_scope(p, p.steps[0].id, "transient"),
]

# the plan of the layout issue: validate said A -> D -> A while critical_path said A -> B -> E -> A
TANGLE = Plan(
    "g",
    [
        Step("A", "a", depends_on=["E", "D"]),
        Step("B", "b", depends_on=["C", "A"]),
        Step("C", "c", depends_on="E"),
        Step("D", "d", depends_on=["E", "A"]),
        Step("E", "e", depends_on=["D", "B"]),
    ],
)


@pytest.mark.parametrize("refuse", REFUSALS)
def test_the_tangle_is_named_the_same_everywhere(refuse):
    [cycle] = [f for f in validate(TANGLE).findings if f.code == "cycle"]
    assert cycle.edges == (("A", "D"), ("D", "A"))
    assert "'A' -> 'D' -> 'A'" in cycle.message
    with pytest.raises(StructureError, match=r"cycle \('A' -> 'D' -> 'A'\)") as info:
        refuse(TANGLE)
    assert info.value.edges == cycle.edges


@st.composite
def cyclic_plans(draw):
    """Small plans over known ids, no self-dependency, shuffled: cycles are their only structural defect."""
    ids = [f"S{i}" for i in range(draw(st.integers(2, 7)))]
    steps = [
        Step(
            sid,
            "a",
            depends_on=draw(st.lists(st.sampled_from([i for i in ids if i != sid]), max_size=3)),
        )
        for sid in ids
    ]
    return Plan("g", draw(st.permutations(steps)))


@settings(max_examples=300, deadline=None)
@given(plan=cyclic_plans())
def test_validation_and_refusals_agree_on_the_cycle(plan):
    cycles = [f for f in validate(plan).findings if f.code == "cycle"]
    for refuse in REFUSALS:
        if not cycles:
            refuse(plan)  # no cycle: no refusal
            continue
        with pytest.raises(StructureError) as info:
            refuse(plan)
        assert info.value.edges == cycles[0].edges
        assert set(info.value.steps) == {u for u, _ in cycles[0].edges}
