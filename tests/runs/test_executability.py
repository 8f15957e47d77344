"""Executability and invalid steps: a valid step that failed and was never retried was executed (it is no
invalid step); a start off the plan or before the step was ready is invalid. Expected figures are read from
the run's events in the test, never from ``metrics``."""

from __future__ import annotations

import pytest

from planviz import Fault, Plan, Recorder, Step, examples, metrics, simulate


def from_events(run):
    """(executability, invalid starts, precondition errors, repeated starts) read from the events alone.

    A start is valid when its step is in the plan version it started in and every dependency was completed
    (and not voided since) and every required fact held just before. A planned step (of the first version; a
    revision ``S3.v2`` is ``S3``) was executed when it is completed at the end, or when its last start was
    valid and a ``fail`` ended it, and no later start or void took it back."""
    first = {s.id for s in run.plans[0].steps}
    root = lambda sid: sid.split(".v")[0]  # noqa: E731
    done, failed_last, last_valid = set(), set(), {}
    invalid = unready = repeated = 0
    seen = set()
    for i, e in enumerate(run.events):
        if e.kind == "start":
            failed_last.discard(e.step)
            done.discard(e.step)
            step = run.plan_at(i).by_id.get(e.step)
            if step is None:
                invalid += 1
                last_valid[e.step] = False
                continue
            ready = set(step.depends_on) <= done and set(step.requires) <= run.frame(i - 1).facts
            unready += not ready
            last_valid[e.step] = ready
            repeated += root(e.step) in seen
            seen.add(root(e.step))
        elif e.kind == "complete":
            done.add(e.step)
        elif e.kind == "fail" and last_valid.get(e.step):
            failed_last.add(e.step)
        elif e.kind in ("invalidate", "recheck"):
            done -= set(e.voided)
            failed_last -= set(e.voided)
    executed = {root(s) for s in done | failed_last} & first
    return len(executed) / len(first), invalid, unready, repeated


def figures(run):
    m = metrics(run)
    return m.executability, m.duplicate_steps, m.precondition_errors


@pytest.mark.parametrize("strategy", ["direct", "workflow", "planner"])
@pytest.mark.parametrize(
    "fault", ["S1:tool_error", "S3:tool_error", "S1:transientx3", "S4:missing_evidence"]
)
def test_a_valid_step_that_failed_and_was_never_retried_was_executed(strategy, fault):
    # tool_error: no retry strategy; transient x3 on S1: retries exhausted (max_retries 2); missing evidence:
    # the tool ran, the workflow and the planner stop (the direct agent checks no evidence and completes)
    plan = examples.load("cache_isolation")
    run = simulate(plan, faults=[Fault.parse(fault)], strategy=strategy)
    failed = [(i, e.step) for i, e in enumerate(run.events) if e.kind == "fail"]
    # the last failure is never retried: no later start
    if strategy != "direct" or "missing" not in fault:
        i, sid = failed[-1]
        assert run.outcome != "plan_complete" and all(
            e.step != sid for e in run.events[i:] if e.kind == "start"
        )
    executability, invalid, unready, repeated = from_events(run)
    assert (invalid, unready) == (0, 0)  # every start was a valid step of its plan version
    assert figures(run) == (pytest.approx(executability), invalid + repeated, unready)
    last_fail = failed[-1][1] if failed else None
    if run.outcome != "plan_complete" and last_fail is not None:
        # the failed step counts as executed: completed steps plus the one that failed, of 5 planned
        completed = {e.step for e in run.events if e.kind == "complete"}
        assert metrics(run).executability == pytest.approx(len(completed | {last_fail}) / 5)


def _plan():
    return Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
            Step("C", "c", expected_evidence="e", produces="z"),
        ],
    )


def test_a_recorded_tool_error_never_retried_is_executed_not_invalid():
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(_plan())
    rec.start("A")
    rec.fail("A", "boom", "tool_error")  # a valid step that failed; never retried
    rec.start("C")
    rec.complete("C")
    rec.stop("step_failed")
    # A and C executed, B never started
    assert from_events(rec.run) == (
        pytest.approx(2 / 3),
        0,
        0,
        0,
    )
    assert figures(rec.run) == (pytest.approx(2 / 3), 0, 0)


def test_an_unready_start_that_failed_is_invalid_and_not_executed():
    # a direct agent calling B before it holds A's result: a precondition error, never retried
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(_plan())
    rec.start("B")
    rec.fail("B", "x missing", "unmet_precondition")
    rec.start("A")
    rec.complete("A")
    rec.stop("step_failed")
    assert from_events(rec.run) == (pytest.approx(1 / 3), 0, 1, 0)  # only A executed
    assert figures(rec.run) == (pytest.approx(1 / 3), 0, 1)


def test_a_call_outside_the_plan_that_failed_is_invalid_and_not_executed():
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(_plan())
    rec.start("rm -rf cache")  # not a step of the plan
    rec.fail("rm -rf cache", "not in the plan", "tool_error")
    rec.start("A")
    rec.complete("A")
    rec.start("B")
    rec.fail("B", "boom", "tool_error")  # valid, failed, never retried: executed
    rec.stop("step_failed")
    assert from_events(rec.run) == (pytest.approx(2 / 3), 1, 0, 0)
    # the off-plan call is the one invalid step
    assert figures(rec.run) == (
        pytest.approx(2 / 3),
        1,
        0,
    )


def test_a_failed_step_retried_is_judged_by_its_retry():
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(_plan())
    rec.start("A")
    rec.complete("A")
    rec.start("B")
    rec.fail("B", "boom", "tool_error")
    rec.start("B")  # retried: a repeat; the retry decides, and it was interrupted by the stop
    rec.stop("step_failed")
    assert from_events(rec.run) == (pytest.approx(1 / 3), 0, 0, 1)
    assert figures(rec.run) == (pytest.approx(1 / 3), 1, 0)


def test_the_direct_agent_never_starts_an_unready_step_whatever_the_fault():
    plan = examples.load("cache_isolation")
    for fault in ("S1:tool_error", "S3:withdraw", "S4:side_effect", "S2:transientx3"):
        run = simulate(plan, faults=[Fault.parse(fault)], strategy="direct")
        assert from_events(run)[1:3] == (0, 0) and metrics(run).precondition_errors == 0
