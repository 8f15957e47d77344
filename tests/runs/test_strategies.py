"""The direct strategy is an adaptive implicit agent; compare_strategies shows what each strategy pays a model."""

from __future__ import annotations

import pytest

from planviz import Fault, Plan, Step, compare_strategies, examples, metrics, simulate


@pytest.fixture
def past_due():
    return examples.load("past_due_account")


def starts(run):
    return [e.step for e in run.events if e.kind == "start"]


def test_direct_has_no_premises_so_a_false_one_goes_unnoticed(past_due):
    run = simulate(past_due, faults=[Fault("step_1", "premise_false")], strategy="direct")
    assert run.outcome == "plan_complete" and starts(run) == list(past_due.ids)
    assert metrics(run).outcome_class == "silent_failure" and not metrics(run).success


def test_direct_runs_serially_in_listed_order_and_calls_a_model_per_step(cache_plan):
    run = simulate(cache_plan, strategy="direct")
    assert starts(run) == list(cache_plan.ids) and run.events[-1].time == 32.0
    running = [
        sum(v == "running" for v in run.frame(i).statuses.values()) for i in range(len(run.events))
    ]
    assert max(running) == 1
    assert metrics(run).model_calls == 5


def test_direct_does_not_call_steps_whose_inputs_the_failure_took_away(cache_plan):
    """Seed 003: implicit planning would have stopped after the failed step; S3 needs S1's result, S4 S3's."""
    run = simulate(cache_plan, faults=[Fault("S1", "tool_error")], strategy="direct")
    assert starts(run) == ["S0", "S1", "S2"] and run.outcome == "step_failed"
    assert "S3 (needs the result of 'S1')" in run.events[-1].message
    assert metrics(run).model_calls == 3 and metrics(run).precondition_errors == 0


def test_direct_follows_placeholders_too(past_due):
    run = simulate(past_due, faults=[Fault("step_2", "tool_error")], strategy="direct")
    # step_3 uses {{step_2.max_installments}}, the rest follow
    assert starts(run) == [
        "step_1",
        "step_2",
    ]


@pytest.mark.parametrize(
    "times, outcome, tries",
    [(1, "plan_complete", 2), (2, "plan_complete", 3), (3, "step_failed", 3)],
)
def test_direct_retries_transient_errors_up_to_max_retries(cache_plan, times, outcome, tries):
    run = simulate(cache_plan, faults=[Fault("S1", "transient", times=times)], strategy="direct")
    assert run.outcome == outcome and starts(run).count("S1") == tries
    assert [e.kind for e in run.events].count("retry") == tries - 1


def test_planning_is_pure_overhead_for_a_tiny_sequential_task():
    tiny = Plan(
        "know tomorrow's weather",
        [
            Step(
                "W",
                "look up the forecast",
                produces="forecast",
                expected_evidence="a forecast for tomorrow",
            ),
            Step(
                "S",
                "say it",
                depends_on="W",
                requires="forecast",
                produces="said",
                expected_evidence="a sentence",
            ),
        ],
    )
    rows = {r.strategy: r for r in compare_strategies(tiny).rows}
    cost = {
        name: (r.outcome, r.metrics.tool_calls, r.metrics.model_calls, r.metrics.time)
        for name, r in rows.items()
    }
    assert cost == {
        "direct": ("plan_complete", 2, 2, 2.0),
        "workflow": ("plan_complete", 2, 0, 2.0),
        "planner": ("plan_complete", 2, 1, 2.0),
    }
    assert "model_calls" in compare_strategies(tiny).to_text().splitlines()[1]


def test_compare_counts_the_planners_replans_and_expansions():
    far = examples.load("far_horizon")
    rows = {r.strategy: r for r in compare_strategies(far).rows}
    assert rows["planner"].metrics.model_calls == 2  # the proposal and F1's expansion
    assert rows["planner"].outcome == rows["workflow"].outcome == "awaiting_expansion"


# per fault kind, what the strategy table (planviz.runs.engine.strategies) lets differ; anything else must be equal
ALLOWED = {
    "transient": lambda d, w, p: d == w == p,  # all three retry
    "tool_error": lambda d, w, p: d == w == p,  # nobody recovers an executor's error
    # redo: direct and planner, not workflow
    "side_effect": lambda d, w, p: d == p and (w == p or w == "failure"),
    "withdraw": lambda d, w, p: (
        (d == p or (p == "correct_stop" and d == "failure"))  # premise stop: planner only
        and (w == d or w == "failure")
    ),
    "missing_evidence": lambda d, w, p: (
        w == p and (d == p or (d == "silent_failure" and p == "failure"))
    ),
    "premise_false": lambda d, w, p: d == w and (p == d or p == "correct_stop"),
}


@pytest.mark.parametrize("kind", sorted(ALLOWED))
def test_each_strategys_advantage_comes_only_from_the_mechanisms_its_table_gives_it(
    kind, cache_plan, past_due
):
    from planviz import FaultModel
    from tests.runs.test_evaluation import patch_plan

    model = FaultModel({kind: 0.3}, seed=4)
    seen = set()
    for plan in (cache_plan, examples.load("parser_fix"), patch_plan(), past_due):
        for j in range(25):
            faults = model.sample(plan, j)
            d, w, p = (
                metrics(simulate(plan, faults=faults, strategy=s)).outcome_class
                for s in ("direct", "workflow", "planner")
            )
            assert ALLOWED[kind](d, w, p), (plan.goal, [str(f) for f in faults], d, w, p)
            seen.add((d, w, p))
    assert len(seen) > 1  # the faults made a difference somewhere


def test_the_direct_agent_meets_spoiled_work_in_a_plan_that_names_a_missing_step():
    from planviz import Fault, Plan, Step, simulate

    plan = Plan(
        "g",
        [
            Step("S1", "a", expected_evidence="e", produces="x", duration=1),
            Step(
                "S2",
                "b",
                expected_evidence="e",
                requires="x",
                depends_on=["S1", "GONE"],
                duration=1,
            ),
        ],
    )
    # no validation: it just runs
    run = simulate(plan, faults=[Fault("S1", "side_effect")], strategy="direct")
    assert run.outcome == "step_failed" and "S2" in run.events[-1].message
