"""Revision invariants checked by the controller for every revision (issue 40.1, 40.3-40.5 of its Why)."""

from __future__ import annotations

from dataclasses import replace

from planviz import Fault, examples, reissue, simulate


def _left(plan, state):
    return {s.id for s in plan.steps if s.id not in state.completed}


def _without(plan, gone):
    return plan.replace(
        steps=tuple(
            replace(s, depends_on=tuple(d for d in s.depends_on if d != gone))
            for s in plan.steps
            if s.id != gone
        )
    )


def test_a_revision_deleting_completed_work_is_refused_with_its_finding():
    def delete_s2(goal, contract, state, plan):
        return _without(reissue(plan, _left(plan, state), "cheat"), "S2")

    run = simulate(
        examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")], propose=delete_s2
    )
    assert run.outcome == "refused" and run.events[-1].category == "completed_removed"
    assert "'S2'" in run.events[-1].message and len(run.plans) == 1


def test_a_completed_id_dropped_then_brought_back_as_other_work_is_refused():
    memo = {}

    def readd(goal, contract, state, plan):
        again = reissue(plan, _left(plan, state), "cheat")
        if not memo:
            memo["S1"] = plan.step("S1")
            return _without(again, "S1")
        back = replace(memo["S1"], action="Assume the legacy key builder; do not look")
        return again.replace(steps=(back, *again.steps))

    from planviz.runs.engine.revision import broken_invariant

    cache = examples.load("cache_isolation")
    run = simulate(cache, faults=[Fault("S4", "side_effect", times=2)], propose=readd)
    assert run.outcome == "refused" and run.events[-1].category == "completed_removed"  # v2 already
    # and the id rule alone, whichever version dropped it: S1 ran as the lookup
    from planviz.plan.identity import work_keys

    v2 = _without(cache, "S1")
    v3 = v2.replace(
        steps=(
            replace(cache.step("S1"), action="Assume the legacy key builder; do not look"),
            *v2.steps,
        )
    )
    found = broken_invariant(
        v2, v3, None, ran=work_keys(cache, ["S1"]), completed=set(), held=set()
    )
    assert found is not None and found[0] == "completed_redefined"


def test_dropping_premises_no_observation_falsified_is_refused():
    def drop(goal, contract, state, plan):
        return reissue(plan, _left(plan, state), "cheat").replace(premises=())

    cache = examples.load("cache_isolation")
    faults = [Fault("S4", "side_effect"), Fault("S4", "premise_false")]
    run = simulate(cache, faults=faults, propose=drop)
    assert run.outcome == "refused" and run.events[-1].category == "premise_dropped"
    assert simulate(cache, faults=faults).outcome == "premise_failed"  # the honest revision


def test_a_completed_step_may_be_redone_as_the_same_work_but_not_replaced_by_other_work():
    cache = examples.load("cache_isolation")

    def cautious(goal, contract, state, plan):
        return reissue(plan, {"S1", "S2", "S3", "S4"}, "cautious")

    def hollow(goal, contract, state, plan):
        again = reissue(plan, {"S2", "S3", "S4"}, "cheat")
        return again.replace(
            steps=tuple(
                replace(s, action="Assume the test exists", produces=(), duration=0)
                if s.revises == "S2"
                else s
                for s in again.steps
            )
        )

    assert (
        simulate(cache, faults=[Fault("S4", "side_effect")], propose=cautious).outcome
        == "plan_complete"
    )
    run = simulate(cache, faults=[Fault("S4", "side_effect")], propose=hollow)
    assert run.outcome == "refused" and run.events[-1].category == "completed_removed"
