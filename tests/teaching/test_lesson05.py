"""Notebook 05's checks (exercises 4 and 5, moved from notebook 04 with the replanning): each accepts a right
answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz.teaching.lesson05 import check_exercise_4, check_exercise_5

PLAN = planviz.examples.load("cache_isolation")


def test_exercise_4_right():
    assert check_exercise_4({"S0", "S1", "S2"}, "b")


@pytest.mark.parametrize(
    "kept, choice, says",
    [
        ({"S0"}, "b", "not the steps the re-check keeps"),
        ({"S0", "S1", "S2"}, "a", "not (a)"),
        ({"S0", "S1", "S2"}, "c", "not (c)"),
        ({"S0", "S1", "S2"}, None, "no answer yet"),
    ],
)
def test_exercise_4_wrong(kept, choice, says):
    feedback = check_exercise_4(kept, choice)
    assert says in feedback.message and "(b)" not in str(feedback)


def redo(old, ids, suffix="redo"):
    """A hand-built revision: the steps ``ids`` again under new ids that say what they revise."""
    new = {sid: f"{sid}.{suffix}" for sid in ids}
    return old.replace(
        steps=[
            replace(
                st,
                id=new.get(st.id, st.id),
                revises=st.id if st.id in new else None,
                depends_on=[new.get(d, d) for d in st.depends_on],
            )
            for st in old.steps
        ]
    )


def test_exercise_5_right():
    assert check_exercise_5(
        lambda goal, contract, state, old: redo(old, set(old.ids) - set(state.completed))
    )


def _library_inside(goal, contract, state, old):
    """planviz.reissue through a helper: the exercise's text forbids no tool, so this is a right answer."""
    return _helper(old, set(old.ids) - set(state.completed))


def _helper(old, voided):
    import planviz as pv

    return pv.reissue(old, voided, "side effect")


@pytest.mark.parametrize(
    "propose, says",
    [
        (lambda g, c, s, old: redo(old, {"S1", "S2", "S3", "S4"}), "S1.redo, S2.redo"),
        (
            lambda g, c, s, old: redo(old, {"S3", "S4"}).replace(
                steps=[
                    replace(st, action="again") if st.id == "S1" else st
                    for st in redo(old, {"S3", "S4"}).steps
                ]
            ),
            "revision was refused",
        ),
        (lambda g, c, s, old: old, "ends no_new_route"),
        (lambda g, c, s, old: None, "raised SimulationError"),
        ("reissue", "expected a function"),
        (None, "no answer yet"),
    ],
)
def test_exercise_5_wrong(propose, says):
    feedback = check_exercise_5(propose)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "propose",
    [
        lambda g, c, s, old: planviz.reissue(old, set(old.ids) - set(s.completed), "side effect"),
        _library_inside,
    ],
)
def test_exercise_5_takes_planviz_reissue_which_its_text_never_forbids(propose):
    assert check_exercise_5(propose)
