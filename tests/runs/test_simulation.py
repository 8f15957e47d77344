"""simulate: simulated runs, faults, scoped recovery, replanning, frames."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import (
    Contract,
    ExecutionState,
    Fault,
    Observation,
    Plan,
    PlanvizTypeError,
    SimulationError,
    Step,
    ToolSpec,
    changed_completed,
    critical_path,
    metrics,
    reachable,
    redundant_work,
    simulate,
)
from planviz.runs.engine.simulation import STRATEGIES, idempotent
from planviz.runs.events import OUTCOMES
from tests.strategies import plans as random_plans, plans_and_faults as random_plans_and_faults

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def starts(run) -> Counter:
    return Counter(e.step for e in run.events if e.kind == "start")


def final(run) -> dict[str, str]:
    return dict(run.frame(-1).statuses)


def kinds(run) -> list[str]:
    return [e.kind for e in run.events]


# --------------------------------------------------------------------------- faults


@pytest.mark.parametrize(
    "text, expected",
    [
        ("S4:side_effect", Fault("S4", "side_effect")),
        ("S3:withdraw:key_builder_located", Fault("S3", "withdraw", "key_builder_located")),
        ("S1:transientx3", Fault("S1", "transient", times=3)),
        ("S3:withdraw:a:b:x2", Fault("S3", "withdraw", "a:b", 2)),
        ("S2:extra_fact:not leak_reproduced", Fault("S2", "extra_fact", "not leak_reproduced")),
        (" S4 : side_effect", Fault("S4", "side_effect")),
        # a fact that looks like a repeat count
        (
            "S3:withdraw:a:x2:x1",
            Fault("S3", "withdraw", "a:x2"),
        ),
    ],
)
def test_fault_parse(text, expected):
    assert Fault.parse(text) == expected
    assert Fault.parse(str(expected)) == expected


@pytest.mark.parametrize(
    "text, match",
    [
        ("S4", "STEP:KIND"),
        ("S4:explode", "unknown fault kind 'explode'.*side_effect"),
        ("S4:extra_fact", "needs the fact observed"),
        ("S1:transientx0", "times must be an integer >= 1"),
    ],
)
def test_fault_parse_rejects(text, match):
    with pytest.raises(SimulationError, match=match):
        Fault.parse(text)


# --------------------------------------------------------------------------- the worked example, planner

ALL_DONE = {s: "done" for s in ("S0", "S1", "S2", "S3", "S4")}

# fault -> (outcome, final statuses, plan ids at the end, number of starts per original step, end time)
PLANNER_TABLE = [
    ((), "plan_complete", ALL_DONE, 29.0),
    (("S1:transient",), "plan_complete", ALL_DONE, 37.0),
    (
        ("S1:transientx3",),
        "step_failed",
        {"S0": "done", "S1": "failed", "S2": "done", "S3": "blocked", "S4": "blocked"},
        29.0,
    ),
    (
        ("S3:tool_error",),
        "step_failed",
        {"S0": "done", "S1": "done", "S2": "done", "S3": "failed", "S4": "blocked"},
        19.0,
    ),
    (
        ("S3:withdraw",),
        "plan_complete",
        {"S0": "done", "S2": "done", "S1.v2": "done", "S3.v2": "done", "S4.v2": "done"},
        43.0,
    ),
    (
        ("S4:side_effect",),
        "plan_complete",
        {"S0": "done", "S1": "done", "S2": "done", "S3.v2": "done", "S4.v2": "done"},
        45.0,
    ),
    (
        ("S4:side_effectx3",),
        "replan_limit",
        {"S0": "done", "S1": "done", "S2": "done", "S3.v3": "invalidated", "S4.v3": "invalidated"},
        61.0,
    ),
    (
        ("S1:missing_evidence",),
        "expected_evidence_missing",
        {"S0": "done", "S1": "failed", "S2": "done", "S3": "blocked", "S4": "blocked"},
        13.0,
    ),
    (
        ("S2:goal_change",),
        "goal_changed",  # S3 and S4 never started: not run, never voided
        {
            "S0": "invalidated",
            "S1": "invalidated",
            "S2": "invalidated",
            "S3": "pending",
            "S4": "pending",
        },
        8.0,
    ),
    (
        ("S1:premise_false",),
        "premise_failed",
        {"S0": "done", "S1": "done", "S2": "done", "S3": "ready", "S4": "pending"},
        13.0,
    ),
    (
        ("S2:extra_fact:tests_deleted",),
        "forbidden_state",  # S1 was running when the run stopped: interrupted
        {"S0": "done", "S1": "running", "S2": "done", "S3": "pending", "S4": "pending"},
        8.0,
    ),
    (("S3:extra_fact:cache_warm",), "plan_complete", ALL_DONE, 29.0),
    (
        ("S3:extra_fact:not key_builder_located",),
        "plan_complete",
        {"S0": "done", "S2": "done", "S1.v2": "done", "S3.v2": "done", "S4.v2": "done"},
        43.0,
    ),
]


@pytest.mark.parametrize("faults, outcome, statuses, end", PLANNER_TABLE, ids=lambda v: str(v)[:40])
def test_planner_fault_table(cache_plan, faults, outcome, statuses, end):
    run = simulate(cache_plan, faults=[Fault.parse(f) for f in faults])
    assert run.outcome == outcome
    assert final(run) == statuses
    assert run.events[-1].time == end
    assert run.events[-1].kind == "stop" and run.events[-1].outcome == outcome
    assert starts(run)["S0"] == 1  # no fault here ever voids the reproduction


@pytest.mark.parametrize(
    "strategy, outcome, statuses",
    [
        ("planner", "refused", {"A": "blocked", "B": "blocked", "C": "ready"}),
        ("workflow", "blocked", {"A": "blocked", "B": "blocked", "C": "done"}),
        # A is never called: no input
        (
            "direct",
            "step_failed",
            {"A": "blocked", "B": "blocked", "C": "done"},
        ),
    ],
)
def test_a_dependency_on_a_missing_step_is_refused_or_blocked_not_a_crash(
    strategy, outcome, statuses
):
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on="Z", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x"),
            Step("C", "c", expected_evidence="e", produces="y"),
        ],
    )
    run = simulate(plan, strategy=strategy)
    assert (run.outcome, final(run)) == (outcome, statuses)


def test_direct_says_which_input_each_step_it_could_not_call_lacks(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S1", "missing_evidence")], strategy="direct")
    assert run.events[-1].message == (
        "step_failed: steps not done: S3 (needs the fact 'key_builder_located'), "
        "S4 (needs the result of 'S3')"
    )


def test_complete_message_names_each_extra_fact_once(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "extra_fact", "cache_warm")])
    done = next(e for e in run.events if e.kind == "complete" and e.step == "S4")
    assert (
        done.message == "'S4' complete: hit_rate_ok, isolation_verified; also observed cache_warm"
    )


def test_side_effect_redoes_the_patch_and_its_verification_only(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    inv = next(e for e in run.events if e.kind == "invalidate")
    assert inv.voided == {"S3", "S4"} and inv.kept == {"S0", "S1", "S2"}
    frame = run.frame(inv.index)
    assert frame.statuses == {
        "S0": "done",
        "S1": "done",
        "S2": "done",
        "S3": "invalidated",
        "S4": "invalidated",
    }
    assert (
        "patch_applied" not in frame.facts
        and {"leak_reproduced", "key_builder_located"} <= frame.facts
    )
    assert starts(run) == Counter(
        {"S0": 1, "S1": 1, "S2": 1, "S3": 1, "S4": 1, "S3.v2": 1, "S4.v2": 1}
    )
    v2 = run.plans[-1]
    assert (v2.version, v2.parent, v2.invalidated) == (2, run.plans[0], ("S3", "S4"))
    assert v2.step("S3.v2").revises == "S3" and v2.step("S4.v2").depends_on == ("S3.v2",)
    assert "side_effect at 'S4'" in v2.trigger
    assert kinds(run).count("replan") == 1


def test_withdrawn_fact_returns_to_its_producer_and_keeps_the_other_branch(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S3", "withdraw", "key_builder_located")])
    fail = next(e for e in run.events if e.kind == "fail")
    assert (fail.step, fail.category) == ("S3", "precondition")
    withdraw = next(e for e in run.events if e.kind == "withdraw")
    assert "key_builder_located" not in run.frame(withdraw.index).facts and withdraw.lost == {
        "key_builder_located"
    }
    inv = next(e for e in run.events if e.kind == "invalidate")
    # S4, in the scope, never started: not voided
    assert inv.voided == {"S1", "S3"} and inv.kept == {
        "S0",
        "S2",
    }
    assert inv.message.endswith("never ran, so nothing to void: S4")
    frame = run.frame(inv.index)
    assert (frame.statuses["S2"], frame.statuses["S1"], frame.statuses["S4"]) == (
        "done",
        "invalidated",
        "pending",
    )
    assert "S4" not in frame.voided
    assert [e.step for e in run.events if e.kind == "start"] == [
        "S0",
        "S1",
        "S2",
        "S3",
        "S1.v2",
        "S3.v2",
        "S4.v2",
    ]
    assert starts(run)["S2"] == 1 and run.outcome == "plan_complete"


def test_transient_fault_retries_without_replanning(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S1", "transient", times=2)])
    assert run.outcome == "plan_complete"
    assert starts(run)["S1"] == 3 and kinds(run).count("retry") == 2
    assert "replan" not in kinds(run) and "invalidate" not in kinds(run) and len(run.plans) == 1
    retry = next(e for e in run.events if e.kind == "retry")
    assert run.frame(retry.index).statuses["S1"] == "ready" and retry.attempt == 2


@pytest.mark.parametrize(
    "max_retries, outcome, s1_starts",
    [(0, "step_failed", 1), (1, "step_failed", 2), (2, "step_failed", 3), (3, "plan_complete", 4)],
)
def test_retries_are_capped_by_the_contract(cache_plan, max_retries, outcome, s1_starts):
    contract = cache_plan.contract.__class__(
        **{**cache_plan.contract.__dict__, "max_retries": max_retries}
    )
    run = simulate(cache_plan, contract, faults=[Fault("S1", "transient", times=3)])
    assert run.outcome == outcome and starts(run)["S1"] == s1_starts
    if outcome == "step_failed":
        tries = "once" if s1_starts == 1 else f"{s1_starts} times"
        assert run.events[-1].message == (
            f"step_failed: 'S1' failed {tries}; retries are capped at max_retries={max_retries}"
        )


def test_a_writing_step_without_rollback_is_not_retried(cache_plan):
    plan = cache_plan.replace(
        steps=[s if s.id != "S3" else replace(s, rollback="") for s in cache_plan.steps]
    )
    assert not idempotent(plan.step("S3")) and idempotent(cache_plan.step("S3"))
    run = simulate(plan, faults=[Fault("S3", "transient")])
    assert run.outcome == "step_failed" and "retry" not in kinds(run)
    assert "not safe to retry" in run.events[-1].message
    assert simulate(cache_plan, faults=[Fault("S3", "transient")]).outcome == "plan_complete"


def test_conflict_records_both_sources_and_overwrites_nothing(cache_plan):
    run = simulate(
        cache_plan,
        faults=[Fault("S3", "extra_fact", "not key_builder_located")],
        strategy="workflow",
    )
    conflict = next(e for e in run.events if e.kind == "conflict")
    c = conflict.conflict
    assert (c.fact, c.source, c.contradicts, c.verified_by) == (
        "not key_builder_located",
        "S3",
        "key_builder_located",
        "S1",
    )
    facts = run.frame(conflict.index).facts
    assert "key_builder_located" in facts and "not key_builder_located" not in facts
    assert run.conflicts == (c,) and run.frame(-1).conflicted == {"S3"}


def test_a_given_fact_withdrawn_blocks_the_route():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", requires="g", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
        ],
    )
    run = simulate(
        plan,
        Contract(given_facts=["g"], obtainable_facts=["x", "y"]),
        faults=[Fault("A", "withdraw")],
    )
    assert run.outcome == "blocked"
    assert final(run) == {"A": "failed", "B": "blocked"}  # B never started: blocked, not voided
    assert not any(e.voided for e in run.events)
    assert "'g'" in run.events[-1].message


def test_refused_before_anything_runs(cache_plan):
    contract = Contract(
        given_facts=["the service uses the level-1 cache"], obtainable_facts=["leak_reproduced"]
    )
    run = simulate(cache_plan, contract)
    assert run.outcome == "refused" and kinds(run) == ["propose", "stop"]
    assert (
        run.events[-1].category == "infeasible_fact"
        and "isolation_test_written" in run.events[-1].message
    )
    assert run.events[-1].message.startswith(
        "refused: the plan is refused before step 1: infeasible_fact (S3): "
    )
    cyclic = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on="B"),
            Step("B", "b", expected_evidence="e", depends_on="A"),
        ],
    )
    assert simulate(cyclic).outcome == "refused"
    assert simulate(cyclic, strategy="workflow").outcome == "blocked"


# --------------------------------------------------------------------------- replanning


def test_replan_limit(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect", times=3)])
    assert run.outcome == "replan_limit" and kinds(run).count("replan") == 2
    assert (
        run.events[-1].message
        == "replan_limit: a revision is needed but the run already made 2 (max_replans=2)"
    )
    assert [p.ids[-2:] for p in run.plans] == [("S3", "S4"), ("S3.v2", "S4.v2"), ("S3.v3", "S4.v3")]
    assert run.plans[2].step("S3.v3").revises == "S3.v2"


@pytest.mark.parametrize(
    "propose",
    [
        lambda goal, contract, state, plan: plan,
        # same steps, reordered
        lambda goal, contract, state, plan: plan.replace(steps=tuple(reversed(plan.steps))),
    ],
)
def test_an_identical_revision_ends_the_run(cache_plan, propose):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")], propose=propose)
    assert run.outcome == "no_new_route" and "replan" not in kinds(run)
    assert run.events[-1].message.startswith(
        "no_new_route: the replanner proposed the same steps as plan v1 "
        "(trigger: side_effect at 'S4': "
    )


def test_a_user_replanner_gets_the_state_and_its_route_runs(cache_plan):
    seen = {}

    def propose(goal, contract, state, plan):
        seen.update(goal=goal, completed=state.completed, facts=state.facts)
        fix = Step(
            "S3b",
            "Patch the key builder and the warm-up path",
            kind="patch",
            duration=4,
            depends_on=["S1", "S2"],
            requires=["key_builder_located", "isolation_test_written"],
            produces=["patch_applied"],
            expected_evidence="a diff",
            rollback="git revert",
            revises="S3",
        )
        verify = Step(
            "S4b",
            "Verify again",
            kind="verify",
            duration=10,
            depends_on=["S3b"],
            requires="patch_applied",
            produces=["isolation_verified", "hit_rate_ok"],
            expected_evidence="both tests pass",
        )
        return Plan(goal, [*plan.steps[:3], fix, verify], premises=plan.premises)

    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")], propose=propose)
    assert run.outcome == "plan_complete" and run.plans[-1].ids == ("S0", "S1", "S2", "S3b", "S4b")
    assert seen["completed"] == {"S0", "S1", "S2"} and "patch_applied" not in seen["facts"]
    v2 = run.plans[-1]
    assert v2.version == 2 and v2.parent is run.plans[0] and v2.invalidated == ("S3", "S4")
    assert run.events[-1].time == 29 + 4 + 10


def test_a_revision_redefining_completed_work_is_refused(cache_plan):
    def propose(goal, contract, state, plan):
        s0 = replace(plan.step("S0"), action="pretend it was reproduced")
        return plan.replace(steps=(s0, *plan.steps[1:3]))

    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")], propose=propose)
    assert run.outcome == "refused" and "S0" in run.events[-1].message


def test_redundant_work_and_changed_completed(cache_plan):
    state = ExecutionState(frozenset({"S0"}), frozenset({"leak_reproduced", "key_builder_located"}))
    assert redundant_work(state, cache_plan) == ("S1",)
    other = cache_plan.replace(
        steps=(
            cache_plan.steps[0].__class__("S0", "guess", expected_evidence="e"),
            *cache_plan.steps[1:],
        )
    )
    assert changed_completed(cache_plan, other, {"S0"}) == ("S0",)
    assert changed_completed(cache_plan, other, {"S1"}) == ()


# --------------------------------------------------------------------------- strategies

STRATEGY_TABLE = [
    (
        "workflow",
        "S4:side_effect",
        "step_failed",
        {"S0": "done", "S1": "done", "S2": "done", "S3": "done", "S4": "failed"},
    ),
    (
        "workflow",
        "S3:withdraw",
        "step_failed",  # S4 never started: blocked by S3's failure, not voided
        {"S0": "done", "S1": "done", "S2": "done", "S3": "failed", "S4": "blocked"},
    ),
    ("workflow", "S1:transient", "plan_complete", ALL_DONE),
    ("workflow", "S1:premise_false", "plan_complete", ALL_DONE),
    (
        "workflow",
        "S1:missing_evidence",
        "expected_evidence_missing",
        {"S0": "done", "S1": "failed", "S2": "done", "S3": "blocked", "S4": "blocked"},
    ),
    ("direct", "S1:transient", "plan_complete", ALL_DONE),  # retried, like the others
    (
        "direct",
        "S1:missing_evidence",
        "step_failed",  # S3 lacks S1's fact: never called, nor S4
        {"S0": "done", "S1": "done", "S2": "done", "S3": "blocked", "S4": "blocked"},
    ),
    # S3's result shows S1's fact gone: S1, S3 redone
    (
        "direct",
        "S3:withdraw",
        "plan_complete",
        ALL_DONE,
    ),
]


@pytest.mark.parametrize("strategy, fault, outcome, statuses", STRATEGY_TABLE)
def test_strategy_table(cache_plan, strategy, fault, outcome, statuses):
    run = simulate(cache_plan, faults=[Fault.parse(fault)], strategy=strategy)
    assert (run.strategy, run.outcome, final(run)) == (strategy, outcome, statuses)
    assert "replan" not in kinds(run)


def test_direct_calls_what_its_inputs_allow_whatever_the_file_order(cache_plan):
    shuffled = cache_plan.replace(steps=[cache_plan.steps[i] for i in (0, 3, 1, 2, 4)])
    run = simulate(shuffled, strategy="direct")
    # S3 is listed second but needs S1's and S2's results: the agent calls it when it holds them, serially
    assert [e.step for e in run.events if e.kind == "start"] == ["S0", "S1", "S2", "S3", "S4"]
    assert run.outcome == "plan_complete" and run.events[-1].time == 32.0
    assert metrics(run).precondition_errors == 0
    assert simulate(shuffled, strategy="workflow").outcome == "plan_complete"


def test_workers_limit_starts_the_lower_id_first(cache_plan):
    run = simulate(cache_plan, workers=1)
    assert [e.step for e in run.events if e.kind == "start"] == ["S0", "S1", "S2", "S3", "S4"]
    assert (
        max(sum(v == "running" for v in run.frame(i).statuses.values()) for i in range(len(run)))
        == 1
    )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"strategy": "yolo"}, SimulationError, "unknown strategy 'yolo'.*planner"),
        ({"workers": 0}, SimulationError, "workers must be"),
        (
            {"faults": [Fault("S9", "transient")]},
            SimulationError,
            "no step 'S9' in the plan; its steps are 'S0', 'S1'",
        ),
        ({"faults": [Fault("S0", "withdraw")]}, SimulationError, "requires no fact"),
        (
            {"workers": "2"},
            PlanvizTypeError,
            r"simulate\(workers=\.\.\.\) expects None \(unlimited\) or an integer >= 1, got str '2'",
        ),
        (
            {"faults": ["S4:side_effect"]},
            PlanvizTypeError,
            r"expects Fault values, got str 'S4:side_effect' at faults\[0\]",
        ),
        (
            {"faults": "S4:side_effect"},
            PlanvizTypeError,
            r"simulate\(faults=\.\.\.\) expects a list of Fault values, got str 'S4:side_effect'; "
            r"write faults=\[Fault.parse\('S4:side_effect'\)\]",
        ),
        (
            {"faults": [Fault("S1", "premise_false", "nope")]},
            SimulationError,
            "'nope' is not a premise.*level-1 cache",
        ),
        (
            {"faults": [Fault("S1", "missing_evidence", "nope")]},
            SimulationError,
            "'S1' does not produce 'nope'; it produces 'key_builder_located'",
        ),
    ],
)
def test_bad_arguments(cache_plan, kwargs, error, match):
    with pytest.raises(error, match=match):
        simulate(cache_plan, **kwargs)


def test_observation_normalises_facts():
    obs = Observation(True, "x", ["y"])
    assert obs.facts == {"x"} and obs.withdrawn == {"y"} and obs.kind == "ok"


# --------------------------------------------------------------------------- properties


def plans():
    return random_plans(kinds=True, approvals=True)


def plans_and_faults():
    return random_plans_and_faults(plans(), goals=True)


def _check_frames(run):
    assert [e.index for e in run.events] == list(range(len(run.events)))
    assert run.events[0].kind == "propose" and run.events[-1].kind == "stop"
    assert run.outcome in OUTCOMES and run.outcome == run.state.outcome
    times = [e.time for e in run.events]
    assert times == sorted(times)
    for i, event in enumerate(run.events):
        e = run.frame(i)
        plan = next(p for p in run.plans if p.version == e.plan_version)
        assert set(e.statuses) == set(plan.ids)
        assert e.ready == {s for s, v in e.statuses.items() if v == "ready"}
        # blocked = remaining steps the analysis says can no longer be reached
        if event.kind != "stop":
            done = {s for s, v in e.statuses.items() if v == "done"}
            reach = reachable(plan, done, e.facts).steps
            rest = {s for s, v in e.statuses.items() if v in ("pending", "ready", "blocked")}
            assert {s for s in rest if e.statuses[s] == "blocked"} == rest - reach
    assert run.state.completed >= {s for s, v in run.frame(-1).statuses.items() if v == "done"}


@SETTINGS
@given(plans_and_faults(), st.sampled_from(["workflow", "planner"]), st.sampled_from([None, 1, 2]))
def test_no_step_starts_unready(pf, strategy, workers):
    plan, faults = pf
    run = simulate(plan, faults=faults, workers=workers, strategy=strategy)
    _check_frames(run)
    for i, e in enumerate(run.events[1:], start=1):
        before = run.frame(i - 1)
        if e.kind == "start":
            assert e.step in before.ready, (e.step, before.statuses)
            step = next(p for p in run.plans if p.version == e.plan_version).step(e.step)
            assert set(step.requires) <= before.facts
        if workers is not None:
            assert sum(v == "running" for v in run.frame(i).statuses.values()) <= workers
    assert sum(e.kind == "replan" for e in run.events) <= Contract().max_replans


@SETTINGS
@given(plans_and_faults(), st.sampled_from(STRATEGIES), st.sampled_from([None, 1, 3]))
def test_same_inputs_same_run(pf, strategy, workers):
    plan, faults = pf
    first = simulate(plan, faults=faults, workers=workers, strategy=strategy)
    _check_frames(first)
    assert simulate(plan, faults=faults, workers=workers, strategy=strategy) == first


@SETTINGS
@given(plans(), st.sampled_from(["workflow", "planner"]))
def test_without_faults_the_run_ends_at_the_makespan_or_the_serial_time(plan, strategy):
    schedule = critical_path(plan)
    run = simulate(plan, strategy=strategy)
    assert run.outcome == "plan_complete" and run.events[-1].time == schedule.makespan
    assert simulate(plan, workers=1, strategy=strategy).events[-1].time == schedule.serial_time
    direct = simulate(plan, strategy="direct")
    called = sum(plan.step(e.step).duration for e in direct.events if e.kind == "start")
    assert direct.events[-1].time == called <= schedule.serial_time
    assert called == schedule.serial_time or direct.outcome == "step_failed"
    assert direct.frame(-1).statuses == run.frame(-1).statuses or direct.outcome == "step_failed"


# --------------------------------------------------------------------------- command line


def test_cli_simulate(tmp_path, capsys):
    import json

    from planviz import load_trace
    from planviz.examples import path
    from planviz.frontends.cli.commands import main

    trace = tmp_path / "run.jsonl"
    code = main(
        [
            "simulate",
            str(path("cache_isolation")),
            "--fault",
            "S4:side_effect",
            "--json",
            "--trace",
            str(trace),
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["outcome"] == "plan_complete" and out["voided"] == ["S3", "S4"]
    assert out["metrics"]["replans"] == 1 and out["metrics"]["time"] == 45.0
    assert load_trace(trace).plans[-1].ids == ("S0", "S1", "S2", "S3.v2", "S4.v2")
    code = main(
        [
            "simulate",
            str(path("cache_isolation")),
            "--fault",
            "S3:withdraw:key_builder_located",
            "--strategy",
            "workflow",
        ]
    )
    text = capsys.readouterr().out
    # S4 never started (S3 failed first): nothing was voided; S3 ran as a valid step and failed
    # (executed: 4 of 5)
    assert (
        code == 1
        and "outcome: step_failed" in text
        and "voided: (none)" in text
        and "executability        0.80" in text
    )
    assert main(["simulate", str(path("cache_isolation")), "--fault", "S4:explode"]) == 2
    assert "unknown fault kind 'explode'" in capsys.readouterr().err


# --------------------------------------------------------------------------- the rules a run obeys


def _overlaps(run) -> list[tuple[str, str, str, int]]:
    """(resource, a, b, event index) for every frame where two running steps hold one resource."""
    out = []
    for i, e in enumerate(run.events):
        plan = next(p for p in run.plans if p.version == e.plan_version)
        running = sorted(s for s, v in run.frame(i).statuses.items() if v == "running")
        for a_i, a in enumerate(running):
            for b in running[a_i + 1 :]:
                shared = set(plan.step(a).resources) & set(plan.step(b).resources)
                out += [(r, a, b, i) for r in shared]
    return out


WRITERS = Plan(
    "two writers",
    [
        Step("A", "prepare", expected_evidence="e", produces="a", duration=1),
        Step(
            "W1",
            "write the config",
            expected_evidence="e",
            depends_on="A",
            requires="a",
            produces="w1",
            duration=4,
            resources="config.yaml",
            check="the file parses",
        ),
        Step(
            "W2",
            "write the config again",
            expected_evidence="e",
            depends_on="A",
            requires="a",
            produces="w2",
            duration=2,
            resources=["config.yaml", "log"],
            check="the file parses",
        ),
        Step(
            "R",
            "read",
            expected_evidence="e",
            depends_on="A",
            requires="a",
            produces="r",
            duration=3,
        ),
    ],
)


@pytest.mark.parametrize("strategy", ["planner", "workflow"])
def test_two_writers_of_one_resource_never_run_at_the_same_time(strategy):
    run = simulate(WRITERS, strategy=strategy)
    assert run.outcome == "plan_complete" and not _overlaps(run)
    begin = {e.step: e.time for e in run.events if e.kind == "start"}
    # the lower id first; R is not held back
    assert (begin["W1"], begin["R"], begin["W2"]) == (
        1.0,
        1.0,
        5.0,
    )
    # resources stretch the bound
    assert run.events[-1].time == 7.0 > critical_path(WRITERS).makespan == 5.0


def test_a_step_waiting_for_a_resource_does_not_take_a_worker():
    run = simulate(WRITERS, workers=2)
    begin = {e.step: e.time for e in run.events if e.kind == "start"}
    assert (begin["W1"], begin["R"], begin["W2"]) == (1.0, 1.0, 5.0) and not _overlaps(run)


@st.composite
def plans_with_resources(draw):
    plan = draw(plans())
    pool = ["db", "repo", "cache"]
    steps = [
        # "it holds" names nothing: vacuous on a writer
        replace(
            s,
            resources=draw(st.lists(st.sampled_from(pool), max_size=2, unique=True)),
            check="the resource's new state holds",
        )
        for s in plan.steps
    ]
    return plan.replace(steps=steps)


@SETTINGS
@given(
    plans_with_resources(),
    st.sampled_from(["workflow", "planner"]),
    st.sampled_from([None, 1, 2]),
    st.lists(
        st.tuples(st.integers(0, 7), st.sampled_from(["transient", "side_effect", "tool_error"])),
        max_size=2,
    ),
)
def test_no_two_holders_of_one_resource_ever_overlap(plan, strategy, workers, hits):
    ids = sorted(plan.ids)
    faults = [Fault(ids[i % len(ids)], kind) for i, kind in hits]
    run = simulate(plan, faults=faults, workers=workers, strategy=strategy)
    _check_frames(run)
    assert not _overlaps(run)
    if not faults and workers is None:
        assert (
            run.outcome == "plan_complete" and run.events[-1].time >= critical_path(plan).makespan
        )


GATED = {  # code -> a plan the gate refuses, and its contract
    "not_permitted": (
        Plan(
            "read the report",
            [
                Step("S1", "read", expected_evidence="e", produces="read", tool="read_db"),
                Step(
                    "S2",
                    "fix the typo",
                    expected_evidence="e",
                    depends_on="S1",
                    requires="read",
                    produces="fixed",
                    tool="shell",
                    check="c",
                ),
            ],
        ),
        Contract(tools={"read_db": ToolSpec(), "shell": ToolSpec(permitted=False)}),
    ),
    "outside_intent": (
        Plan(
            "read the report",
            [
                Step("S1", "read", expected_evidence="e", produces="read", tool="read_db"),
                Step(
                    "S2",
                    "write a row",
                    expected_evidence="e",
                    depends_on="S1",
                    requires="read",
                    produces="row",
                    tool="write_db",
                    check="c",
                ),
            ],
        ),
        Contract(tools={"read_db": ToolSpec(), "write_db": ToolSpec(writes=True)}, intent="read"),
    ),
    "high_risk_unguarded": (
        Plan("ship", [Step("S1", "deploy", expected_evidence="e", produces="d", risk="high")]),
        None,
    ),
}


@pytest.mark.parametrize("code", sorted(GATED))
def test_a_refused_plan_stops_before_step_1_naming_the_finding(code):
    plan, contract = GATED[code]
    run = simulate(plan, contract)
    assert kinds(run) == ["propose", "stop"] and run.outcome == "refused"
    stop = run.events[-1]
    assert stop.category == code and f"refused before step 1: {code}" in stop.message


def test_direct_discovers_a_permission_failure_only_at_the_tool():
    plan, contract = GATED["not_permitted"]
    run = simulate(plan, contract, strategy="direct")
    fail = next(e for e in run.events if e.kind == "fail")
    assert [e.step for e in run.events if e.kind == "start"] == ["S1", "S2"]
    assert (fail.step, fail.category) == ("S2", "not_permitted") and "refused" in fail.message
    assert simulate(plan, contract, strategy="workflow").outcome == "step_failed"


@SETTINGS
@given(plans_and_faults(), st.sampled_from(["", "high_risk", "forbidden", "unsupported"]))
def test_a_refused_plan_never_has_a_start_event(pf, defect):
    plan, faults = pf
    first = sorted(plan.ids)[0]
    contract = None
    if defect == "high_risk":
        plan = plan.replace(
            steps=[replace(s, risk="high") if s.id == first else s for s in plan.steps]
        )
    elif defect == "forbidden":
        contract = Contract(forbidden=[first])
    elif defect == "unsupported":
        plan = plan.replace(
            steps=[
                replace(s, requires=(*s.requires, "p")) if s.id == first else s for s in plan.steps
            ]
        )
        contract = Contract(given_facts=["other"])
    faults = [f for f in faults if f.kind != "premise_false"]
    run = simulate(plan, contract, faults=faults)
    if defect:
        assert run.outcome == "refused" and "start" not in kinds(run) and run.events[-1].category
    else:
        assert run.outcome != "refused" and run.events[1].kind in ("start", "approval")


@SETTINGS
@given(plans(), st.data(), st.sampled_from([None, "a new goal"]))
def test_a_goal_change_voids_every_started_step_and_rechecks_every_completed_one(plan, data, goal):
    sid = data.draw(st.sampled_from(sorted(plan.ids)))
    run = simulate(plan, faults=[Fault(sid, "goal_change", goal=goal)])
    fail = next((e for e in run.events if e.kind == "fail" and e.category == "goal_change"), None)
    if fail is None:  # the step never ran (the plan stopped earlier)
        return
    before = run.frame(fail.index)
    done = {s for s, v in before.statuses.items() if v == "done"}
    inv = run.events[fail.index + 1]
    assert inv.kind == "invalidate" and inv.kept == set()
    # only started work is voided
    started = {e.step for e in run.events[: fail.index + 1] if e.kind == "start"}
    if goal is None:
        assert inv.voided == started and run.outcome == "goal_changed"
        last = run.frame(-1)
        assert {s for s, v in last.statuses.items() if v == "invalidated"} == started
        assert set(last.not_run) == {
            s for s, v in last.statuses.items() if s not in started and v in ("pending", "ready")
        }
    else:
        assert inv.voided == started - done
        rechecked = [e.step for e in run.events[fail.index + 2 :] if e.kind == "recheck"]
        assert sorted(rechecked) == sorted(done)
        assert (
            run.plans[1].goal == "a new goal"
            if len(run.plans) > 1
            else run.outcome in ("refused", "replan_limit")
        )
