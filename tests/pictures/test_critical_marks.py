"""The critical marks and slack notes read a schedule's timings through its map's own items, in C: the same marks
as a lookup of each step, without one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step, examples
from planviz.analysis.schedule import FrozenMap, critical_path
from planviz.pictures import captions
from planviz.plan.model import natural_key


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=4), st.integers(), max_size=20))
def test_a_frozen_maps_items_are_its_keys_and_values_in_order(data):
    m = FrozenMap(dict(data))
    assert list(m.items()) == [(k, m[k]) for k in m] == list(data.items())
    assert not hasattr(m.items(), "__setitem__")


def _chain(n: int) -> Plan:
    return Plan(
        "g",
        [
            Step(f"S{i}", "a", duration=1 + i % 3, depends_on=(f"S{i - 1}",) if i else ())
            for i in range(n)
        ]
        + [Step("side", "b", duration=1, depends_on="S0")],
    )


@pytest.mark.parametrize(
    "plan", [examples.load("cache_isolation"), _chain(12)], ids=["example", "chain"]
)
def test_critical_marks_and_slack_notes_look_no_step_up(monkeypatch, plan):
    schedule = critical_path(plan)
    want = (
        set(schedule.critical),
        {
            (u, s.id)
            for s in plan.steps
            if s.id in schedule.critical
            for u in s.depends_on
            if u in schedule.critical and schedule.steps[u].ef == schedule.steps[s.id].es
        },
    )

    slack = sorted(
        (sid for sid in schedule.steps if schedule.steps[sid].slack > 0), key=natural_key
    )
    assert slack  # each plan has a step off the critical path

    def refuse(self, key):
        raise AssertionError(f"looked up {key!r} one at a time")

    monkeypatch.setattr(FrozenMap, "__getitem__", refuse)
    crit, edges = captions.critical_marks(plan, schedule)
    assert (set(crit), set(edges)) == want
    assert [sid for sid, _ in captions.slack_notes(plan, schedule)] == slack


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 30), st.data())
def test_the_critical_edges_among_some_steps_are_the_critical_edges_between_them(n, data):
    """What render asks of a view (the critical edges between the steps it draws) is the whole set's edges
    between them, read from the plan here."""
    plan = _chain(n)
    schedule = critical_path(plan)
    ids = [s.id for s in plan.steps]
    among = data.draw(st.lists(st.sampled_from(ids), unique=True))
    crit = schedule.critical
    expected = {
        (u, s.id)
        for s in plan.steps
        if s.id in crit and s.id in among
        for u in s.depends_on
        if u in crit and u in among and schedule.steps[u].ef == schedule.steps[s.id].es
    }
    got = captions.critical_edges(plan, schedule, among)
    assert (
        got
        == expected
        == captions.critical_marks(plan, schedule)[1] & {(u, v) for u in among for v in among}
    )
    assert captions.critical_edges(plan, None, among) == frozenset()
