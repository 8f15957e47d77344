"""Notebook 05's exercise 7, the controller's four choices (seed 004: retry, rollback, proceed, local replan): a
teacher's answer bank with verdicts. The truth is read in the test from each run's raw events and the step's
fields (a fail event or not, a retry, a replan, a step that holds resources), never from the check's reading."""

from __future__ import annotations

import pytest

import planviz
from planviz.teaching.lesson05 import CONTROLLER_FAULTS, check_exercise_7

PLAN = planviz.examples.load("cache_isolation")


def _truth(fault) -> str:
    events = planviz.simulate(PLAN, PLAN.contract, faults=[fault]).events
    if not any(e.kind == "fail" for e in events):
        return "proceed"
    if any(e.kind == "replan" for e in events):
        return "local replan"
    assert any(e.kind == "retry" and e.step == fault.step for e in events)
    return "rollback" if PLAN.step(fault.step).resources else "retry"


RIGHT = {
    "a": "retry",
    "b": "rollback",
    "c": "proceed",
    "d": "local replan",
    "e": "local replan",
    "f": "retry",
}


def test_the_bank_agrees_with_the_runs():
    assert {k: _truth(f) for k, f in CONTROLLER_FAULTS.items()} == RIGHT
    # b's step writes, and can be rolled back
    assert PLAN.step("S3").rollback and PLAN.step("S3").resources


def _with(**changes):
    return {**RIGHT, **changes}


BANK = [
    # right, in several forms
    (RIGHT, True),
    ({k.upper(): v.upper() for k, v in RIGHT.items()}, True),
    (_with(d="replan", e="Local_Replan"), True),
    (_with(b="roll back", c="continue"), True),
    (_with(b="rollback then retry", c="go on"), True),
    ({f"({k})": v for k, v in RIGHT.items()}, True),
    (_with(d="local re-plan", e="replan."), True),
    (_with(a=" retry ", f="Retry"), True),
    # wrong
    (_with(a="local replan"), False),  # a time-out spoils nothing
    (_with(b="retry"), False),  # the patch writes: roll it back first
    (_with(c="retry"), False),  # nothing failed
    (_with(c="local replan"), False),
    (_with(d="retry"), False),  # a retry cannot bring back a withdrawn fact
    (_with(e="rollback"), False),
    (_with(e="proceed"), False),
    (_with(f="rollback"), False),  # S2 writes nothing
    (_with(b="proceed", c="rollback"), False),
    # cheats and unreadable answers
    ({k: "local replan" for k in RIGHT}, False),  # replan everything "to be safe"
    ({k: "retry" for k in RIGHT}, False),
    ({k: "retry, rollback, proceed, local replan" for k in RIGHT}, False),
    (list(RIGHT.values()), False),  # a list has no letters
    ({**RIGHT, "g": "retry"}, False),
    ({k: v for k, v in RIGHT.items() if k != "c"}, False),
    (_with(a=["retry"]), False),
    (_with(d="restart"), False),
    (None, False),
    ("retry", False),
]


@pytest.mark.parametrize("choices, passed", BANK)
def test_exercise_7_bank(choices, passed):
    feedback = check_exercise_7(choices=choices)
    assert feedback.passed is passed, str(feedback)
    if not passed:
        assert not any(f"{k}: {v}" in str(feedback) for k, v in RIGHT.items()), (
            "the answer is not given away"
        )


def test_the_bank_is_big_enough():
    assert len(BANK) >= 25 and sum(p for _, p in BANK) >= 8
