"""ready_timeline: deltas per event time, any durations and workers, the exclusive-resource rule
(reference in this test)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import Plan, Step, critical_path, ready_timeline
from planviz.structure.index import structure_index
from tests.strategies import plans as random_plans

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(plan: Plan, workers: int | None) -> list[tuple[float, set, set, set, set]]:
    """The rule, played naively: (time, ready before starts, started, running after, done) per event time.

    At each time: finish what ends, then scan every waiting step in id order, starting it when a worker is
    free and no running step holds any of its exclusive resources; repeat while zero-duration steps end.
    """
    steps = plan.by_id
    holders = structure_index(plan).holders()
    contended = {sid: {r for r in s.resources if r in holders} for sid, s in steps.items()}
    done: set[str] = set()
    running: dict[str, float] = {}
    started_ever: set[str] = set()
    t, out = 0.0, []
    while True:
        ready_now = {
            s
            for s in steps
            if s not in started_ever and all(d in done for d in steps[s].depends_on)
        }
        started = set()
        while True:
            for s, end in list(running.items()):
                if end <= t:
                    del running[s]
                    done.add(s)
            ready_now |= {
                s
                for s in steps
                if s not in started_ever and all(d in done for d in steps[s].depends_on)
            }
            for s in sorted(
                x
                for x in steps
                if x not in started_ever and all(d in done for d in steps[x].depends_on)
            ):
                if workers is not None and len(running) >= workers:
                    break
                held = set().union(*(contended[r] for r in running))
                if contended[s] & held:
                    continue
                running[s] = t + steps[s].duration
                started_ever.add(s)
                started.add(s)
            if not any(end <= t for end in running.values()):
                break
        out.append((t, ready_now, started, set(running), set(done)))
        if not running:
            return out
        t = min(running.values())


def plans(max_steps=10):
    durations = st.one_of(
        st.integers(0, 6), st.floats(0, 5, allow_nan=False).map(lambda x: round(x, 3))
    )
    resources = st.lists(st.sampled_from(["db", "repo", "db", "cache"]), max_size=2).map(
        lambda rs: sorted(set(rs))
    )
    return random_plans(
        min_steps=0,
        max_steps=max_steps,
        durations=durations,
        requires="none",
        resources=resources,
        goal="g",
        premises=(),
    )


@PROPS
@given(plans(), st.sampled_from([None, 1, 2, 3]))
def test_the_timeline_is_the_rule_played_naively(plan, workers):
    points = ready_timeline(plan, workers=workers)
    expected = reference(plan, workers)
    assert [
        (p.time, set(p.ready), set(p.started), set(p.running), set(p.done)) for p in points
    ] == expected
    for p in points:  # deltas: each step is released, started and finished once over the timeline
        assert p.done == set().union(*(q.finished for q in points[: p.index + 1]))
    for name in ("released", "started", "finished"):
        seen = [s for p in points for s in getattr(p, name)]
        assert sorted(seen) == sorted(plan.by_id), name


@PROPS
@given(plans(), st.sampled_from([None, 1, 2]))
def test_holders_of_one_resource_never_overlap(plan, workers):
    points = ready_timeline(plan, workers=workers)
    start = {s: p.time for p in points for s in p.started}
    end = {s: start[s] + plan.step(s).duration for s in start}
    for resource, ids in structure_index(plan).holders().items():
        spans = sorted((start[s], end[s]) for s in ids if end[s] > start[s])
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])), resource
    if not any(s.resources for s in plan.steps) and workers is None:
        assert points[-1].time == critical_path(plan).makespan  # the resource-free bound is reached


def test_a_shared_resource_serializes_lower_id_first():
    plan = Plan(
        "g",
        [
            Step("C", "c", duration=1, resources="db"),
            Step("B", "b", duration=2, resources=["db", "log"]),
            Step("A", "a", duration=2, resources="log"),
            Step("D", "d", duration=1),
        ],
    )
    points = ready_timeline(plan)
    assert [(p.time, sorted(p.started)) for p in points] == [
        (0.0, ["A", "C", "D"]),
        (1.0, []),
        (2.0, ["B"]),
        (4.0, []),
    ]
    assert critical_path(plan).makespan == 2.0  # the bound ignores resources


def test_a_step_waiting_for_two_resources_does_not_hold_up_one_waiting_for_one():
    plan = Plan(
        "g",
        [
            Step("A", "a", duration=1, resources="r1"),
            Step("B", "b", duration=5, resources="r2"),
            Step("C", "c", duration=1, resources=["r1", "r2"]),
            Step("D", "d", duration=1, resources="r1"),
        ],
    )
    starts = {s: p.time for p in ready_timeline(plan) for s in p.started}
    # at 1, r1 is free: C still waits for r2, D goes
    assert starts == {
        "A": 0.0,
        "B": 0.0,
        "D": 1.0,
        "C": 5.0,
    }


def test_points_are_deltas_and_the_whole_sets_are_computed():
    plan = Plan("g", [Step("A", "a", duration=2), Step("B", "b", depends_on="A", duration=1)])
    first, second, last = ready_timeline(plan)
    assert (first.released, first.started, first.finished) == ({"A"}, {"A"}, frozenset())
    assert (second.released, second.started, second.finished) == ({"B"}, {"B"}, {"A"})
    assert (last.time, last.done, last.running, last.ready) == (
        3.0,
        {"A", "B"},
        frozenset(),
        frozenset(),
    )
    assert "_line" not in repr(last) and "released=frozenset({'B'})" in repr(second)


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)


@pytest.mark.slow
@pytest.mark.parametrize(
    "workers, shared", [(None, False), (4, False), (1, False), (None, True), (3, True)]
)
def test_big_float_timelines_stay_near_linear(workers, shared):
    """100k steps, float durations: quadratic work would take hours; a child process bounds the wait."""
    code = f"""
import random
from planviz import Plan, Step, ready_timeline
rng = random.Random(1)
steps = []
for i in range(100_000):
    deps = [f"s{{j}}" for j in rng.sample(range(max(0, i - 500), i), min(i, 2))] if i else []
    steps.append(Step(f"s{{i}}", "a", depends_on=deps, duration=rng.random() * 10,
                      resources=["db"] if {shared} and i % 3 == 0 else []))
points = ready_timeline(Plan("g", steps), workers={workers})
print(len(points), sum(len(p.started) for p in points))
"""
    done = _child(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1] == "100000"


@PROPS
@given(plans(max_steps=8), st.sampled_from([None, 1, 2]))
def test_simulate_runs_by_the_same_rule(plan, workers):
    """A fault-free workflow run starts every step when the timeline does (the two play the rule alike)."""
    from planviz import simulate

    run = simulate(plan, workers=workers, strategy="workflow")
    if run.outcome != "plan_complete":  # a step whose dependency is missing: nothing to compare
        return
    started = {e.step: e.time for e in run.events if e.kind == "start"}
    assert started == {s: p.time for p in ready_timeline(plan, workers=workers) for s in p.started}
