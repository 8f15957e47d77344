"""The verdicts a teacher found wrong (issue 24), one row each: library answers to build-its, answers that crashed a
check, right answers rejected for their form, verdicts that depended on chance, and checks that were fooled."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest

import planviz
from planviz import Step
from planviz.teaching import lesson01, lesson03, lesson04, lesson06, lesson07, lesson09

from ..seeds import outputs_under_hash_seeds

PLAN = planviz.examples.load("cache_isolation")


def _ancestors(plan, sid):
    found, todo = set(), list(plan.step(sid).depends_on)
    while todo:
        x = todo.pop()
        if x not in found:
            found.add(x)
            todo.extend(plan.step(x).depends_on)
    return found


def _hidden_library(plan, sid):
    return _through_a_helper(plan, sid)


def _through_a_helper(plan, sid):
    graph = planviz.to_graph(plan)
    # a name the code reading cannot see: caught when it runs
    return getattr(nx, "ances" + "tors")(graph, sid)


def _reach_library(plan, completed, facts):
    return set(planviz.reachable(plan, completed, facts).steps)


def _reach_invalidated(plan, completed, facts):
    return set(plan.ids) - set(completed) - planviz.invalidated(plan, (completed, facts))


@pytest.mark.parametrize(
    "fn, says",
    [
        (lambda plan, sid: nx.ancestors(planviz.to_graph(plan), sid), "calls networkx.ancestors"),
        (
            lambda plan, sid: nx.descendants(planviz.to_graph(plan).reverse(), sid),
            "calls networkx.descendants",
        ),
        (_hidden_library, "calls networkx.ancestors"),
        (lambda plan, sid: [plan.step(d) for d in _ancestors(plan, sid)], "give its id: step.id"),
        (lambda plan, sid: {plan.step(d) for d in _ancestors(plan, sid)}, "give its id: step.id"),
        (lambda plan, sid: [1, 2], "is not a step id"),
    ],
)
def test_ancestors_build_it_refuses_the_library_and_never_crashes(fn, says):
    feedback = lesson01.check_ancestors(fn)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "fn",
    [
        lambda plan, sid: {f" {x} " for x in _ancestors(plan, sid)},
        lambda plan, sid: list(_ancestors(plan, sid)),
        lambda plan, sid: tuple(sorted(_ancestors(plan, sid))),
        lambda plan, sid: {x: True for x in _ancestors(plan, sid)}.keys(),
    ],
)
def test_ancestors_accepts_any_collection_of_ids(fn):
    assert lesson01.check_ancestors(fn)


@pytest.mark.parametrize(
    "fn, says",
    [
        (_reach_library, "calls planviz.reachable"),
        (_reach_invalidated, "calls planviz.invalidated"),
        (
            lambda plan, completed, facts: [s for s in plan.steps if s.id not in completed],
            "give its id: step.id",
        ),
    ],
)
def test_reachable_build_it_refuses_the_library(fn, says):
    feedback = lesson06.check_reachable(fn)
    assert not feedback and says in feedback.message and feedback.hint


def _with_s5(**changes):
    step = Step(
        "S5",
        "Deploy the fix",
        requires=["isolation_verified", "hit_rate_ok"],
        produces="fix_deployed",
        expected_evidence="the flag is on",
        **changes,
    )
    return PLAN.replace(steps=PLAN.steps + (step,))


@pytest.mark.parametrize(
    "plan, says",
    [
        (
            _with_s5().replace(premises=PLAN.premises + ("isolation_verified", "hit_rate_ok")),
            "premises",
        ),
        (
            _with_s5().replace(
                contract=replace(PLAN.contract, given_facts=("isolation_verified", "hit_rate_ok"))
            ),
            "given_facts",
        ),
        (_with_s5(depends_on="S3").replace(premises=PLAN.premises + ("hit_rate_ok",)), "premises"),
    ],
)
def test_exercise_1_of_01_refuses_facts_the_plan_vouches_for(plan, says):
    feedback = lesson01.check_exercise_1(plan)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "facts",
    [
        [" isolation_verified", "hit_rate_ok "],
        "isolation_verified, hit_rate_ok",
        ("hit_rate_ok", "isolation_verified"),
    ],
)
def test_exercise_2_of_01_reads_facts_in_any_form(facts):
    assert lesson01.check_exercise_2(facts)


SET_PATH_PROGRAM = """
from planviz.teaching.lesson03 import check_exercise_1
print(bool(check_exercise_1(path={"S0", "S2", "S3", "S4"}, makespan=30)))
"""


def test_a_set_given_as_the_critical_path_is_refused_whatever_the_hash_seed():
    """A set has no order: it must be refused for every hash seed (it used to pass for 2 seeds of 10)."""
    verdicts = outputs_under_hash_seeds(SET_PATH_PROGRAM)
    assert verdicts == {"False"}


@pytest.mark.parametrize(
    "path, makespan",
    [
        (["S0", "S2", "S3", "S4"], "30"),
        (" S0 -> S2 -> S3 -> S4 ", 30.0),
        (("S0", "S2", "S3", "S4"), " 30 "),
    ],
)
def test_exercise_1_of_03_reads_a_path_in_any_ordered_form(path, makespan):
    assert lesson03.check_exercise_1(path=path, makespan=makespan)


def test_exercise_1_of_03_says_why_a_set_is_refused():
    feedback = lesson03.check_exercise_1(path={"S0", "S2", "S3", "S4"}, makespan=30)
    assert not feedback and "a set has no order" in feedback.message


@pytest.mark.parametrize("restart", ["S1", " S1 ", "S1.v2"])
def test_exercise_1_of_04_accepts_the_id_that_runs_next(restart):
    # S4 never ran
    assert lesson04.check_exercise_1(voided={"S1", "S3"}, kept={"S0", "S2"}, restart=restart)


def test_exercise_1_of_04_step_objects_are_a_hint_not_a_crash():
    feedback = lesson04.check_exercise_1(voided=[PLAN.step("S1")], kept={"S0"}, restart="S1")
    assert not feedback and "step.id" in feedback.message


@pytest.mark.parametrize(
    "o2, o3, n", [(" plan_complete", "Step_Failed", "3"), ("plan_complete", "step_failed", 3.0)]
)
def test_exercise_2_of_04_reads_words_and_numbers_as_text(o2, o3, n):
    assert lesson04.check_exercise_2(outcome_2=o2, outcome_3=o3, attempts_3=n)


def _same_patch_renamed(goal, contract, state, old):
    kept = [s for s in old.steps if s.id in state.completed]
    return old.replace(
        steps=kept
        + [
            replace(old.step("S3"), id="P", revises=None),
            replace(old.step("S4"), id="V", depends_on=("P",), revises=None),
        ]
    )


def _reissued_patch_renamed_check(goal, contract, state, old):
    kept = [s for s in old.steps if s.id in state.completed]
    patch = (
        old.step("S3") if "S3" in old.ids else next(s for s in old.steps if s.id.startswith("S3"))
    )
    new_patch = replace(patch, id=f"S3.r{old.version}", revises=patch.id)
    check = replace(
        old.step("S4") if "S4" in old.ids else next(s for s in old.steps if s.id.startswith("S4")),
        id=f"V{old.version}",
        depends_on=(new_patch.id,),
        revises=None,
    )
    return old.replace(steps=kept + [new_patch, check])


@pytest.mark.parametrize("propose", [_same_patch_renamed, _reissued_patch_renamed_check])
def test_exercise_2_of_07_is_not_fooled_by_the_same_patch_under_a_new_id(propose):
    feedback = lesson07.check_exercise_2(propose)
    assert (
        not feedback and "is the patch S3 under another name" in feedback.message and feedback.hint
    )


FAN = [
    Step("A", "set up", duration=2, produces="ready"),
    *[
        Step(
            f"B{i}",
            f"branch {i}",
            duration=2 + i,
            depends_on="A",
            requires="ready",
            produces=f"b{i}",
        )
        for i in (1, 2, 3)
    ],
]


def test_exercise_4_of_07_says_the_planner_refuses_a_plan_without_evidence_and_refuses_planner_0():
    plan = planviz.Plan("three branches", FAN)
    feedback = lesson07.check_exercise_4(plan=plan, direct=14, planner=0, one_worker=14)
    assert (
        not feedback and "expected_evidence" in feedback.hint and "ends refused" in feedback.message
    )


@pytest.mark.parametrize(
    "first, differ",
    [
        ("None", " Time, model_calls, input_tokens, output_tokens, cost, total_tokens"),
        (None, ["time", "Model Calls", "input-tokens", "output_tokens", "cost", "Total Tokens"]),
    ],
)
def test_exercise_1_of_09_reads_forms(first, differ):
    assert lesson09.check_exercise_1(first_divergence=first, differ=differ)


@pytest.mark.parametrize("divergence, outcome", [("2", "plan_complete"), (2.0, " Plan_Complete ")])
def test_exercise_3_of_09_reads_numbers_as_text(divergence, outcome):
    assert lesson09.check_exercise_3(divergence=divergence, outcome=outcome)
