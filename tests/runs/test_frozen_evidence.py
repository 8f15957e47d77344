"""The frozen-plan test counts evidence per declared expected_evidence (issue 40.5)."""

from __future__ import annotations

from planviz import Fault, Plan, Step, examples, frozen_plan_test


def test_an_executor_that_produced_nothing_declared_is_not_certified():
    # no produces at all
    plan = Plan(
        "g",
        [
            Step("A", "look", expected_evidence="a note"),
            Step("B", "use", expected_evidence="a diff", depends_on="A"),
        ],
    )
    result = frozen_plan_test(
        plan, faults=[Fault(s, "missing_evidence", times=3) for s in plan.ids]
    )
    assert not any(p.evidence for p in result.steps.values())
    assert result.evidence_rate == 0.0 and result.attribution == "executor"
    assert "2 of 2 steps run produced no evidence" in result.reason


def test_one_silent_step_among_others_counts_once_and_a_clean_run_is_certified():
    result = frozen_plan_test(examples.load("cache_isolation"))
    assert result.evidence_rate == 1.0 and result.attribution is None
    plan = Plan(
        "g",
        [
            Step("A", "look", expected_evidence="a note", produces="seen"),
            Step("B", "use", expected_evidence="a diff", depends_on="A", requires="seen"),
        ],
    )
    result = frozen_plan_test(plan, faults=[Fault("B", "missing_evidence")])
    assert (
        result.outcome == "plan_complete"
        and result.steps["A"].evidence
        and not result.steps["B"].evidence
    )
    assert (
        result.evidence_rate == 0.5 and result.attribution == "executor" and "(B)" in result.reason
    )
