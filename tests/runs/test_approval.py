"""Approvals: an approval event before the start of a step that needs one; a denial stops the run."""

from __future__ import annotations

import pytest

from planviz import (
    Fault,
    Plan,
    PlanvizTypeError,
    SimulationError,
    Step,
    attribution,
    load_trace,
    save_trace,
    simulate,
)

PLAN = Plan(
    "ship",
    [
        Step("B", "build", expected_evidence="log", produces="built", duration=2),
        Step(
            "T",
            "test",
            expected_evidence="log",
            depends_on="B",
            requires="built",
            produces="tested",
            duration=3,
        ),
        Step(
            "D",
            "deploy",
            expected_evidence="log",
            depends_on="B",
            requires="built",
            produces="deployed",
            duration=1,
            approval="change ticket CHG-7",
            resources="prod",
            check="prod serves the build",
        ),
        Step(
            "N",
            "notify",
            expected_evidence="log",
            depends_on=["D", "T"],
            requires=["deployed", "tested"],
            produces="told",
            duration=1,
        ),
    ],
)


def trail(run, step):
    return [
        (e.kind, e.time)
        for e in run.events
        if e.step == step and e.kind in ("approval", "start", "complete")
    ]


@pytest.mark.parametrize("strategy", ["planner", "workflow", "direct"])
def test_a_step_with_an_approval_waits_for_it_before_it_starts(strategy):
    run = simulate(PLAN, strategy=strategy)
    kinds = [e.kind for e in run.events if e.step == "D"]
    assert kinds[:2] == ["approval", "start"] and run.outcome == "plan_complete"
    approval = next(e for e in run.events if e.kind == "approval")
    assert (
        approval.category == "granted" and "'change ticket CHG-7' approved 'D'" in approval.message
    )


def test_the_wait_is_configurable_and_holds_the_steps_worker():
    assert trail(simulate(PLAN), "D") == [("approval", 2.0), ("start", 2.0), ("complete", 3.0)]
    assert trail(simulate(PLAN, approval_time=4), "D") == [
        ("approval", 6.0),
        ("start", 6.0),
        ("complete", 7.0),
    ]
    # D waits for its approval in its worker: T starts after D
    one = simulate(PLAN, approval_time=4, workers=1)
    assert trail(one, "D") == [("approval", 6.0), ("start", 6.0), ("complete", 7.0)]
    assert trail(one, "T")[0] == ("start", 7.0)
    assert trail(simulate(PLAN, approval_time=4, strategy="direct"), "D") == [
        ("approval", 9.0),
        ("start", 9.0),
        ("complete", 10.0),
    ]


@pytest.mark.parametrize("strategy", ["planner", "workflow", "direct"])
def test_a_denied_approval_stops_the_run_keeping_the_work_before_it(strategy):
    run = simulate(PLAN, faults=[Fault("D", "approval_denied")], strategy=strategy)
    assert run.outcome == "approval_denied" and "D" not in [
        e.step for e in run.events if e.kind == "start"
    ]
    denied = next(e for e in run.events if e.kind == "approval")
    assert denied.category == "denied" and run.events[-1].step == "D"
    assert run.frame(-1).statuses["B"] == "done" and "invalidate" not in [
        e.kind for e in run.events
    ]
    assert attribution(run).party == "environment"


def test_approval_events_survive_a_trace(tmp_path):
    run = simulate(PLAN, faults=[Fault("D", "approval_denied")], approval_time=1.5)
    save_trace(run, tmp_path / "run.jsonl")
    assert load_trace(tmp_path / "run.jsonl") == run


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"faults": [Fault("B", "approval_denied")]},
            "'B' needs no approval, so none can be denied; steps with an approval: 'D'",
        ),
        ({"approval_time": -1}, "approval_time must be a finite number >= 0"),
    ],
)
def test_bad_approval_arguments(kwargs, match):
    with pytest.raises(SimulationError, match=match):
        simulate(PLAN, **kwargs)


@pytest.mark.parametrize("approval_time", [True, "5", None])
def test_an_approval_time_of_the_wrong_type_is_a_type_error(approval_time):
    with pytest.raises(
        PlanvizTypeError, match=r"simulate\(approval_time=\.\.\.\) expects a finite number >= 0"
    ):
        simulate(PLAN, approval_time=approval_time)
