"""Notebook 06's exercise 4: an executor acting outside the plan, found with ``frozen_plan_test(plan, contract,
trace=run)`` on a recorded run (seed 000, sections 7 and 11). A teacher's answer bank: right answers in several
forms, wrong ones and cheats, each with its verdict. What is right is read from the recorded run's events in
the test (the ids the route does not have), never from planviz's frozen-plan test."""

from __future__ import annotations

import pytest

import planviz
from planviz import Observation, Recorder, Step
from planviz.teaching.lesson06 import check_exercise_4

PLAN = planviz.examples.load("cache_isolation")
FLUSH = Step(
    "C1",
    "Flush the shared cache to be safe",
    tool="flush_cache",
    depends_on=["S2"],
    expected_evidence="the cache is empty",
)
WRITE = Step(
    "W1",
    "Write a note for the on-call team",
    tool="write_file",
    depends_on=["S0"],
    expected_evidence="the note exists",
)
OTHER_CHECK = Step(
    "V9",
    "Eyeball the dashboards instead",
    tool="open_dashboard",
    depends_on=["S3"],
    expected_evidence="the graphs look fine",
)


def _record(route: planviz.Plan, failing: str | None = None) -> planviz.Run:
    """``route`` recorded step by step in its listed order; ``failing``'s observation establishes nothing."""
    rec = Recorder(PLAN.contract, clock=iter(range(100)).__next__)
    rec.propose(route)
    for step in route.steps:
        rec.start(step.id)
        facts = set() if step.id == failing else set(step.produces)
        if any(e.kind == "fail" for e in rec.observe(step.id, Observation(True, facts, data={}))):
            rec.stop("expected_evidence_missing", f"{step.id} did not show what it promised")
            return rec.run
    rec.stop("plan_complete")
    return rec.run


def _with(*extra: Step, drop: str | None = None) -> planviz.Plan:
    steps = [s for s in PLAN.steps if s.id != drop]
    return PLAN.replace(steps=[*steps[:3], *extra, *steps[3:]])


# the notebook's agent plus a flush: S4 still lacks its evidence
EAGER = _record(_with(FLUSH), failing="S4")
EAGER_DONE = _record(_with(FLUSH))  # every planned step done, and one call more
TWO = _record(_with(FLUSH, WRITE))  # two calls the route does not have
FAITHFUL = _record(PLAN, failing="S4")  # the notebook's agent: it kept to the route
# a different route: S4 replaced, not an added call
SWAPPED = _record(_with(OTHER_CHECK, drop="S4"))
SIMULATED = planviz.simulate(_with(FLUSH))  # not recorded


def _outside(run: planviz.Run) -> set[str]:
    """The truth from the raw events: steps the run started that the plan does not have."""
    return {e.step for e in run.events if e.kind == "start"} - set(PLAN.ids)


def test_the_runs_are_what_the_bank_says():
    assert _outside(EAGER) == _outside(EAGER_DONE) == {"C1"} and _outside(TWO) == {"C1", "W1"}
    assert _outside(FAITHFUL) == set() and "S4" not in {e.step for e in SWAPPED.events}
    assert any(e.kind == "fail" and e.step == "S4" for e in EAGER.events)


BANK = [
    # right, in several forms
    (EAGER, ("C1",), "executor", True),
    (EAGER, "C1", "Executor", True),
    (EAGER, ["C1"], "the executor", True),
    (EAGER, {"C1"}, " EXECUTOR ", True),
    (EAGER, " C1 ", "executor.", True),
    (EAGER_DONE, ["C1"], "executor", True),  # every planned step done: the route was still left
    (TWO, ("C1", "W1"), "executor", True),
    (TWO, "W1, C1", "executor", True),
    (TWO, ["W1", "C1"], "Executor", True),
    # wrong
    (EAGER, ("S4",), "executor", False),  # the step that failed is in the plan
    (EAGER, ("C1", "S4"), "executor", False),
    (EAGER, (), "executor", False),
    (EAGER, ("C1",), "planner", False),
    (EAGER, ("C1",), "environment", False),
    (EAGER, ("C1",), "contract", False),
    (TWO, ("C1",), "executor", False),  # one of the two calls missed
    (EAGER, ("C1",), None, False),  # unanswered
    (EAGER, ..., "executor", False),
    # cheats and unusable answers
    (FAITHFUL, ("C1",), "executor", False),  # the notebook's agent never left the route
    (FAITHFUL, (), "executor", False),
    (SWAPPED, ("V9",), "executor", False),  # a different route, not an added call
    (SIMULATED, ("C1",), "executor", False),  # simulated, not recorded
    (PLAN, ("C1",), "executor", False),  # a plan is not a run
    (None, ("C1",), "executor", False),
    ("EAGER", ("C1",), "executor", False),
    (EAGER, (FLUSH,), "executor", False),  # a Step object, not its id
    (EAGER, 1, "executor", False),
    (EAGER, ("C1",), object(), False),
    (EAGER, ("C1",), ["executor"], False),
]


@pytest.mark.parametrize("run, out_of_plan, attribution, passed", BANK)
def test_exercise_4_bank(run, out_of_plan, attribution, passed):
    feedback = check_exercise_4(run=run, out_of_plan=out_of_plan, attribution=attribution)
    assert feedback.passed is passed, str(feedback)
    if not passed and run is EAGER and "C1" not in str(out_of_plan):
        assert "C1" not in str(feedback), "a 'not yet' must not give the answer away"


def test_the_bank_is_big_enough():
    assert len(BANK) >= 25 and sum(p for *_, p in BANK) >= 8


def test_unanswered_says_so():
    assert not check_exercise_4()
    assert "check_exercise_4(run=" in str(check_exercise_4())
