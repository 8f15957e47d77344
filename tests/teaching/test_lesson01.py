"""Notebook 01's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import graphlib
from dataclasses import replace

import networkx as nx
import pytest

import planviz
from planviz import Step
from planviz.teaching.lesson01 import (
    check_ancestors,
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_topological_order,
)

PLAN = planviz.examples.load("cache_isolation")


def _with(**changes):
    step = Step(
        "S5",
        "Deploy the fix behind a feature flag",
        depends_on="S4",
        requires=["isolation_verified", "hit_rate_ok"],
        produces="fix_deployed",
        expected_evidence="the flag is on in staging",
    )
    return PLAN.replace(steps=PLAN.steps + (replace(step, **changes),))


def ancestors(plan, step_id):
    """Recursive (the solution file walks a stack): two right answers written differently both pass."""
    parents = set(plan.step(step_id).depends_on)
    return parents.union(*(ancestors(plan, d) for d in parents))


def parents_only(plan, step_id):
    return set(plan.step(step_id).depends_on)


def earlier_in_file(plan, step_id):
    return set(plan.ids[: plan.ids.index(step_id)])


def with_itself(plan, step_id):
    return ancestors(plan, step_id) | {step_id}


def raises(plan, step_id):
    raise NotImplementedError("not yet")


@pytest.mark.parametrize(
    "fn, says",
    [
        (parents_only, "missing"),
        (earlier_in_file, "extra"),
        (with_itself, "extra"),
        (raises, "raised NotImplementedError"),
        (lambda plan, step_id: None, "returned None"),
        (lambda plan, step_id: "S0", "returned str"),
        ("ancestors", "expected a function"),
        (None, "no answer yet"),
    ],
)
def test_ancestors_wrong(fn, says):
    feedback = check_ancestors(fn)
    assert not feedback and says in feedback.message and feedback.hint


def test_ancestors_right_and_the_counterexample_is_drawn():
    assert check_ancestors(ancestors)
    wrong = check_ancestors(parents_only)
    assert wrong.picture is not None and "<svg" in wrong.picture.svg
    assert "after" in wrong.message  # the plan is listed as text too


def test_exercise_1_right():
    assert check_exercise_1(_with())
    # a redundant extra dependency is still right
    assert check_exercise_1(_with(depends_on=("S3", "S4")))


@pytest.mark.parametrize(
    "answer, says",
    [
        (None, "no answer yet"),
        (PLAN.steps, "expected a planviz Plan"),
        (PLAN, "no step 'S5'"),
        # a teacher's leftover (issue 24): said only "no step 'S5'"
        (
            _with(id="s5"),
            "ids are case-sensitive",
        ),
        (_with(depends_on="S3"), "unmet_requirement"),
        (_with(depends_on=()), "unmet_requirement"),
        (_with(expected_evidence=""), "no_evidence"),
        (_with(requires=["isolation_verified"]), "does not require hit_rate_ok"),
        (_with(produces=()), "must produce 'fix_deployed'"),
        (
            _with().replace(steps=(replace(PLAN.steps[0], duration=1),) + _with().steps[1:]),
            "you changed S0",
        ),
    ],
)
def test_exercise_1_wrong(answer, says):
    feedback = check_exercise_1(answer)
    assert not feedback and says in feedback.message
    assert "S4" not in feedback.message + feedback.hint, (
        "the feedback names the step S5 must depend on"
    )


def test_exercise_2_right():
    assert check_exercise_2(["hit_rate_ok", "isolation_verified"])
    assert check_exercise_2(("isolation_verified", "hit_rate_ok"))


@pytest.mark.parametrize(
    "answer, secret",
    [
        (["isolation_verified"], "hit_rate_ok"),
        (["hit_rate_ok"], "isolation_verified"),
        (["fix_deployed", "hit_rate_ok", "isolation_verified"], None),
        ("hit_rate_ok", None),
        (None, None),
    ],
)
def test_exercise_2_wrong(answer, secret):
    feedback = check_exercise_2(answer)
    assert not feedback and feedback.hint
    if secret:
        assert secret not in str(feedback), "the feedback names the missing fact"


def test_exercise_3_right():
    assert check_exercise_3("unmet_requirement", "b")


@pytest.mark.parametrize(
    "code, reason",
    [
        ("no_evidence", "b"),
        ("cycle", "b"),
        (None, None),
        ("unmet_requirement", "a"),
        ("unmet_requirement", "c"),
        ("unmet_requirement", None),
    ],
)
def test_exercise_3_wrong(code, reason):
    feedback = check_exercise_3(code, reason)
    assert not feedback and feedback.hint
    assert "(b)" not in str(feedback) and "unmet_requirement" not in feedback.hint


# A teacher's third pass (issue 24): right answers in other forms, and build-its that call a ready-made
# algorithm under another name. Each row had the wrong verdict before.
@pytest.mark.parametrize(
    "facts, passed",
    [
        (["ISOLATION_VERIFIED", "Hit_Rate_OK"], True),  # case carries no meaning
        ((f for f in ("isolation_verified", "hit_rate_ok")), True),  # a generator, read once
        ({"isolation_verified": 1, "hit_rate_ok": 1}, False),  # a dict is not a list of names
    ],
)
def test_exercise_2_reads_facts_through_the_toolkit(facts, passed):
    assert check_exercise_2(facts).passed is passed


@pytest.mark.parametrize(
    "fn, says",
    [
        (
            lambda plan, sid: {
                n
                for n in plan.ids
                if n != sid
                and any(True for _ in nx.all_simple_paths(planviz.to_graph(plan), n, sid))
            },
            "networkx.all_simple_paths",
        ),
        (
            lambda plan, sid: (
                set(nx.shortest_path_length(planviz.to_graph(plan), target=sid)) - {sid}
            ),
            "networkx.shortest_path_length",
        ),
        (
            lambda plan, sid: (
                {a for a, _ in nx.bfs_predecessors(planviz.to_graph(plan).reverse(), sid)}
                | {b for _, b in nx.bfs_predecessors(planviz.to_graph(plan).reverse(), sid)} - {sid}
            ),
            "networkx.bfs_predecessors",
        ),
    ],
)
def test_ancestors_refuses_other_ready_made_reachability(fn, says):
    assert check_ancestors(ancestors)
    feedback = check_ancestors(fn)
    assert not feedback and says in feedback.message and "build it yourself" in feedback.message


def _graphlib_order(plan):
    try:
        return list(
            graphlib.TopologicalSorter({s.id: set(s.depends_on) for s in plan.steps}).static_order()
        )
    except graphlib.CycleError:
        return None


def test_topological_order_refuses_the_standard_librarys_sorter():
    feedback = check_topological_order(_graphlib_order)
    assert not feedback and "graphlib.TopologicalSorter" in feedback.message


@pytest.mark.parametrize("reason", ["B.", " (b). ", "b:"])
def test_exercise_3_reads_the_letter_with_its_punctuation(reason):
    assert check_exercise_3("unmet_requirement", reason)
