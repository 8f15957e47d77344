"""Notebook 05's exercise 6 (the receding horizon, moved from notebook 06 to replanning, where seed 004
puts it): expanding F2 within its budget."""

from __future__ import annotations

import pytest

from planviz.teaching.lesson05 import check_exercise_6 as check_exercise_4

CUT_OVER = [
    dict(
        id="F2.a",
        action="Switch writes to the new cluster",
        kind="deploy",
        duration=6,
        requires="reads_migrated",
        produces="writes_cut_over",
        expected_evidence="writes land on the new primary",
        risk="high",
        rollback="point writes back at the old primary",
        approval="change board ticket CB-311",
        resources=["billing-db-primary"],
        check="the new primary takes every write",
    ),
    dict(
        id="F2.b",
        action="Retire the old database",
        duration=18,
        depends_on="F2.a",
        requires="writes_cut_over",
        produces="writes_migrated",
        expected_evidence="the old database receives no connections for a week",
    ),
]


def test_exercise_4_far_right():
    assert check_exercise_4(CUT_OVER)


@pytest.mark.parametrize(
    "steps, says",
    [
        ([CUT_OVER[0], {**CUT_OVER[1], "duration": 20}], "over budget"),
        (
            [
                {k: v for k, v in CUT_OVER[0].items() if k != "approval"} | {"risk": "low"},
                CUT_OVER[1],
            ],
            "no step waits for the change board",
        ),
        (
            [CUT_OVER[0], {**CUT_OVER[1], "produces": "old_db_gone"}],
            "which F2 promised, is never established",
        ),
        ([{**CUT_OVER[0], "requires": "nothing_yet"}, CUT_OVER[1]], "the run ends"),
        ("F2.a", "cannot be used"),
        (None, "no answer yet"),
    ],
)
def test_exercise_4_far_wrong(steps, says):
    feedback = check_exercise_4(steps)
    assert not feedback and says in feedback.message and feedback.hint


# A teacher's third pass (issue 24): expansions that game the budget or the approval passed before.
@pytest.mark.parametrize(
    "steps, says",
    [
        # fits any budget
        (
            [{**CUT_OVER[0], "duration": 0}, {**CUT_OVER[1], "duration": 0}],
            "take 0 h",
        ),
        (
            [
                {k: v for k, v in CUT_OVER[0].items() if k not in ("approval", "risk", "rollback")},
                {**CUT_OVER[1], "approval": "change board ticket CB-311"},
            ],
            "F2.a switches the writes without waiting",
        ),
        (
            [CUT_OVER[0], {**CUT_OVER[1], "depends_on": (), "requires": ()}],
            "F2.b finishes the migration without waiting",
        ),
    ],
)
def test_exercise_4_far_gamed(steps, says):
    feedback = check_exercise_4(steps)
    assert not feedback and says in feedback.message and feedback.hint
