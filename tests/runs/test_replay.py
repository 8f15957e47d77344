"""An independent replay: a second, simple implementation of each measure over a run's events agrees with
``metrics`` on random runs; intervals are Student-t with a stable variance and never below zero."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Estimate, FaultModel, campaign, examples, metrics, simulate
from planviz.runs.measures.intervals import t95

KINDS = (
    "transient",
    "tool_error",
    "withdraw",
    "side_effect",
    "missing_evidence",
    "premise_false",
    "extra_fact",
)


def replay(run, plan):
    """Each measure again, from the events and the plans alone, written without planviz's helpers."""
    first = {s.id for s in run.plans[0].steps}

    def root(sid):  # S3.v2 -> S3: revisions keep the first id with a version suffix
        return sid.split(".v")[0]

    starts = [e for e in run.events if e.kind == "start"]
    seen, dup = set(), 0
    for e in starts:
        r = root(e.step)
        if r in seen:
            dup += 1
        seen.add(r)
        assert r in first  # the default replanner never invents work: no off-plan ids here
    voided_done, hops, groups = 0, 0, []
    for i, e in enumerate(run.events):
        if e.kind in ("invalidate", "recheck") and i > 0:
            before = run.frame(i - 1)
            voided_done += sum(before.statuses.get(s) == "done" for s in e.voided)
            if e.kind == "invalidate":
                groups.append((run.plan_at(i - 1), e.step, set(e.voided)))
            elif groups:
                groups[-1][2].update(e.voided)
    for version, failed, voided in groups:
        parents = {s.id: set(s.depends_on) for s in version.steps}
        points = [s for s in voided if s in parents and not parents[s] & voided]
        if failed in parents and points and failed not in points:
            dist, frontier, d = {}, {failed}, 0
            while frontier:  # breadth first, upwards
                d += 1
                frontier = {p for s in frontier for p in parents.get(s, ()) if p not in dist}
                for p in frontier:
                    dist[p] = d
            if any(p in dist for p in points):
                hops = max(hops, min(dist[p] for p in points if p in dist))
    done_first = {root(s) for s in run.state.completed} & first
    # a step whose last attempt started ready in its plan version and failed, never retried nor voided, was
    # executed: a valid step that failed is no invalid step
    last_valid, failed_last = {}, set()
    for i, e in enumerate(run.events):
        if e.kind == "start":
            failed_last.discard(e.step)
            step, before = run.plan_at(i).by_id.get(e.step), run.frame(i - 1)
            last_valid[e.step] = (
                step is not None
                and all(before.statuses.get(d) == "done" for d in step.depends_on)
                and set(step.requires) <= before.facts
            )
        elif e.kind == "fail" and last_valid.get(e.step):
            failed_last.add(e.step)
        elif e.kind in ("invalidate", "recheck"):
            failed_last -= set(e.voided)
    done_first |= {root(s) for s in failed_last} & first
    premises = set(run.plans[0].premises)
    falsified = any(
        o.withdrawn & premises or {f"not {p}" for p in premises} & o.facts
        for _, o in run.state.observations
    )
    lacking = any(
        e.kind == "complete"
        and not set(run.plan_at(i).step(e.step).produces) <= e.observation.facts
        for i, e in enumerate(run.events)
    )
    success = run.outcome == "plan_complete" and not falsified and not lacking
    return {
        "tool_calls": len(starts),
        "replans": sum(e.kind == "replan" for e in run.events),
        "duplicate_steps": dup,
        "work_voided": voided_done,
        "recovery_distance": hops,
        "executability": len(done_first) / len(first),
        "success": success,
        "time": run.events[-1].time,
    }


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    index=st.integers(0, 50),
    name=st.sampled_from(["cache_isolation", "parser_fix", "past_due_account"]),
    strategy=st.sampled_from(["planner", "workflow", "direct"]),
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3, unique=True),
)
def test_an_independent_replay_agrees_with_metrics(seed, index, name, strategy, kinds):
    plan = examples.load(name)
    faults = FaultModel({k: 0.25 for k in kinds}, seed=seed).sample(plan, index)
    run = simulate(plan, faults=faults, strategy=strategy)
    m = metrics(run)
    for key, value in replay(run, plan).items():
        assert getattr(m, key) == pytest.approx(value), (key, [str(f) for f in faults])


def _t_cdf(x, df):
    """Student's t CDF by Simpson's rule on its density (no library)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    n = 20000
    h = x / n
    f = lambda t: c * (1 + t * t / df) ** (-(df + 1) / 2)  # noqa: E731
    total = f(0) + f(x) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, n))
    return 0.5 + total * h / 3


@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 17, 30, 31, 45, 80, 200])
def test_t95_is_the_975_quantile(df):
    assert _t_cdf(t95(df), df) == pytest.approx(0.975, abs=2e-6 if df > 1 else 2e-4)


def test_a_small_sample_interval_is_wider_than_the_normal_one_and_never_below_zero():
    e = Estimate.of([0, 0, 1])
    assert e.high - e.mean == pytest.approx(t95(2) * math.sqrt(1 / 3 / 3))  # s^2 = 1/3, n = 3
    assert e.low == 0.0 and e.high - e.mean > 1.96 * math.sqrt(1 / 9)


def test_the_variance_is_stable_near_1e9():
    values = [1e9 + v for v in (4.0, 7.0, 13.0, 16.0)]  # variance 30 around 1e9
    e = Estimate.of(values)
    # one-pass sums: off by ~100
    assert (e.high - e.mean) == pytest.approx(t95(3) * math.sqrt(30 / 4), rel=1e-6)


def test_campaign_intervals_are_t_intervals_over_every_run():
    plan = examples.load("cache_isolation")
    model = FaultModel({"side_effect": 0.3, "transient": 0.2}, seed=5)
    row = campaign([plan], model, samples=12, strategies=["planner"]).row("planner")
    values = [metrics(simulate(plan, faults=model.sample(plan, j))).tool_calls for j in range(12)]
    mean = sum(values) / 12
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 11)
    assert row.tool_calls.mean == pytest.approx(mean) and row.tool_calls.n == 12
    assert row.tool_calls.high == pytest.approx(mean + t95(11) * sd / math.sqrt(12))
    assert row.executability.n == row.runs == 12 and row.work_voided.n == 12
    assert (
        "critical_path_delay (completed runs only)" in campaign([plan], model, samples=3).to_text()
    )
