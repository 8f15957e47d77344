"""The recorded makespan in one pass over steps recorded in the order they started (steptimes._in_start_order)
gives what the passes one by one give (dependencies and ready times, the model time after them, the forward pass
of the critical path): the same figure, bit for bit, and the same steps of unknown model time."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from planviz import parse_trace
from planviz.runs.hindsight import steptimes
from planviz.runs.hindsight.callrecords import run_intervals

from .otlp import agent, chat, react_trace, text, tool

_HALVES = st.integers(0, 16).map(
    lambda n: n / 2
)  # times on a coarse grid: ties, zero lengths, overlaps


@st.composite
def traces(draw):
    spans = [agent(1, 0, draw(st.sampled_from([20, None])))]  # type: ignore[arg-type]
    for sid in range(2, 2 + draw(st.integers(1, 9))):
        start, length = draw(_HALVES), draw(_HALVES)
        end = None if draw(st.integers(0, 5)) == 0 else start + length  # now and then unended
        if draw(st.booleans()):
            spans.append(chat(sid, start, end))  # type: ignore[arg-type]
        else:
            args = draw(st.sampled_from([{"q": f"item {sid}"}, {"id": f"r-{sid - 1}"}, {}]))
            spans.append(tool(sid, f"t{sid % 3}", start, end, args=args, result={"id": f"r-{sid}"}))
    return parse_trace(text(spans))


def _both(run):
    fast_unknown: set[str] = set()
    fast = steptimes.recorded_makespan(run, fast_unknown)
    slow_unknown: set[str] = set()
    with pytest.MonkeyPatch.context() as mp:  # the passes one by one
        mp.setattr(steptimes, "_in_start_order", lambda *a: None)
        slow = steptimes.recorded_makespan(run, slow_unknown)
    return (repr(fast), sorted(fast_unknown)), (repr(slow), sorted(slow_unknown))


@settings(max_examples=300, deadline=None)
@given(traces())
def test_one_pass_gives_the_passes_figure(run):
    fast, slow = _both(run)
    assert fast == slow


def test_a_react_trace_takes_the_one_pass():
    run = parse_trace(json.dumps(react_trace(401)))
    times = run_intervals(run)
    got = steptimes._in_start_order(
        run, times, run.events[0].time, {s.id: s for s in run.plan.steps}, None
    )
    assert got is not None
    fast, slow = _both(run)
    assert fast == slow and fast[0] == repr(got)
