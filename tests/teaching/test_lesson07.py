"""Notebook 07's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import pytest

import planviz
from planviz import Fault, Plan, Step
from planviz.teaching.lesson07 import (
    FROZEN_FAULT,
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_exercise_4,
    check_exercise_5,
)

PLAN = planviz.examples.load("cache_isolation")


def test_exercise_1_right():
    assert check_exercise_1(15, 6, "replan_limit")


@pytest.mark.parametrize(
    "answer, says",
    [
        # what times=3 gave: not structural
        (
            (11, 4, "plan_complete"),
            "does not end 'plan_complete'",
        ),
        ((15, 5, "replan_limit"), "not both counts"),
        ((9, 6, "replan_limit"), "not both counts"),
        ((15, 6, ...), "no answer yet"),
    ],
)
def test_exercise_1_wrong(answer, says):
    feedback = check_exercise_1(*answer)
    assert not feedback and says in feedback.message and feedback.hint
    assert "15" not in feedback.message + feedback.hint


def _new_route(goal, contract, state, old, revises=None, verify_id="V1"):
    kept = [s for s in old.steps if s.id in state.completed]
    patch = Step(
        "P1",
        "namespace per tenant",
        kind="patch",
        depends_on=["S1", "S2"],
        requires=["key_builder_located", "isolation_test_written"],
        produces="patch_applied",
        expected_evidence="a diff",
        check="the test passes",
        rollback="revert",
        resources=["keys.py"],
    )
    verify = Step(
        verify_id,
        "verify",
        kind="verify",
        depends_on="P1",
        requires="patch_applied",
        revises=revises,
        produces=["isolation_verified", "hit_rate_ok"],
        expected_evidence="both tests pass",
    )
    return old.replace(steps=kept + [patch, verify])


def test_exercise_2_right():
    assert check_exercise_2(_new_route)


@pytest.mark.parametrize(
    "propose, says",
    [
        (
            lambda g, c, s, old: planviz.reissue(old, set(old.ids) - set(s.completed), "again"),
            "hits your route again",
        ),
        (
            lambda g, c, s, old: _new_route(g, c, s, old, revises="S4", verify_id="S4.v9"),
            "hits your route again",
        ),
        (
            lambda g, c, s, old: old.replace(
                steps=[st for st in old.steps if st.id in s.completed]
            ),
            "the run ends",
        ),
        (lambda g, c, s, old: None, "raised SimulationError"),
        (42, "expected a function"),
        (None, "no answer yet"),
    ],
)
def test_exercise_2_wrong(propose, says):
    feedback = check_exercise_2(propose)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "fault",
    [
        Fault("S4", "extra_fact", fact="tests_deleted"),
        Fault("S4", "premise_false"),
        Fault("S2", "goal_change"),
    ],
)
def test_exercise_3_right(fault):
    assert check_exercise_3(fault)


@pytest.mark.parametrize(
    "fault, says",
    [
        (Fault("S4", "missing_evidence"), "both end expected_evidence_missing"),
        (Fault("S0", "premise_false"), "the outcomes differ, but"),
        (Fault("S9", "transient"), "cannot be injected"),
        ("S4:premise_false", "expected a planviz Fault"),
        (None, "no answer yet"),
    ],
)
def test_exercise_3_wrong(fault, says):
    feedback = check_exercise_3(fault)
    assert not feedback and says in feedback.message and feedback.hint


FAN = Plan(
    "fan",
    [
        Step("A", "a", duration=2, expected_evidence="e"),
        *(
            Step(f"B{k}", "b", duration=k + 2, depends_on="A", expected_evidence="e")
            for k in (1, 2, 3)
        ),
        Step("M", "m", duration=1, depends_on=["B1", "B2", "B3"], expected_evidence="e"),
    ],
)


def test_exercise_4_right():
    assert check_exercise_4(FAN, 15, 8, 15)


@pytest.mark.parametrize(
    "answer, says",
    [
        ((FAN, 8, 8, 15), "not right for direct"),
        ((FAN, 15, 8, 8), "not right for one_worker"),
        (
            (
                Plan(
                    "chain",
                    [
                        Step("A", "a", expected_evidence="e"),
                        Step("B", "b", depends_on="A", expected_evidence="e"),
                    ],
                ),
                2,
                2,
                2,
            ),
            "at most 1 steps",
        ),
        (("fan", 15, 8, 15), "expected a planviz Plan"),
        ((FAN, 15, None, 15), "no answer yet"),
    ],
)
def test_exercise_4_wrong(answer, says):
    feedback = check_exercise_4(*answer)
    assert not feedback and says in feedback.message and feedback.hint


# --- exercise 5: the frozen-plan test beside the planner, on a side effect at S1 ---------------------------------


def test_exercise_5_truth_from_the_run():
    """The expected answer, read from the runs' events (not from FrozenResult): S0, S1 and S2 start on the frozen
    route, S1 never completes; the planner's run completes."""
    plan = planviz.examples.load("cache_isolation")
    frozen = planviz.frozen_plan_test(plan, plan.contract, faults=[FROZEN_FAULT])
    started = {e.step for e in frozen.run.events if e.kind == "start"}
    completed = {e.step for e in frozen.run.events if e.kind == "complete"}
    assert started == {"S0", "S1", "S2"} and completed == {"S0", "S2"}
    assert planviz.simulate(plan, plan.contract, faults=[FROZEN_FAULT]).outcome == "plan_complete"


@pytest.mark.parametrize(
    "rate, blame, outcome",
    [
        (2 / 3, "executor", "plan_complete"),
        ("0.67", " Executor ", "Plan_Complete"),
        (0.667, "EXECUTOR", "plan complete"),
        ("2/3", "executor", "plan_complete"),
    ],
)
def test_exercise_5_right(rate, blame, outcome):
    assert check_exercise_5(rate, blame, outcome)


@pytest.mark.parametrize(
    "rate, blame, outcome, says",
    [
        # the section's S4 numbers
        (
            0.8,
            "executor",
            "plan_complete",
            "the evidence rate is not 0.8",
        ),
        (0.4, "executor", "plan_complete", "divides by the steps of the plan"),  # 2 of 5
        # the side effect not counted
        (
            1.0,
            "executor",
            "plan_complete",
            "did S1 produce its evidence?",
        ),
        # S2 forgotten (it runs beside S1)
        (
            0.5,
            "executor",
            "plan_complete",
            "the evidence rate is not 0.5",
        ),
        (0.67, "environment", "plan_complete", "does not blame 'environment'"),
        (0.67, "planner", "plan_complete", "does not blame 'planner'"),
        # the frozen route's outcome
        (
            0.67,
            "executor",
            "replan_limit",
            "does not end 'replan_limit'",
        ),
        (0.67, "executor", "step_failed", "does not end 'step_failed'"),
        ("two thirds", "executor", "plan_complete", "a number from 0 to 1"),
        (float("nan"), "executor", "plan_complete", "a number from 0 to 1"),
        ([0.67], "executor", "plan_complete", "a number from 0 to 1"),
        (0.67, 3, "plan_complete", "does not blame 3"),
        (0.67, "executor", ..., "no answer yet"),
    ],
)
def test_exercise_5_wrong(rate, blame, outcome, says):
    feedback = check_exercise_5(rate, blame, outcome)
    assert not feedback and says in feedback.message and feedback.hint
