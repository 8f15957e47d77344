"""planviz.pictures.montage: which event of each run a shared frame shows, and how panels are arranged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import planviz
from planviz import Fault
from planviz.pictures.montage import arrangement, clock_ticks
from planviz.traces.own.recorder import Recorder

PLAN = planviz.examples.load("cache_isolation")


def _recorded(times: list[int]) -> planviz.Run:
    """A run whose events happen at ``times`` (a recorder's clock; it may stand still or go back)."""
    clock = iter([0, *times, times[-1] if times else 0] * 2)
    rec = Recorder(clock=lambda: next(clock))
    rec.propose(
        planviz.Plan(
            "g", [planviz.Step(f"S{k}", "a", expected_evidence="e") for k in range(len(times))]
        )
    )
    for k in range(len(times)):
        rec.start(f"S{k}")
    return rec.run


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=6), min_size=1, max_size=3))
def test_every_event_of_every_run_is_shown_once_in_order(clocks):
    runs = [_recorded(times) for times in clocks]
    ticks = clock_ticks(runs)
    assert len(set(ticks)) == len(ticks)  # every frame changes something
    for r, run in enumerate(runs):
        shown = [t[r] for t in ticks]
        assert shown == sorted(shown) and set(shown) == set(range(len(run.events)))


def test_a_run_that_finished_holds_its_last_event():
    runs = [
        planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")], strategy=s)
        for s in ("workflow", "planner")
    ]
    ticks = clock_ticks(runs)
    last = len(runs[0].events) - 1
    after = [t for t in ticks if runs[1].events[t[1]].time > runs[0].events[-1].time]
    assert after and all(t[0] == last for t in after)


@pytest.mark.parametrize(
    "sizes, how",
    [
        ([(1200, 500)] * 3, "column"),  # wide left-to-right pictures stack
        ([(300, 700)] * 3, "row"),  # tall ones sit side by side
        ([(800, 450)] * 2, "row"),
        ([(1400, 400)] * 2, "column"),
        ([(400, 900)] * 2, "row"),
    ],
)
def test_the_arrangement_closest_to_a_slide(sizes, how):
    assert arrangement(sizes) == how
