"""Outcomes as the seeds define them: goal success, a correct stop (a result, not a failure), silent failure,
failure; campaign rows count each, and success_rate is goal success."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Fault, FaultModel, campaign, examples, metrics, simulate
from planviz.runs.measures.outcomes import outcome_class


@pytest.fixture(scope="module")
def past_due():
    return examples.load("past_due_account")


def test_a_false_premise_is_a_correct_stop_for_the_planner_and_a_silent_failure_for_the_workflow(
    past_due,
):
    fault = [Fault("step_1", "premise_false")]
    planner, workflow = (
        simulate(past_due, faults=fault, strategy=s) for s in ("planner", "workflow")
    )
    assert (planner.outcome, workflow.outcome) == ("premise_failed", "plan_complete")
    assert metrics(planner).outcome_class == "correct_stop" and not metrics(planner).success
    # the workflow completed every step past a premise the world had falsified: not a success
    assert metrics(workflow).outcome_class == "silent_failure" and not metrics(workflow).success


def test_missing_evidence_the_direct_agent_never_checks_is_a_silent_failure(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "missing_evidence")], strategy="direct")
    complete = next(e for e in run.events if e.kind == "complete" and e.step == "S4")
    # read from the event itself
    assert not set(cache_plan.step("S4").produces) <= complete.observation.facts
    assert run.outcome == "plan_complete" and metrics(run).outcome_class == "silent_failure"


def test_a_correct_refusal_is_a_correct_stop_not_a_failure():
    run = simulate(examples.load("release_no_credentials"))
    assert run.outcome == "refused" and outcome_class(run) == "correct_stop"
    row = campaign(
        [examples.load("release_no_credentials")], samples=3, strategies=["planner"]
    ).row("planner")
    assert (row.successes, row.correct_stops, row.silent_failures, row.failures) == (0, 3, 0, 0)


def test_a_row_counts_each_class_and_its_rate_is_goal_success(past_due):
    model = FaultModel({"premise_false": 0.3}, seed=2)
    result = campaign([past_due], model, samples=30)
    for row in result.rows:
        classes = [
            outcome_class(
                simulate(past_due, faults=model.sample(past_due, j), strategy=row.strategy)
            )
            for j in range(30)
        ]
        assert (
            row.successes == classes.count("goal_success")
            and row.success_rate == row.successes / 30
        )
        assert (row.correct_stops, row.silent_failures, row.failures) == (
            classes.count("correct_stop"),
            classes.count("silent_failure"),
            classes.count("failure"),
        )
    assert result.row("workflow").silent_failures > 0 and result.row("planner").correct_stops > 0
    assert "correct stop" in result.to_text()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    rate=st.sampled_from([0.1, 0.3, 1.0]),
    base=st.sampled_from(["transient", "side_effect", "withdraw", "missing_evidence"]),
)
def test_a_false_premise_never_raises_a_strategys_success_rate(seed, rate, base):
    plan = examples.load("past_due_account")
    without = FaultModel({base: 0.2}, seed=seed)
    with_premise = FaultModel({base: 0.2, "premise_false": rate}, seed=seed)
    a, b = (campaign([plan], m, samples=8) for m in (without, with_premise))
    for row in a.rows:
        assert b.row(row.strategy).success_rate <= row.success_rate


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    index=st.integers(0, 500),
    added=st.sampled_from(["tool_error", "withdraw", "goal_change", "premise_false", "extra_fact"]),
)
def test_a_kind_added_never_moves_the_other_kinds_faults(seed, index, added):
    plan = examples.load("cache_isolation")
    base = FaultModel({"transient": 0.3, "side_effect": 0.2, "missing_evidence": 0.2}, seed=seed)
    more = FaultModel(
        {"transient": 0.3, "side_effect": 0.2, "missing_evidence": 0.2, added: 0.5}, seed=seed
    )
    assert [f for f in more.sample(plan, index) if f.kind != added] == list(
        base.sample(plan, index)
    )


def test_a_silent_failure_is_attributed_not_excused(cache_plan, past_due):
    from planviz import attribution

    unchecked = simulate(cache_plan, faults=[Fault("S4", "missing_evidence")], strategy="direct")
    assert unchecked.outcome == "plan_complete" and attribution(unchecked).party == "executor"
    assert "'S4' completed without the evidence" in attribution(unchecked).reason
    past = simulate(past_due, faults=[Fault("step_1", "premise_false")], strategy="workflow")
    assert past.outcome == "plan_complete" and attribution(past).party == "environment"
