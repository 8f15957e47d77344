"""campaign and ablation: success rates with Wilson intervals, metric means with intervals, one answer per seed
whatever runs the simulations."""

from __future__ import annotations

import concurrent.futures
import json

import pytest

from planviz import (
    Campaign,
    Estimate,
    FaultModel,
    Plan,
    PlanvizTypeError,
    SimulationError,
    Step,
    ablation,
    campaign,
    compare_strategies,
    examples,
    metrics,
    simulate,
)
from planviz.runs.measures.intervals import wilson

METRICS = (
    "tool_calls",
    "model_calls",
    "time",
    "recovery_distance",
    "replans",
    "precondition_errors",
    "duplicate_steps",
    "critical_path_delay",
)


def patch_plan(name: str = "") -> Plan:
    """A patch whose verification may find a side effect: the planner redoes the patch, the others stop."""
    return Plan(
        "fix the leak",
        [
            Step(
                "S1",
                "locate the leak",
                expected_evidence="file and line",
                produces=["located"],
                duration=2,
            ),
            Step(
                "S2",
                "patch it",
                expected_evidence="a diff",
                kind="patch",
                depends_on=["S1"],
                requires=["located"],
                produces=["patched"],
                duration=3,
            ),
            Step(
                "S3",
                "run the tests",
                expected_evidence="tests pass",
                kind="verify",
                depends_on=["S2"],
                requires=["patched"],
                produces=["verified"],
                duration=4,
            ),
        ],
        name=name,
    )


@pytest.fixture(scope="module")
def plans():
    return [examples.load("cache_isolation"), examples.load("parser_fix"), patch_plan()]


MODEL = FaultModel({"transient": 0.1, "side_effect": 0.1, "withdraw": 0.05}, seed=11)


def test_the_success_interval_holds_the_estimate_and_narrows_with_samples(plans):
    small = campaign(plans, MODEL, samples=10)
    big = campaign(plans, MODEL, samples=120)
    for a, b in zip(small.rows, big.rows):
        for row in (a, b):
            lo, hi = row.success_interval
            assert lo <= row.success_rate <= hi
            assert (lo, hi) == wilson(row.successes, row.runs)
            for name in METRICS:
                e = getattr(row, name)
                if e.low is not None:
                    assert e.low <= e.mean <= e.high
        assert (
            b.success_interval[1] - b.success_interval[0]
            < a.success_interval[1] - a.success_interval[0]
        )
        assert b.time.high - b.time.low < a.time.high - a.time.low


def test_rows_count_every_run_and_average_its_metrics(plans):
    """The figures are the metrics of the runs the samples describe, recomputed here one by one."""
    result = campaign(plans, MODEL, samples=6)
    for strategy in ("direct", "workflow", "planner"):
        runs = [
            simulate(p, faults=MODEL.sample(p, j), strategy=strategy)
            for p in plans
            for j in range(6)
        ]
        figures = [metrics(r) for r in runs]
        row = result.row(strategy)
        assert row.runs == len(runs) and row.successes == sum(m.success for m in figures)
        for name in METRICS:
            values = [getattr(m, name) for m in figures if getattr(m, name) is not None]
            assert getattr(row, name).n == len(values)
            assert getattr(row, name).mean == pytest.approx(
                sum(values) / len(values) if values else None
            )


def test_the_direct_agent_redoes_spoiled_work_too_and_pays_for_it_in_calls():
    result = campaign(
        [patch_plan()],
        FaultModel({"side_effect": 0.25}, seed=5),
        samples=200,
        strategies=["direct", "planner"],
    )
    direct, planner = result.row("direct"), result.row("planner")
    # both redo the patch a side effect spoiled (same cap: max_replans redos a run); neither has an edge there
    assert abs(direct.success_rate - planner.success_rate) < 0.05 and direct.success_rate > 0.9
    assert direct.duplicate_steps.mean > 0 and direct.model_calls.mean > planner.model_calls.mean


def test_one_seed_one_result_across_runs_and_executors(plans):
    first = campaign(plans, MODEL, samples=60, per_plan=True)
    assert campaign(plans, MODEL, samples=60, per_plan=True) == first
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert campaign(plans, MODEL, samples=60, per_plan=True, executor=pool) == first
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        assert campaign(plans, MODEL, samples=60, per_plan=True, executor=pool) == first


def test_samples_do_not_depend_on_the_order_of_the_work(plans):
    forward = [MODEL.sample(p, j) for p in plans for j in range(30)]
    backward = [MODEL.sample(p, j) for p in reversed(plans) for j in reversed(range(30))]
    assert forward == [x for x in reversed(backward)]
    per_plan = campaign(plans, MODEL, samples=20, per_plan=True)
    swapped = campaign(list(reversed(plans)), MODEL, samples=20, per_plan=True)
    assert per_plan.row("planner", 0).successes == swapped.row("planner", 2).successes
    assert FaultModel(dict(reversed(list(dict(MODEL.rates).items()))), seed=11) == MODEL


def test_a_sampled_fault_carries_an_argument_drawn_from_the_plan():
    plan = examples.load("cache_isolation")
    model = FaultModel(
        {"withdraw": 0.5, "missing_evidence": 0.5, "extra_fact": 0.5}, times=2, seed=3
    )
    faults = [f for j in range(20) for f in model.sample(plan, j)]
    assert {f.kind for f in faults} == {"withdraw", "missing_evidence", "extra_fact"}
    for f in faults:
        step = plan.step(f.step)
        assert f.times == 2
        if f.kind == "withdraw":
            assert f.fact in step.requires
        elif f.kind == "missing_evidence":
            assert f.fact in step.produces
        else:
            assert f.fact.removeprefix("not ") in step.requires
    assert all(
        f.step in {s.id for s in plan.steps if s.requires}
        for f in faults
        if f.kind != "missing_evidence"
    )


def test_different_seeds_draw_different_faults():
    plan = examples.load("cache_isolation")
    draws = {tuple(FaultModel({"transient": 0.3}, seed=s).sample(plan, 0)) for s in range(20)}
    assert len(draws) > 3


def test_no_fault_at_all_is_a_campaign_that_always_succeeds_with_one_plan():
    result = campaign([examples.load("cache_isolation")], samples=3)
    assert [(r.strategy, r.success_rate) for r in result.rows] == [
        ("direct", 1.0),
        ("workflow", 1.0),
        ("planner", 1.0),
    ]
    assert result.row("planner").time == Estimate(29.0, 29.0, 29.0, 3)


def test_the_ablation_removes_one_mechanism_at_a_time_then_climbs_the_ladder(plans):
    result = ablation(plans, MODEL, samples=30)
    full = campaign(plans, MODEL, samples=30)
    names = [r.strategy for r in result.rows]
    assert names == [
        "planner",
        "-validation_gate",
        "-premises_stop",
        "-scoped_recovery",
        "-replanning",
        "-replan_cap",
        "replan_cap=0",
        "replan_cap=1",
        "replan_cap=3",
        "-far_expansion",
        "-evidence_check",
        "direct",
        "+explicit_plan",
        "+evidence_check",
        "+validation_gate",
        "+premises_stop",
        "+replanning",
        "+scoped_recovery",
        "+far_expansion",
        "+replan_cap",
    ]
    assert result.kind == "ablation"
    same = lambda a, b: a.to_record() | {"strategy": "x"} == b.to_record() | {"strategy": "x"}  # noqa: E731
    assert same(result.row("planner"), full.row("planner")) and same(
        result.row("+replan_cap"), full.row("planner")
    )
    assert same(result.row("direct"), full.row("direct"))
    # the workflow's rules, but the planning call charged to the explicit plan: one model call a run
    wf, ladder_wf = full.row("workflow"), result.row("+evidence_check")
    assert ladder_wf.successes == wf.successes and ladder_wf.tool_calls == wf.tool_calls
    assert (wf.model_calls.mean, ladder_wf.model_calls.mean) == (0.0, 1.0)


def test_each_ablation_row_differs_from_the_full_planner_in_one_switch():
    from planviz.runs.evaluation.mechanisms import ABLATION, LADDER

    full = ABLATION[0].switches()
    assert ABLATION[0].name == "planner" and all(full[m] for m in full if m != "max_replans")
    for row in ABLATION[1:]:
        changed = [k for k, v in row.switches().items() if v != full[k]]
        assert len(changed) == 1, (row.name, changed)
        assert row.name in (f"-{changed[0]}", f"replan_cap={row.max_replans}")
    for before, after in zip(LADDER, LADDER[1:]):  # the ladder: one more switch each rung
        assert (
            len(after.mechanisms - before.mechanisms) == 1 and before.mechanisms < after.mechanisms
        )
    assert LADDER[-1].switches() == full


def test_the_validation_gate_stops_a_refused_plan_before_any_work():
    refused = examples.load("release_no_credentials")
    result = ablation([refused], samples=2)
    assert result.row("-validation_gate").tool_calls.mean > 0
    assert result.row("planner").tool_calls.mean == 0 and result.row("planner").runs == 2
    assert result.row("planner").correct_stops == 2


def test_without_the_premise_stop_the_planner_runs_past_a_falsified_premise():
    plan = examples.load("past_due_account")
    model = FaultModel({"premise_false": 1.0})
    result = ablation([plan], model, samples=1)
    first = simulate(plan, faults=model.sample(plan, 0))
    assert first.outcome == "premise_failed" and result.row("planner").correct_stops == 1
    row = result.row("-premises_stop")
    assert row.tool_calls.mean > result.row("planner").tool_calls.mean and row.silent_failures == 1


def test_the_replan_cap_rows_stop_at_their_cap():
    plan = patch_plan()
    model = FaultModel({"side_effect": 1.0}, times=5)
    result = ablation([plan], model, samples=1, ladder=False)
    replans = {r.strategy: r.replans.mean for r in result.rows}
    assert (
        replans["replan_cap=0"],
        replans["replan_cap=1"],
        replans["planner"],
        replans["replan_cap=3"],
    ) == (0.0, 1.0, 2.0, 3.0)


def test_without_scoped_recovery_every_started_step_is_redone():
    plan = examples.load("cache_isolation")
    from planviz import Fault
    from planviz.runs.evaluation.mechanisms import ABLATION, run_variant

    row = next(r for r in ABLATION if r.name == "-scoped_recovery")
    run = run_variant(plan, (Fault("S4", "side_effect"),), row)
    inv = next(e for e in run.events if e.kind == "invalidate")
    assert inv.voided == set(plan.ids) and metrics(run).work_voided == 4  # S0..S3 were done
    assert run.outcome == "plan_complete" and metrics(run).tool_calls == 10  # all five steps twice


def test_json_round_trips_and_records_flatten(plans):
    result = campaign(
        plans,
        FaultModel({"tool_error": 0.05}, times={"tool_error": 2}, seed=2),
        samples=8,
        per_plan=True,
    )
    assert Campaign.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    record = result.to_records()[0]
    assert {
        "strategy",
        "success_rate",
        "success_low",
        "success_high",
        "time",
        "time_low",
        "time_high",
    } <= set(record)
    assert len(result.rows) == 3 + 3 * len(plans)
    assert "success" in result.to_text() and "<table" in result._repr_html_()


def test_to_frame_is_a_pandas_frame_of_the_records(plans):
    pd = pytest.importorskip("pandas")
    frame = campaign(plans[:1], samples=2).to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame["strategy"]) == [
        "direct",
        "workflow",
        "planner",
    ]


def test_to_frame_without_pandas_says_so(plans, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with pytest.raises(SimulationError, match="needs pandas"):
        campaign(plans[:1], samples=1).to_frame()


def test_progress_reaches_the_total(plans):
    seen = []
    campaign(
        plans, MODEL, samples=70, progress=lambda what, done, total: seen.append((done, total))
    )
    assert seen[-1] == (3 * 70 * 3, 3 * 70 * 3) and [d for d, _ in seen] == sorted(
        d for d, _ in seen
    )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: campaign(examples.load("cache_isolation")),
            PlanvizTypeError,
            r"one Plan; write campaign\(\[plan\]",
        ),
        (
            lambda: campaign(["plan.yaml"]),
            PlanvizTypeError,
            r"campaign\(plans=\.\.\.\) expects a planviz Plan, got str 'plan.yaml'; load it first",
        ),
        (lambda: campaign([]), SimulationError, "no plans to run"),
        (
            lambda: campaign([patch_plan()], samples=0),
            SimulationError,
            "samples must be >= 1, got 0",
        ),
        (
            lambda: campaign([patch_plan()], faults={"transient": 0.1}),
            PlanvizTypeError,
            "a planviz FaultModel",
        ),
        (
            lambda: campaign([patch_plan()], strategies="planner"),
            PlanvizTypeError,
            r"write strategies=\['planner'\]",
        ),
        (
            lambda: campaign([patch_plan()], strategies=["plan"]),
            SimulationError,
            "unknown strategy 'plan'",
        ),
        (
            lambda: campaign([patch_plan()], executor=object()),
            PlanvizTypeError,
            "ProcessPoolExecutor",
        ),
        (lambda: FaultModel({"explode": 0.1}), SimulationError, "unknown fault kind 'explode'"),
        (
            lambda: FaultModel({"transient": 1.5}),
            SimulationError,
            r"probability in \[0, 1\], got 1.5",
        ),
        (lambda: FaultModel({"transient": "0.1"}), PlanvizTypeError, "expects probabilities"),
        (
            lambda: FaultModel(["transient"]),
            PlanvizTypeError,
            "a mapping of fault kind to probability",
        ),
        (
            lambda: FaultModel({"transient": 0.1}, times=0),
            SimulationError,
            "times must be >= 1, got 0",
        ),
        (
            lambda: FaultModel({"transient": 0.1}, times={"withdraw": 2}),
            SimulationError,
            "'withdraw', which has no rate",
        ),
        (
            lambda: FaultModel({"transient": 0.1}, seed="1"),
            PlanvizTypeError,
            r"seed=\.\.\.\) expects an integer",
        ),
        (lambda: Campaign.from_dict({"rows": []}), SimulationError, "not a campaign"),
    ],
)
def test_bad_arguments_say_what_to_do(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_compare_and_a_one_sample_campaign_agree_on_the_same_faults():
    plan = patch_plan()
    model = FaultModel({"side_effect": 0.5}, seed=9)
    table = compare_strategies(plan, model.sample(plan, 0))
    result = campaign([plan], model, samples=1)
    for row in table.rows:
        assert result.row(row.strategy).successes == int(row.metrics.success)
        assert result.row(row.strategy).tool_calls.mean == row.metrics.tool_calls
