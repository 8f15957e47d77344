"""Notebook 09's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import pytest

import planviz
from planviz import Plan, Step
from planviz.teaching.lesson09 import check_exercise_1, check_exercise_2, check_exercise_3

COSTS = {"time", "model_calls", "input_tokens", "output_tokens", "cost", "total_tokens"}
NOW = Step(
    "now",
    "get the current time",
    tool="get_current_time",
    arguments={"timezone": "America/New_York"},
    expected_evidence="a datetime",
    produces="year",
)
SAVE = Step(
    "save",
    "write the year",
    tool="write_file",
    arguments={"text": "{{now.year}}"},
    depends_on="now",
    requires="year",
    expected_evidence="the file holds the year",
    produces="saved",
)
CHECK = Step(
    "check",
    "read the file back",
    tool="read_file",
    depends_on="save",
    requires="saved",
    expected_evidence="the same year",
)


@pytest.mark.parametrize(
    "differ",
    [COSTS, "time, model calls, input_tokens, output_tokens, cost, total tokens", sorted(COSTS)],
)
def test_exercise_1_right(differ):
    assert check_exercise_1(None, differ)


@pytest.mark.parametrize(
    "divergence, differ, says",
    [
        (4, COSTS, "the first divergence is not 4"),
        (None, COSTS | {"tool_calls"}, "0 figure(s) missing, 1 too many"),
        (None, {"model_calls"}, "5 figure(s) missing"),
        (None, {"tokens"}, "'tokens' is not a usage figure"),
        (None, None, "no answer yet"),
    ],
)
def test_exercise_1_wrong(divergence, differ, says):
    feedback = check_exercise_1(divergence, differ)
    assert not feedback and says in feedback.message and feedback.hint


def test_exercise_2_right():
    assert check_exercise_2(Plan("write the current year to a file", [NOW, SAVE]), "b")


@pytest.mark.parametrize(
    "plan, choice, says",
    [
        (Plan("g", [NOW, SAVE, CHECK]), "b", "does not find every step as planned (check)"),
        (Plan("g", [NOW]), "b", "no longer writes the year"),
        (Plan("g", [NOW, SAVE]), "a", "not (a)"),
        (Plan("g", [NOW, SAVE]), None, "no answer yet"),
        ("declared", "b", "expected a planviz Plan"),
    ],
)
def test_exercise_2_wrong(plan, choice, says):
    feedback = check_exercise_2(plan, choice)
    assert not feedback and says in feedback.message and "(b)" not in str(feedback)


def test_exercise_3_right():
    assert check_exercise_3(2, "plan_complete")


@pytest.mark.parametrize(
    "divergence, outcome, says",
    [
        (4, "plan_complete", "do not part at event 4"),
        (2, "step_failed", "does not end 'step_failed'"),
        (None, None, "no answer yet"),
    ],
)
def test_exercise_3_wrong(divergence, outcome, says):
    feedback = check_exercise_3(divergence, outcome)
    assert not feedback and says in feedback.message and feedback.hint


# A teacher's third pass (issue 24): each row had the wrong verdict (or a wrong message) before.
@pytest.mark.parametrize(
    "differ, says",
    [
        ({name: 1 for name in COSTS}, "a dict"),
        (set(), "names no usage figure"),
        ([1, 2], "1 is not a name"),
    ],
)
def test_exercise_1_says_what_is_wrong_with_the_form(differ, says):
    feedback = check_exercise_1(None, differ)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "plan, choice, passed",
    [
        (Plan("g", [SAVE]), "b", False),  # the time is no longer fetched: more went than had to
        (Plan("g", [NOW, SAVE]), "B.", True),  # the letter with its full stop
    ],
)
def test_exercise_2_only_the_skipped_step_goes(plan, choice, passed):
    assert check_exercise_2(plan, choice).passed is passed
