"""hindsight's serialized pairs for steps that ran one after another (retrospect._one_after_another: each step
paired with the one before alone) are the general loop's pairs, in its order, and its waits are as before."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from planviz import hindsight, parse_trace
from planviz.runs.hindsight import retrospect

from .otlp import react_trace


@st.composite
def step_times(draw):
    """Steps by id with (start, end): most one after another, now and then a tie, an overlap, a step of no
    length or a NaN; the data edges into each (from steps that ended before it) and when its inputs were ready."""
    n = draw(st.integers(1, 9))
    times: dict[str, tuple[float, float]] = {}
    clock = 0.0
    for k in range(n):
        gap = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, -0.5]))  # -0.5: overlaps the one before
        length = draw(st.sampled_from([0.5, 1.0, 2.0, 0.0]))
        start = clock + gap
        end = start + length if draw(st.integers(0, 30)) else float("nan")
        times[f"s{draw(st.integers(0, 99))}_{k}"] = (start, end)
        clock = max(clock, end) if end == end else clock
    ids = list(times)
    preds: dict[str, set[str]] = {}
    ready: dict[str, float] = {}
    for v in ids:
        earlier = [u for u in ids if u != v and times[u][1] <= times[v][0]]
        preds[v] = set(draw(st.lists(st.sampled_from(earlier), max_size=2))) if earlier else set()
        ready[v] = draw(st.sampled_from([0.0, times[v][0], times[v][0] - 0.25]))
    ran = draw(st.permutations(ids))
    return list(ran), times, preds, ready


def _general(*args):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(retrospect, "_one_after_another", lambda *a: None)
        return retrospect._serialized(*args)


@settings(max_examples=500, deadline=None)
@given(step_times())
def test_one_after_another_gives_the_general_pairs(case):
    ran, times, preds, ready = case
    assert retrospect._serialized(ran, times, preds, ready) == _general(ran, times, preds, ready)


def test_a_react_run_is_paired_one_after_another():
    run = parse_trace(json.dumps(react_trace(301)))
    h = hindsight(run)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(retrospect, "_one_after_another", lambda *a: pytest.fail("not reached"))
        with pytest.raises(pytest.fail.Exception):
            hindsight(run)
    general = _general(*_inputs(run, h))
    assert h.serialized == general and len(general) > 100


def _inputs(run, h):
    times = retrospect.run_intervals(run)
    ran = list(times)
    preds = {v: {u for u, w, _ in h.data_edges if w == v} for v in ran}
    t0 = run.events[0].time
    ready = {v: max([times[u][1] for u in preds[v]] + [t0]) for v in ran}
    return ran, times, preds, ready
