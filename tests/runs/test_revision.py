"""Revisions: re-issued work keeps its placeholders pointing at the re-issued producer, whatever their spelling."""

from __future__ import annotations

import pytest

from planviz import Plan, Step, reissue, validate
from planviz.plan.lineage import all_ids, lineage_root, lineage_roots

SPELLINGS = [
    "{{A.out}}",
    "{{ A.out }}",
    "{{\tA.out }}",
    "{{A.out }}",
    "total: {{ A.out }} of {{A.out}}",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_reissue_renames_every_spelling_of_a_placeholder(spelling):
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="A.out"),
            Step(
                "B",
                "b",
                expected_evidence="e",
                depends_on="A",
                requires="A.out",
                produces="done",
                arguments={"q": spelling},
            ),
        ],
    )
    assert validate(plan).ok
    revised = reissue(plan, {"A", "B"}, "the output was wrong")
    assert revised.ids == ("A.v2", "B.v2")
    assert "A.v2.out" in revised.step("B.v2").arguments["q"]
    assert "bad_placeholder" not in validate(revised).codes


def test_lineage_through_versions():
    v1 = Plan("g", [Step("S3", "patch")])
    v2 = reissue(v1, {"S3"}, "t1")
    v3 = reissue(v2, {"S3.v2"}, "t2")
    assert v3.ids == ("S3.v3",)
    assert lineage_root(v3, "S3.v3") == "S3"
    assert lineage_roots([v1, v2, v3]) == {"S3": "S3", "S3.v2": "S3", "S3.v3": "S3"}
    assert all_ids(v3) == {"S3", "S3.v2", "S3.v3"}


def test_a_revises_loop_stops_before_repeating_an_id():
    looped = Plan("g", [Step("A", "a", revises="B"), Step("B", "b", revises="A")])
    assert lineage_roots([looped]) == {"A": "B", "B": "A"}


# -- identity is content (issue 23.3) and a revision keeps the goal (issue 23.4) --------------------------

from dataclasses import replace as _replace  # noqa: E402

from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)

from planviz import Contract, Fault, examples, metrics, redundant_work, simulate  # noqa: E402
from planviz.plan.identity import same_work, work_keys  # noqa: E402
from tests.strategies import plans as random_plans  # noqa: E402


def copy_under_new_ids(goal, contract, state, plan):
    """A replanner that re-issues the unfinished work unchanged under new ids: S3, S4 become P, V (then P2, V2)."""
    left = [s for s in plan.steps if s.id not in state.completed]
    new = {
        s.id: ("P" if s.kind == "patch" else "V") + (str(plan.version) if plan.version > 1 else "")
        for s in left
    }
    steps = [s for s in plan.steps if s.id in state.completed]
    steps += [
        _replace(s, id=new[s.id], depends_on=tuple(new.get(d, d) for d in s.depends_on))
        for s in left
    ]
    return Plan(plan.goal, steps, premises=plan.premises)


def test_a_fault_follows_the_same_work_under_a_new_id():
    cache = examples.load("cache_isolation")
    run = simulate(cache, faults=[Fault("S4", "side_effect", times=10)], propose=copy_under_new_ids)
    assert run.outcome == "replan_limit", run.outcome  # the wrong route is still wrong
    assert [e.step for e in run.events if e.kind == "fail"] == ["S4", "V", "V2"]
    assert metrics(run).duplicate_steps == 4  # P and V, twice: the same work as S3 and S4


def test_duplicate_steps_count_redone_work_under_any_id():
    cache = examples.load("cache_isolation")
    run = simulate(cache, faults=[Fault("S4", "side_effect")], propose=copy_under_new_ids)
    assert run.outcome == "plan_complete" and metrics(run).duplicate_steps == 2


def test_redundant_work_is_content_not_id():
    cache = examples.load("cache_isolation")
    again = _replace(cache.step("S1"), id="L", depends_on=("S0",))
    revised = cache.replace(steps=(*cache.steps, again))
    state = simulate(cache).state
    assert "L" in redundant_work(
        type("S", (), {"completed": {"S0", "S1"}, "facts": frozenset()})(), revised
    )
    assert redundant_work(state, cache) == ()


def test_a_completed_step_redefined_under_its_id_is_refused_but_a_new_duration_is_not():
    from planviz import changed_completed

    cache = examples.load("cache_isolation")
    slower = cache.replace(
        steps=tuple(_replace(s, duration=99) if s.id == "S1" else s for s in cache.steps)
    )
    other = cache.replace(
        steps=tuple(_replace(s, action="guess") if s.id == "S1" else s for s in cache.steps)
    )
    assert changed_completed(cache, slower, {"S1"}) == ()
    assert changed_completed(cache, other, {"S1"}) == ("S1",)


def _renamed(plan, suffix):
    ren = {s.id: f"{s.id}{suffix}" for s in plan.steps}
    return plan.replace(
        steps=tuple(
            _replace(s, id=ren[s.id], depends_on=tuple(ren.get(d, d) for d in s.depends_on))
            for s in plan.steps
        )
    ), ren


@settings(max_examples=40, deadline=None)
@given(p=random_plans(), rnd=st.randoms(use_true_random=False))
def test_identity_by_content_is_stable_under_renaming_reordering_and_reissuing(p, rnd):
    p = p.replace(
        steps=tuple(
            _replace(
                s, arguments={"from": f"{{{{{s.depends_on[0]}.out}}}}"} if s.depends_on else {}
            )
            for s in p.steps
        )
    )
    keys = work_keys(p)
    renamed, ren = _renamed(p, "_x")
    renamed = renamed.replace(
        steps=tuple(
            _replace(
                s, arguments={"from": f"{{{{{s.depends_on[0]}.out}}}}"} if s.depends_on else {}
            )
            for s in renamed.steps
        )
    )
    assert {ren[k]: v for k, v in keys.items()} == work_keys(renamed)
    shuffled = list(p.steps)
    rnd.shuffle(shuffled)
    assert work_keys(p.replace(steps=tuple(shuffled))) == keys
    voided = {s.id for s in p.steps if rnd.random() < 0.5}
    again = reissue(p, voided, "test")
    for s in again.steps:
        assert work_keys(again)[s.id] == keys[s.revises or s.id]
        assert same_work(again, s.id, p, s.revises or s.id)


def reissue_with_goal(goal):
    def propose(old_goal, contract, state, plan):
        return reissue(plan, set(plan.invalidated) or {"S3", "S4"}, "copy").replace(goal=goal)

    return propose


def test_a_replanner_may_not_swap_the_goal():
    cache = examples.load("cache_isolation")
    run = simulate(
        cache,
        faults=[Fault("S4", "side_effect")],
        propose=reissue_with_goal("Something else entirely"),
    )
    assert run.outcome == "refused" and run.events[-1].category == "goal_changed_by_replan"
    assert "Something else entirely" in run.events[-1].message


@pytest.mark.parametrize(
    "change",
    [
        dict(forbidden=("S0",)),
        dict(forbidden_states=()),
        dict(intent="read"),
        dict(required=("reproduce",)),
    ],
)
def test_a_replanner_may_not_swap_the_contract_or_its_safety_invariants(change):
    cache = examples.load("cache_isolation")
    weaker = _replace(cache.contract, **change)

    def propose(goal, contract, state, plan):
        return reissue(plan, {"S3", "S4"}, "copy").replace(contract=weaker)

    run = simulate(cache, faults=[Fault("S4", "side_effect")], propose=propose)
    assert run.outcome == "refused" and run.events[-1].category == "goal_changed_by_replan"


def test_a_goal_change_may_change_the_goal():
    cache = examples.load("cache_isolation")
    run = simulate(cache, faults=[Fault("S4", "goal_change", goal="isolate sessions too")])
    assert run.outcome == "plan_complete" and run.plan.goal == "isolate sessions too"
    assert Contract is not None
