"""The run's own steps as they ran: each step's model time after its inputs were ready, and the recorded makespan.

:func:`recorded_makespan` (what :func:`planviz.metrics` reads for a recorded run's critical path delay) is the
critical path of the steps a run ran, with the times that happened (plus the model calls that led to each, after
its dependencies ended), over the dependencies the run respected; ``_work`` gives each step's model time after a
given ready time (hindsight's waits read it too). The model calls' spans are read once per run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import reduce
from operator import add, le
from typing import Any, Mapping

from planviz.analysis.schedule import critical_path
from planviz.plan.bulk import all_text, built_steps, paused_gc
from planviz.plan.model import MAX_TOTAL_DURATION, Plan
from planviz.runs.events import Run
from planviz.runs.hindsight.callrecords import run_intervals, run_latest_steps
from planviz.runs.hindsight.idealplan import covered
from planviz.runs.lastruns import LastRuns
from planviz.runs.usage import model_calls

__all__ = ["recorded_makespan"]


def _work(
    run: Run,
    t0: float,
    times: Mapping[str, tuple[float, float]],
    ready: Mapping[str, float],
    unknown: set[str] | None = None,
    *,
    work: bool = True,
) -> tuple[dict[str, float], dict[str, float]]:
    """Each step's time (first start to last end) plus its model time after ``ready`` (an empty dict when
    ``work`` is False); and that model time.
    A call of unknown duration counts until the step it led to started (the most it can have taken: the run's
    own critical path never looks free); the steps it so lengthened are added to ``unknown``."""
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for sid, a, end, known in _call_spans(run, t0, times):
        r = ready[sid]
        if r > a:  # while its inputs were ready: max(t0 + at, ready)
            a = r
        if end > a:
            spans[sid].append((a, end))
            if not known and unknown is not None:
                unknown.add(sid)
    lead = {
        sid: (0.0 + (parts[0][1] - parts[0][0])) if len(parts) == 1 else covered(parts)
        for sid, parts in spans.items()
    }
    if not work:
        return {}, lead
    get = lead.get
    return {v: max(0.0, e - s) + get(v, 0.0) for v, (s, e) in times.items()}, lead


def _call_spans(
    run: Run, t0: float, times: Mapping[str, tuple[float, float]]
) -> list[tuple[str, float, float, bool]]:
    """Each model call that led to a step of ``times`` at a known time: (that step, its start on the run's clock,
    its end or the step's start if sooner, whether its duration is known); the step's start when it is not.
    Read once per run for the run's own intervals (:func:`run_intervals`: hindsight and the recorded makespan)."""
    if times is run_intervals(run) and run.events and t0 == run.events[0].time:
        return _kept_spans(run)
    return _spans(run, t0, times)


def _spans(
    run: Run, t0: float, times: Mapping[str, tuple[float, float]]
) -> list[tuple[str, float, float, bool]]:
    out = []
    number = (int, float)
    for sid, call in model_calls(run):
        if sid is None or sid not in times:
            continue
        at: Any = call.get("time")
        took: Any = call.get("duration")
        # isinstance(x, (int, float)), its usual answers first
        if not (type(at) is float or type(at) is int or isinstance(at, number)):
            continue
        known = type(took) is float or type(took) is int or isinstance(took, number)
        begun = times[sid][0]
        out.append((sid, t0 + at, min(t0 + at + took, begun) if known else begun, known))
    return out


# the spans of a run's calls on its own intervals, read once per run for the last two runs asked about
_kept_spans = LastRuns(lambda run: _spans(run, run.events[0].time, run_intervals(run)))


def recorded_makespan(run: Run, unknown: set[str] | None = None) -> float | None:
    """The critical path of the steps a run ran, with the times that happened (plus the model calls that led to
    each, after its dependencies ended), over the dependencies the run respected; None when no step ran.

    What a recorded run's own dependencies required: its makespan minus this is the time no step accounts for
    (a model call after the last step, the agent's own overhead, a step that waited). Never more than the
    run's makespan. The steps a model call of unknown duration led to are added to ``unknown``.
    """
    with paused_gc():  # a list and a tuple per step, none in a cycle
        return _recorded_makespan(run, unknown)


def _recorded_makespan(run: Run, unknown: set[str] | None) -> float | None:
    times = run_intervals(run)
    if not times:
        return None
    t0 = run.events[0].time
    defs = run_latest_steps(run)
    fast = _in_start_order(run, times, t0, defs, unknown)
    if fast is not None:
        return fast
    # each step's dependencies that had ended when it started (callrecords.ended_before, read inline) and when
    # the last of them ended
    recorded = {sid: k for k, sid in enumerate(times)}
    preds: dict[str, list[str]] = {}
    ready: dict[str, float] = {}
    for k, (v, (s_v, _)) in enumerate(times.items()):
        step = defs.get(v)
        into: list[str] = []
        # max() of the ends of into, inline (the first end, then each greater one)
        latest: float = t0
        if step is not None:
            for u in step.depends_on:
                if u in times and u != v:
                    e_u = times[u][1]
                    if e_u < s_v or (e_u == s_v and recorded[u] < k):
                        if not into or e_u > latest:
                            latest = e_u
                        into.append(u)
        preds[v] = into
        ready[v] = latest
    work, _ = _work(run, t0, times, ready, unknown)
    fast = _longest(times, preds, work)
    if fast is not None:
        return fast
    plan = Plan(
        "recorded",
        built_steps(
            [
                {
                    "id": v,
                    "action": v,
                    "expected_evidence": "ran",
                    "depends_on": preds[v],
                    "duration": work[v],
                }
                for v in times
            ]
        ),
    )
    return critical_path(plan).makespan


def _grouped(run: Run) -> dict[str, list[tuple[float, float, bool]]]:
    """The spans of :func:`_kept_spans` by the step each led to, in the calls' order: (start, end, known)."""
    out: dict[str, list[tuple[float, float, bool]]] = {}
    for sid, a, end, known in _kept_spans(run):
        got = out.get(sid)
        if got is None:
            out[sid] = [(a, end, known)]
        else:
            got.append((a, end, known))
    return out


_kept_grouped = LastRuns(_grouped)  # worked out once per run for the last two runs asked about


def _in_start_order(
    run: Run,
    times: Mapping[str, tuple[float, float]],
    t0: float,
    defs: Mapping[str, Any],
    unknown: set[str] | None,
) -> float | None:
    """The recorded makespan in one pass over the steps when they were recorded in the order they started (most
    runs): each step's dependencies that had ended when it started, when the last of them ended, its model time
    after that (:func:`_work`'s) and its earliest finish (:func:`_longest`'s forward pass) read together, the
    same figures in the same order; None when the steps were not so recorded or :func:`_longest` would refuse a
    figure (then the passes one by one decide)."""
    starts = [start for start, _ in times.values()]
    if any(map(math.isnan, starts)) or not all(map(le, starts, starts[1:])):
        return None
    recorded = {sid: k for k, sid in enumerate(times)}
    spans_of = _kept_grouped(run).get
    finish: dict[str, float] = {}
    works: list[float] = []
    for k, (v, (s_v, e_v)) in enumerate(times.items()):
        step = defs.get(v)
        latest: float = t0
        start = 0.0
        if step is not None:
            first = True
            for u in step.depends_on:
                if u in times and u != v:
                    e_u = times[u][1]
                    if e_u < s_v or (e_u == s_v and recorded[u] < k):
                        if first or e_u > latest:
                            latest = e_u
                        first = False
                        # (u started no later than v and, at one instant, was recorded first: finished already)
                        f = finish[u]
                        if f > start:
                            start = f
        lead = 0.0
        spans = spans_of(v)
        if spans is not None:
            kept: list[tuple[float, float]] = []
            for a, end, known in spans:
                if latest > a:
                    a = latest
                if end > a:
                    kept.append((a, end))
                    if not known and unknown is not None:
                        unknown.add(v)
            if kept:
                lead = (0.0 + (kept[0][1] - kept[0][0])) if len(kept) == 1 else covered(kept)
        w = max(0.0, e_v - s_v) + lead
        works.append(w)
        finish[v] = start + w
    if not _buildable(list(times), works):
        return None
    return max(finish.values(), default=0.0)


def _longest(
    times: Mapping[str, tuple[float, float]],
    preds: Mapping[str, list[str]],
    work: Mapping[str, float],
) -> float | None:
    """The makespan :func:`critical_path` gives the plan of ``preds`` and ``work`` (no terminal step, no
    contract: the latest earliest finish), by one forward pass in the order the steps started (each ``u`` of
    ``preds[v]`` ended before ``v`` started, or at that instant and was recorded first: a topological order);
    None when a step could not be built the fast way (an id that is no plain Unicode text, a duration that is
    no finite number, durations past the plan's total): the plan then says what it says."""
    ids = list(times)
    if not _buildable(ids, list(work.values())):
        return None
    starts = [start for start, _ in times.values()]
    if any(map(math.isnan, starts)):
        rank = {sid: k for k, sid in enumerate(ids)}
        order = sorted(ids, key=lambda s: (times[s][0], rank[s]))
    elif all(
        map(le, starts, starts[1:])
    ):  # recorded in the order they started (most runs): that sort's answer
        order = ids
    else:  # by start, ties in recorded order: a stable sort by start alone (no key tuple per step)
        order = [ids[k] for k in sorted(range(len(ids)), key=starts.__getitem__)]
    finish: dict[str, float] = {}
    for v in order:
        start = 0.0
        for u in preds[v]:
            f = finish[u]
            if f > start:
                start = f
        finish[v] = start + work[v]
    return max(finish.values(), default=0.0)


def _buildable(ids: list[Any], durations: list[Any]) -> bool:
    """Whether the plan of steps ``ids`` taking ``durations`` is built the fast way: each id plain Unicode text
    (not empty), each duration a finite float, none negative, their sum within the plan's total."""
    if (
        not set(map(type, ids)) <= {str}
        or not all(ids)
        or not set(map(type, durations)) <= {float}
        or not all(map(math.isfinite, durations))
        or min(durations, default=0.0) < 0
        or reduce(add, durations, 0.0) > MAX_TOTAL_DURATION
    ):
        return False
    return all_text(ids, [])
