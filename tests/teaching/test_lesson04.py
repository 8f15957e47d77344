"""Notebook 04's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import pytest

import planviz
from planviz import Fault
from planviz.teaching.lesson04 import check_exercise_1, check_exercise_2, check_exercise_3

PLAN = planviz.examples.load("cache_isolation")


def _no_give_away(feedback, *answers):
    assert not feedback and feedback.hint
    assert not any(a in feedback.message + feedback.hint for a in answers)


@pytest.mark.parametrize("voided", [["S1", "S3", "S4"], {"S1", "S3"}])
def test_exercise_1_right(voided):
    """The failure's scope (S1, S3, S4) or what the run voids of it (S4 never started): both are right."""
    feedback = check_exercise_1(voided=voided, kept={"S0", "S2"}, restart="S1")
    assert feedback and "S4 is in the scope too but never started" in feedback.message


@pytest.mark.parametrize(
    "voided, kept, restart, says",
    [
        ({"S3", "S4"}, {"S0", "S1", "S2"}, "S3", "not the steps voided"),
        ({"S1", "S3", "S4"}, {"S0"}, "S1", "not the kept ones"),
        ({"S1", "S3", "S4"}, {"S0", "S2"}, "S3", "does not resume at 'S3'"),
        ({"S1", "S3", "S4"}, 3, "S1", "sets of step ids"),
        (None, {"S0"}, "S1", "no answer yet"),
    ],
)
def test_exercise_1_wrong(voided, kept, restart, says):
    feedback = check_exercise_1(voided, kept, restart)
    assert says in feedback.message
    _no_give_away(feedback, "'S1', 'S3', 'S4'")


def test_exercise_2_right():
    assert check_exercise_2("plan_complete", "step_failed", 3)


@pytest.mark.parametrize(
    "answer, says",
    [
        (("step_failed", "step_failed", 3), "not both outcomes"),
        (("plan_complete", "step_failed", 4), "not attempted 4 times"),
        (("plan_complete", ..., 3), "no answer yet"),
    ],
)
def test_exercise_2_wrong(answer, says):
    feedback = check_exercise_2(*answer)
    assert says in feedback.message
    _no_give_away(feedback, "step_failed")


@pytest.mark.parametrize(
    "most", [Fault("S4", "goal_change"), Fault("S4", "extra_fact", fact="not leak_reproduced")]
)
def test_exercise_3_right(most):
    feedback = check_exercise_3(most, "transient")
    assert feedback and ("more than any fault of the table" in feedback.message) == (
        most.kind == "extra_fact"
    )


@pytest.mark.parametrize(
    "most, never, says",
    [
        (Fault("S4", "side_effect"), "transient", "another fault voids more"),
        (
            Fault("S4", "goal_change"),
            "side_effect",
            "not a kind of the table that never voids work",
        ),
        (Fault("S9", "side_effect"), "transient", "cannot be injected"),
        ("S4:goal_change", "transient", "should be a planviz Fault"),
        (None, None, "no answer yet"),
    ],
)
def test_exercise_3_wrong(most, never, says):
    feedback = check_exercise_3(most, never)
    assert says in feedback.message
    _no_give_away(feedback, "goal_change")


# A teacher's third pass (issue 24): each row had the wrong verdict (or crashed) before.
@pytest.mark.parametrize(
    "voided, kept, restart",
    [
        (["s1", "s3", "s4"], {"S0", "S2"}, "S1"),  # ids in lower case, as restart already was
        ("S1, S3, S4", "S0 S2", "S1"),  # ids as text
    ],
)
def test_exercise_1_reads_ids_in_any_form(voided, kept, restart):
    assert check_exercise_1(voided=voided, kept=kept, restart=restart)


@pytest.mark.parametrize("never", [["transient"], {"transient": 1}])
def test_exercise_3_an_unhashable_or_odd_kind_is_a_hint_not_a_crash(never):
    feedback = check_exercise_3(most=Fault("S4", "goal_change"), never=never)
    assert not feedback and "is not a kind of the table" in feedback.message and feedback.hint
