"""A changed goal is global: every step void, completed ones re-checked, a new version for the new goal."""

from __future__ import annotations

import pytest

from planviz import (
    Contract,
    Fault,
    Plan,
    SimulationError,
    Step,
    attribution,
    failure_scope,
    metrics,
    simulate,
)
from planviz.runs.engine.goalchange import recheck_verdict

MIGRATION = Contract(
    required=["reproduce"],
    obtainable_facts=["leak_reproduced", "tenant_caches_split", "tenants_migrated"],
)


def migrate(goal, contract, state, plan):
    """A planner for the new goal: keeps the reproduction, then splits the cache and migrates."""
    split = Step(
        "M1",
        "Split the cache per tenant",
        kind="patch",
        duration=12,
        depends_on="S0",
        requires="leak_reproduced",
        produces="tenant_caches_split",
        expected_evidence="one cache per tenant",
        resources="src/cache",
        check="each tenant has its own cache",
        rollback="git revert",
    )
    move = Step(
        "M2",
        "Migrate every tenant's entries",
        kind="verify",
        duration=9,
        depends_on="M1",
        requires="tenant_caches_split",
        produces="tenants_migrated",
        expected_evidence="no shared entries",
    )
    return Plan(goal, [plan.step("S0"), split, move], premises=plan.premises)


def test_without_a_new_goal_the_run_stops_and_every_started_step_is_void(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S3", "goal_change")])
    assert run.outcome == "goal_changed" and run.events[-1].step == "S3"
    last = run.frame(-1)
    assert dict(last.statuses) == {
        "S0": "invalidated",
        "S1": "invalidated",
        "S2": "invalidated",
        "S3": "invalidated",
        "S4": "pending",
    }
    # S4 never started
    assert set(last.voided) == {"S0", "S1", "S2", "S3"} and set(last.not_run) == {"S4"}
    inv = next(e for e in run.events if e.kind == "invalidate")
    assert inv.voided == set(cache_plan.ids) - {"S4"} and inv.kept == set()
    assert "nothing continues under the old goal" in run.events[-1].message
    assert attribution(run).party == "environment"


def test_a_new_goal_voids_started_work_rechecks_completed_work_and_replans(cache_plan):
    fault = Fault("S3", "goal_change", goal="every tenant has its own cache", contract=MIGRATION)
    run = simulate(cache_plan, faults=[fault], propose=migrate)
    kinds = [e.kind for e in run.events]
    inv = kinds.index("invalidate")
    assert kinds[inv : inv + 5] == ["invalidate", "recheck", "recheck", "recheck", "replan"]
    # S4 never started: not voided
    assert run.events[inv].voided == {"S3"} and run.events[inv].kept == set()
    rechecks = {e.step: ("kept" if e.kept else "voided") for e in run.events if e.kind == "recheck"}
    assert rechecks == {"S0": "kept", "S1": "voided", "S2": "voided"}
    assert "wants none of what it established" in next(
        e.message for e in run.events if e.kind == "recheck" and e.step == "S1"
    )
    frame = run.frame(inv + 3)
    assert (
        frame.kept == {"S0"}
        and frame.voided == {"S1", "S2", "S3"}
        and frame.statuses["S4"] == "pending"
    )
    assert "key_builder_located" not in frame.facts and "leak_reproduced" in frame.facts
    v2 = run.plan
    assert (v2.version, v2.goal, v2.ids) == (
        2,
        "every tenant has its own cache",
        ("S0", "M1", "M2"),
    )
    assert run.outcome == "plan_complete" and [e.step for e in run.events if e.kind == "start"][
        -2:
    ] == ["M1", "M2"]
    m = metrics(run)
    # S1 and S2 (done) are voided: S3 goes one hop back to re-run from S1 and S2
    assert (m.replans, m.recovery_distance, m.work_voided, m.model_calls) == (1, 1, 2, 2)


def test_the_default_replanner_reissues_the_voided_work_for_the_new_goal(cache_plan):
    run = simulate(
        cache_plan, faults=[Fault("S2", "goal_change", goal="the cache also isolates sessions")]
    )
    assert run.outcome == "plan_complete"
    assert run.plan.goal == "the cache also isolates sessions" and run.plan.version == 2
    # the only completed step at t=8
    assert [e.step for e in run.events if e.kind == "recheck"] == ["S0"]
    assert run.plan.ids == ("S0", "S1.v2", "S2.v2", "S3.v2", "S4.v2")


DOCUMENT = Contract(
    required=["reproduce", "diagnose"],
    obtainable_facts=["key_builder_located", "isolation_test_written"],
)


def test_a_new_contract_plans_for_the_new_goal_keeping_what_serves_it(cache_plan):
    """Issue 23.8: the new contract needs only the reproduction and the diagnosis, both done at t=13."""
    run = simulate(
        cache_plan,
        faults=[Fault("S3", "goal_change", goal="Document the leak only", contract=DOCUMENT)],
    )
    assert run.outcome == "plan_complete", run.events[-1].message
    assert (run.plan.goal, run.plan.ids) == ("Document the leak only", ("S0", "S1", "S2"))
    assert set(run.plan.invalidated) == {"S3", "S4"}  # dropped: the new contract does not need them
    assert [e.step for e in run.events if e.kind == "start"] == ["S0", "S1", "S2", "S3"]
    # S1 and S2 require leak_reproduced, which DOCUMENT no longer lists: kept work is not refused for it
    assert "leak_reproduced" not in DOCUMENT.obtainable_facts and attribution(run).party is None


def test_a_new_contract_that_needs_less_drops_the_work_it_does_not_need(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S3", "goal_change", contract=MIGRATION)])
    assert run.outcome == "plan_complete" and run.plan.ids == ("S0",)


def test_a_new_contract_the_old_route_cannot_meet_refuses_the_revision(cache_plan):
    run = simulate(
        cache_plan, faults=[Fault("S3", "goal_change", contract=Contract(required=["migrate"]))]
    )
    assert run.outcome == "refused" and run.events[-1].category == "missing_required"
    assert attribution(run).party == "planner"


def test_recheck_is_closed_downstream():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
            Step("C", "c", expected_evidence="e", depends_on="B", requires="y", produces="z"),
        ],
    )
    run = simulate(
        plan, faults=[Fault("C", "goal_change", contract=Contract(obtainable_facts=["y", "z"]))]
    )
    verdicts = [
        (e.step, bool(e.kept), e.message.split(": ", 1)[1])
        for e in run.events
        if e.kind == "recheck"
    ]
    assert verdicts[0][:2] == ("A", False) and verdicts[1][:2] == ("B", False)
    assert verdicts[1][2] == "voided: it builds on 'A', voided"


@pytest.mark.parametrize(
    "step, contract, kept, why",
    [
        (Step("S", "s", produces="x"), None, True, "no contract"),
        (Step("S", "s", produces="x"), Contract(), True, "still wants"),
        (
            Step("S", "s", produces="x", kind="patch"),
            Contract(forbidden=["patch"]),
            False,
            "forbids this step",
        ),
        (
            Step("S", "s", produces="x"),
            Contract(forbidden_states=["x"], obtainable_facts=["x"]),
            False,
            "forbids",
        ),
        (Step("S", "s", produces="x"), Contract(obtainable_facts=["y"]), False, "wants none"),
        (
            Step("S", "s", produces="x"),
            Contract(obtainable_facts=["y"], required=["S"]),
            True,
            "still wants",
        ),
        (Step("S", "s", produces="x"), Contract(given_facts=["x"]), True, "still wants"),
    ],
)
def test_recheck_verdict(step, contract, kept, why):
    keep, message = recheck_verdict(step, contract)
    assert keep is kept and why in message


def test_goal_change_scope_voids_every_step_and_keeps_none(cache_plan):
    scope = failure_scope(cache_plan, "S3", "goal_change", state=({"S0", "S1", "S2"}, set()))
    assert scope.voided == set(cache_plan.ids) and scope.kept == set() and scope.action == "replan"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"kind": "transient", "goal": "g"}, "only a goal_change fault carries a new goal"),
        ({"kind": "goal_change", "goal": " "}, "goal must be a non-empty string"),
        (
            {"kind": "goal_change", "contract": {"required": ["x"]}},
            "contract must be a planviz Contract",
        ),
    ],
)
def test_goal_change_fault_arguments(kwargs, match):
    with pytest.raises(SimulationError, match=match):
        Fault("S1", **kwargs)
