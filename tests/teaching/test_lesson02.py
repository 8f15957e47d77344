"""Notebook 02's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz import Step
from planviz.teaching.lesson02 import (
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_exercise_4,
    milestone_contract,
)

PLAN = planviz.examples.load("cache_isolation")
CONTRACT = PLAN.contract
STRICT = milestone_contract(CONTRACT)
RELEASE = planviz.examples.load("release_no_credentials")


def edit(plan, sid, **changes):
    return plan.replace(steps=tuple(replace(s, **changes) if s.id == sid else s for s in plan.steps))


def test_the_strict_contract_gives_the_notebooks_contrast():
    """Recall 1.0 with three order violations (the checklist) against 0.5 with none (the half plan)."""
    checklist = PLAN.replace(steps=[replace(s, depends_on=()) for s in PLAN.steps])
    half = PLAN.replace(steps=PLAN.steps[:2])
    assert (planviz.grade(checklist, STRICT).required_recall, len(planviz.grade(checklist, STRICT).order_violations)) \
        == (1.0, 3)
    assert (planviz.grade(half, STRICT).required_recall, planviz.grade(half, STRICT).order_violations) == (0.5, ())


@pytest.mark.parametrize("codes", [{"unmet_requirement", "order_violation"}, "order_violation, unmet_requirement",
                                   ["order_violation", "unmet_requirement"]])
def test_exercise_1_right(codes):
    assert check_exercise_1(codes)


@pytest.mark.parametrize("codes, says", [
    ({"unmet_requirement"}, "1 code(s) missing, in the semantics layer"),
    ({"unmet_requirement", "order_violation", "dead_end"}, "dead_end is not reported"),
    ({"unmet_requirement", "cycles"}, "'cycles' is not a finding code"),
    (42, "expected a set of finding codes"),
    (..., "no answer yet"),
])
def test_exercise_1_wrong(codes, says):
    feedback = check_exercise_1(codes)
    assert not feedback and says in feedback.message and feedback.hint
    assert "order_violation" not in feedback.message + feedback.hint


def test_exercise_2_right():
    assert check_exercise_2("semantics", "order_violation")


@pytest.mark.parametrize("layer, code, says", [
    ("semantics", "unmet_requirement", "not the new finding"),
    ("static", "order_violation", "not reported by the 'static' layer"),
    ("semantics", "ordering", "not a finding code"),
    (None, "order_violation", "no answer yet"),
])
def test_exercise_2_wrong(layer, code, says):
    feedback = check_exercise_2(layer, code)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize("steps", [["S0", "S1"], ["S0", "S3"], ["S3", "S4"]])
def test_exercise_3_right(steps):
    plan = PLAN.replace(steps=[replace(PLAN.step(s), depends_on=()) for s in steps])
    assert check_exercise_3(plan)


@pytest.mark.parametrize("plan, says", [
    (PLAN, "recall 1.00"),
    (PLAN.replace(steps=PLAN.steps[:1]), "recall 0.25"),
    (PLAN.replace(steps=[PLAN.step("S0"), Step("X", "patch it", kind="patch", expected_evidence="")]),
     "not well formed: no_evidence"),
    ("S0, S1", "expected a planviz Plan"),
    (None, "no answer yet"),
])
def test_exercise_3_wrong(plan, says):
    feedback = check_exercise_3(plan)
    assert not feedback and says in feedback.message and feedback.hint


RIGHT_GATES = {  # five plans the notebook's table did not gate
    "cycle through S0": (edit(PLAN, "S0", depends_on=["S4"]), CONTRACT, "SchemaError"),
    "nothing obtainable": (PLAN, replace(CONTRACT, obtainable_facts=()), "PlanningFailure"),
    "cheat, no contract": (planviz.examples.load("delete_failing_test"), None, "SemanticError"),
    "vouched, no contract": (RELEASE.replace(premises=RELEASE.premises + ("deploy_credentials",), contract=None), None,
                             "runs"),
    "checklist, strict": (PLAN.replace(steps=[replace(s, depends_on=()) for s in PLAN.steps]), STRICT,
                          "SemanticError"),
}
TABLE_ORIGINAL = (PLAN, CONTRACT, "runs")


def test_exercise_4_right():
    assert check_exercise_4(RIGHT_GATES)


@pytest.mark.parametrize("predictions, says", [
    ({**RIGHT_GATES, "nothing obtainable": (PLAN, replace(CONTRACT, obtainable_facts=()), "SemanticError")},
     "'nothing obtainable': prepare does not give"),
    ({**RIGHT_GATES, "cheat, no contract": (planviz.examples.load("delete_failing_test"), None, "runs")},
     "'cheat, no contract': prepare does not give"),
    ({k: v for k, v in RIGHT_GATES.items() if k != "nothing obtainable"}, "4 plan(s); the exercise asks for five"),
    ({**{k: v for k, v in RIGHT_GATES.items() if k != "nothing obtainable"}, "again": RIGHT_GATES["cycle through S0"]},
     "the same plan and contract as another entry"),
    ({**RIGHT_GATES, "cycle through S0": (PLAN, CONTRACT, "refused")}, "'refused' is not one of"),
    ({**RIGHT_GATES, "cycle through S0": (PLAN, "contract.yaml", "runs")}, "not (plan, contract, prediction)"),
    ({"cycle": (PLAN, CONTRACT, ...)}, "no answer yet"),
    ({}, "no answer yet"),
    ([("a", PLAN)], "expected a dict"),
    # the table's own plans are not the five the exercise asks for
    ({"original": TABLE_ORIGINAL, "release": (RELEASE, RELEASE.contract, "PlanningFailure"),
      "cycle": (edit(PLAN, "S1", depends_on=["S0", "S4"]), CONTRACT, "SchemaError"),
      "cheat": (planviz.examples.load("delete_failing_test"), planviz.examples.load("delete_failing_test").contract,
                "SemanticError"), "forgot": (edit(PLAN, "S3", depends_on=["S1"]), CONTRACT, "SemanticError")},
     "a plan the table above already gated"),
    ({**RIGHT_GATES, "original": TABLE_ORIGINAL}, "'original' is a plan the table above already gated"),
])
def test_exercise_4_wrong(predictions, says):
    feedback = check_exercise_4(predictions)
    assert not feedback and says in feedback.message and feedback.hint


def test_exercise_4_hint_says_warnings_never_refuse():
    clash = edit(edit(PLAN, "S1", resources=["c"], check="c holds S1's entry"), "S2", resources=["c"],
                 check="c holds S2's entry")
    feedback = check_exercise_4({**RIGHT_GATES, "clash": (clash, CONTRACT, "SemanticError")})
    assert not feedback and "warnings never refuse" in feedback.hint


@pytest.mark.parametrize("form", ["semanticerror", " SemanticError ", planviz.SemanticError])
def test_exercise_4_reads_a_prediction_in_any_form(form):
    """The exception class itself, or its name in any case with spaces around: the same prediction."""
    gates = dict(RIGHT_GATES)
    plan, contract, _ = gates["checklist, strict"]
    gates["checklist, strict"] = (plan, contract, form)
    assert check_exercise_4(gates)
