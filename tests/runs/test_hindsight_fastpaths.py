"""hindsight's fast paths give what the general ones give: the ideal schedule's steps (plan/bulk.schedule_rows
against built_steps), its critical path (idealplan._critical against critical_path) and the recorded makespan
(retrospect._longest against the critical path of the recorded plan), on simulated runs with faults and replans,
on ids whose natural order ties, and on values the fast paths must hand over (nested or odd arguments, a lone
surrogate, an empty id), where the general path's answer or error must come out unchanged.

These guard the sameness of code written for speed (issue 43): each would fail if a fast path answered
differently from the general one it stands in for.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Fault, Plan, Step, critical_path, examples, hindsight, simulate
from planviz.errors import PlanFormatError
from planviz.plan.bulk import ROW_FIELDS, built_steps, schedule_plan, schedule_rows
from planviz.runs.hindsight.callrecords import ended_before, intervals, latest_steps, time_order
from planviz.runs.hindsight.hindsightcost import _union
from planviz.runs.hindsight.idealplan import _critical, ideal_schedule
from planviz.runs.hindsight.retrospect import (
    _linked,
    _released,
    _serialized,
    _work,
    recorded_makespan,
)


def _raw(sid: str = "a", **over: object) -> dict[str, object]:
    raw: dict[str, object] = {
        "id": sid,
        "action": "do " + sid,
        "expected_evidence": "ran",
        "duration": 2.0,
        "depends_on": [],
        "requires": [],
        "produces": f"{sid}.result",
        "tool": None,
        "arguments": {"q": "x", "n": 3, "f": 1.5, "b": True, "z": None},
    }
    raw.update(over)
    return raw


def _rows(raws: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [tuple(raw[k] for k in ROW_FIELDS) for raw in raws]


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"tool": "search", "depends_on": ["a"], "requires": ["a.result"]},
        {"arguments": {"deep": {"x": [1, 2, {"y": "z"}]}}},
        {"arguments": {"big": 2**70, "neg": -(2**70)}},
        {"arguments": {"t": ("x", "y")}},
        {"arguments": {}},
        {"duration": 0.0},
        {"duration": 3},
        {"action": "é ü 中"},
    ],
)
def test_schedule_rows_builds_what_built_steps_builds(over: dict[str, object]) -> None:
    raws = [_raw("a"), _raw("b", **over)]
    fast, slow = schedule_rows(_rows(raws)), built_steps(raws)
    assert fast == slow
    # the plan of the rows, its steps made when first read, is the plan of those steps
    lazy = schedule_plan("g", _rows(raws), time_unit="s")
    assert len(lazy) == 2
    assert lazy == Plan("g", slow, time_unit="s")
    assert lazy.steps == tuple(slow) and lazy.by_id == Plan("g", slow).by_id
    assert [s.arguments for s in fast] == [s.arguments for s in slow]
    assert [type(s.duration) for s in fast] == [type(s.duration) for s in slow]
    assert [type(s.depends_on) for s in fast] == [type(s.depends_on) for s in slow]


@pytest.mark.parametrize(
    "over",
    [
        {"id": ""},
        {"id": "b\udc00"},
        {"arguments": {"q": "x\ud800"}},
        {"arguments": {"q\ud800": "x"}},
        {"arguments": {1: "x"}},
        {"arguments": {"f": float("nan")}},
        {"duration": -1.0},
        {"depends_on": ["a\udc00"]},
        {"requires": ["a\udc00"]},
        {"tool": "t\udc00"},
    ],
)
def test_schedule_rows_hands_a_defect_to_built_steps(over: dict[str, object]) -> None:
    raws = [_raw("a"), _raw("b", **over)]
    with pytest.raises(PlanFormatError) as slow:
        built_steps(raws)
    with pytest.raises(PlanFormatError) as fast:
        schedule_rows(_rows(raws))
    assert str(fast.value) == str(slow.value)
    with pytest.raises(PlanFormatError) as planned:  # at once, not when its steps are first read
        schedule_plan("g", _rows(raws))
    assert str(planned.value) == str(slow.value)


def test_schedule_plan_past_the_total_duration_raises_as_plan_does() -> None:
    raws = [_raw("a", duration=1e300), _raw("b", duration=1e300)]
    with pytest.raises(PlanFormatError) as slow:
        Plan("g", built_steps(raws))
    with pytest.raises(PlanFormatError) as fast:
        schedule_plan("g", _rows(raws))
    assert str(fast.value) == str(slow.value)


def test_schedule_plan_makes_its_steps_when_first_read_and_grows_like_any_plan() -> None:
    from planviz.plan.grown import grown_plan, suffix

    rows = _rows([_raw("a"), _raw("b", depends_on=["a"])])
    for read in (
        lambda p: p.steps,
        lambda p: p.step("b"),
        lambda p: p.ids,
        lambda p: "b" in p,
        lambda p: suffix(p, 1),
        lambda p: grown_plan(p, 1, [Step("c", "c")]).ids,
        lambda p: p.replace(goal="h").steps,
    ):
        lazy = schedule_plan("g", rows)
        assert "steps" not in vars(lazy)
        read(lazy)
        assert lazy == Plan("g", schedule_rows(rows))
    assert grown_plan(schedule_plan("g", rows), 1, [Step("c", "c")]).ids == ("a", "c")
    assert critical_path(schedule_plan("g", rows)).path == ("a", "b")


def _runs() -> list[object]:
    out = []
    for name in examples.names():
        plan = examples.load(name)
        out.append(simulate(plan))
        for s in plan.steps[:3]:
            for kind in ("transient", "withdraw", "tool_error"):
                try:
                    out.append(simulate(plan, faults=[Fault(s.id, kind)]))
                except Exception:  # a fault this step cannot take
                    continue
    return out


def test_fast_critical_path_and_recorded_makespan_agree_with_critical_path() -> None:
    runs = _runs()
    assert len(runs) > 30
    for run in runs:
        h = hindsight(run)  # type: ignore[arg-type]
        if h.plan is not None:
            # the schedule's own makespan and path (read from its rows) are those of its plan
            times, defs = intervals(run), latest_steps(run)  # type: ignore[arg-type]
            sched = ideal_schedule(
                run,  # type: ignore[arg-type]
                times,
                defs,
                h.data_edges,
                _released(run),  # type: ignore[arg-type]
                run.events[0].time,  # type: ignore[attr-defined]
            )
            assert "steps" not in vars(sched.plan)
            schedule = critical_path(h.plan)
            assert (sched.makespan, sched.path) == (schedule.makespan, schedule.path)
            assert sched.ids == frozenset(h.plan.ids)
            assert _critical(h.plan.steps) == (schedule.makespan, schedule.path)
        # the recorded plan, built as before the forward pass replaced it
        times = intervals(run)  # type: ignore[arg-type]
        if not times:
            continue
        defs, before = latest_steps(run), ended_before(times)  # type: ignore[arg-type]
        preds = {
            v: [
                u
                for u in (defs[v].depends_on if v in defs else ())
                if u in times and u != v and before(u, v)
            ]
            for v in times
        }
        t0 = run.events[0].time  # type: ignore[attr-defined]
        ready = {v: max((times[u][1] for u in preds[v]), default=t0) for v in times}
        work, _ = _work(run, t0, times, ready)  # type: ignore[arg-type]
        plan = Plan(
            "recorded",
            [
                Step(v, v, expected_evidence="ran", depends_on=preds[v], duration=work[v])
                for v in times
            ],
        )
        assert recorded_makespan(run) == critical_path(plan).makespan  # type: ignore[arg-type]


def test_fast_critical_path_breaks_ties_by_natural_id_whatever_the_order() -> None:
    # two critical starts and two tight successors whose natural keys differ only by leading zeros
    steps = [
        Step("s01", "a", duration=1),
        Step("s1", "a", duration=1),
        Step("t02", "b", duration=2, depends_on=["s01", "s1"]),
        Step("t2", "b", duration=2, depends_on=["s1"]),
    ]
    for order in (steps, steps[1::-1] + steps[:1:-1]):
        plan = Plan("g", order)
        schedule = critical_path(plan)
        assert _critical(plan.steps) == (schedule.makespan, schedule.path)
    # a step written before one it depends on: the general path decides
    assert _critical([steps[2], steps[0], steps[1]]) is None


def _serialized_sorted(
    ran: list[str],
    times: dict[str, tuple[float, float]],
    preds: dict[str, set[str]],
    ready: dict[str, float],
) -> tuple[tuple[str, str], ...]:
    """The pairs _serialized finds, sorted by their key tuples as it always sorted them (the oracle)."""
    import bisect

    order = [s for _, s in sorted([(times[s][0], s) for s in ran])]
    by_end = [s for _, s in sorted([(times[s][1], s) for s in ran])]
    ends = [times[s][1] for s in by_end]
    out = []
    for v in order:
        latest_start = float("-inf")
        for k in range(bisect.bisect_right(ends, times[v][0]) - 1, -1, -1):
            u = by_end[k]
            e_u = times[u][1]
            if u == v:
                continue
            if latest_start >= e_u:
                break
            latest_start = max(latest_start, times[u][0])
            if (
                ready[v] < e_u
                and not _linked(u, v, preds, times)  # type: ignore[arg-type]
                and not _linked(v, u, preds, times)  # type: ignore[arg-type]
            ):
                out.append((u, v))
    return tuple(p for _, _, p in sorted([(times[p[1]][0], times[p[0]][1], p) for p in out]))


_CLOCK = st.sampled_from([0.0, 1.0, 1.0, 2.0, 2.5, 3.0, 4.0])


@given(
    spans=st.lists(st.tuples(_CLOCK, _CLOCK), min_size=1, max_size=9),
    nan=st.booleans(),
    ready_at=st.lists(_CLOCK, min_size=9, max_size=9),
    links=st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=6),
)
@settings(max_examples=500, deadline=None)
def test_serialized_pairs_come_out_in_their_order(
    spans: list[tuple[float, float]],
    nan: bool,
    ready_at: list[float],
    links: set[tuple[int, int]],
) -> None:
    # pairs found in order (no sort when no two steps start at one instant and no time is NaN) are the sorted ones
    ids = [f"s{k}" for k in range(len(spans))]
    times = {sid: (min(a, b), max(a, b)) for sid, (a, b) in zip(ids, spans)}
    if nan:
        times[ids[-1]] = (float("nan"), times[ids[-1]][1])
    preds: dict[str, set[str]] = {sid: set() for sid in ids}
    for i, j in links:  # data edges go forward in time
        if i < len(ids) and j < len(ids) and times[ids[i]][1] <= times[ids[j]][0]:
            preds[ids[j]].add(ids[i])
    ready = {sid: min(r, times[sid][0]) for sid, r in zip(ids, ready_at)}
    assert _serialized(ids, times, preds, ready) == _serialized_sorted(ids, times, preds, ready)


def test_serialized_without_ties_is_found_in_order() -> None:
    # three steps one after the other, each could have run beside those before: v's pairs by u's end
    times = {"a": (0.0, 1.0), "b": (0.5, 1.5), "c": (2.0, 3.0)}
    preds: dict[str, set[str]] = {s: set() for s in times}
    ready = dict.fromkeys(times, 0.0)
    assert _serialized(list(times), times, preds, ready) == (("a", "c"), ("b", "c"))


_TIMES_U = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.0, float("nan"), float("inf")])


def _union_sorted(parts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """hindsightcost._union as it always sorted (the oracle)."""
    out: list[tuple[float, float]] = []
    for a, b in sorted(p for p in parts if p[1] > p[0]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


@given(
    parts=st.lists(st.tuples(_TIMES_U, _TIMES_U), max_size=8),
    ordered=st.booleans(),
)
@settings(max_examples=400, deadline=None)
def test_union_of_parts_in_order_is_the_sorted_union(
    parts: list[tuple[float, float]], ordered: bool
) -> None:
    if ordered:
        parts = sorted(parts)
    got, want = _union(parts), _union_sorted(parts)
    assert repr(got) == repr(want)  # (NaN compares unequal to itself: the same text)


@given(
    spans=st.lists(st.tuples(_TIMES_U, _TIMES_U), max_size=8),
    at=st.sampled_from([0, 1]),
)
@settings(max_examples=400, deadline=None)
def test_time_order_is_the_sort_by_time_and_id(spans: list[tuple[float, float]], at: int) -> None:
    ids = [f"c{k}" for k in range(len(spans))][::-1]  # ids not in their own order
    times = dict(zip(ids, spans))
    assert time_order(ids, times, at) == [s for _, s in sorted([(times[s][at], s) for s in ids])]


@pytest.mark.parametrize(
    "times, at, order",
    [
        ({"b": (0.0, 1.0), "a": (1.0, 2.0)}, 0, ["b", "a"]),  # rising: as recorded
        ({"b": (1.0, 1.0), "a": (1.0, 2.0)}, 0, ["a", "b"]),  # a tie: by id
        ({"b": (2.0, 3.0), "a": (1.0, 2.0)}, 0, ["a", "b"]),  # out of order: sorted
        ({"b": (0.0, 3.0), "a": (1.0, 2.0)}, 1, ["a", "b"]),
        ({}, 0, []),
    ],
)
def test_time_order_cases(times: dict[str, tuple[float, float]], at: int, order: list[str]) -> None:
    assert time_order(list(times), times, at) == order
