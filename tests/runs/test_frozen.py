"""frozen_plan_test: seed 000's executor test, the route fixed; its figures computed from the run's events here."""

from __future__ import annotations

import json

import pytest

from planviz import Contract, Fault, FrozenResult, SimulationError, examples, frozen_plan_test


def test_a_clean_run_performs_every_step_with_its_evidence(cache_plan):
    result = frozen_plan_test(cache_plan)
    assert isinstance(result, FrozenResult) and result.outcome == "plan_complete"
    assert all(p.performed and p.evidence and p.attempts == 1 for p in result.steps.values())
    assert list(result.steps) == list(cache_plan.ids)
    assert (result.evidence_rate, result.out_of_plan, result.attribution) == (1.0, (), None)


def test_the_route_stays_fixed_no_replanning(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S4", "side_effect")])
    run = result.run
    assert result.outcome == "replan_limit" and not [e for e in run.events if e.kind == "replan"]
    assert len(run.plans) == 1
    started = {e.step for e in run.events if e.kind == "start"}
    completed = {e.step for e in run.events if e.kind == "complete"}
    assert {s for s, p in result.steps.items() if p.performed} == started
    assert {s for s, p in result.steps.items() if p.evidence} == completed
    assert result.evidence_rate == len(completed) / len(started) == 0.8
    assert result.attribution == "executor" and "'S4'" in result.reason


def test_steps_never_performed_and_the_rate_over_the_steps_run(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S1", "tool_error")], workers=1)
    assert not result.steps["S3"].performed and not result.steps["S4"].performed
    assert result.steps["S1"].performed and not result.steps["S1"].evidence
    ran = [p for p in result.steps.values() if p.performed]
    assert result.evidence_rate == sum(p.evidence for p in ran) / len(ran)


def test_retries_are_attempts_of_the_same_step(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S1", "transient")])
    assert result.steps["S1"] == result.steps["S1"].__class__(True, True, 2) and result.outcome == "plan_complete"


def test_an_inadmissible_plan_is_refused_naming_the_finding():
    with pytest.raises(SimulationError, match="admissible.*infeasible_fact"):
        frozen_plan_test(examples.load("release_no_credentials"))
    with pytest.raises(SimulationError, match="unverified_effect"):
        frozen_plan_test(examples.load("past_due_account"), Contract(intent="read"))


def test_to_dict_is_json_and_to_text_lists_every_step(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S4", "side_effect")])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["steps"]["S4"] == {"performed": True, "evidence": False, "attempts": 1}
    text = result.to_text()
    assert all(sid in text for sid in cache_plan.ids) and "evidence rate: 0.80" in text
