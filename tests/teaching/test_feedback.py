"""Feedback: the verdict of an exercise check, as text, as a notebook card, and as a truth value."""

from __future__ import annotations

import pytest

import planviz
from planviz.teaching.feedback import MIME, multiple_choice, right, unanswered, wrong


def test_truthy_only_when_right():
    assert right("01 exercise 1", "yes")
    assert not wrong("01 exercise 1", "no", "look again")
    assert not unanswered("01 exercise 1", "pass your plan")


def test_exported_from_planviz_teaching():
    assert planviz.teaching.Feedback is type(right("x", "y"))
    # a teaching type: planviz.Feedback is a deprecated name (tests/test_renamed.py)
    assert "Feedback" not in planviz.__all__


def test_notebook_card_carries_the_verdict_and_escapes_text():
    bundle = wrong("01 exercise 2", "<b>not</b> that", "a <hint>")._repr_mimebundle_()
    assert bundle[MIME] == {"exercise": "01 exercise 2", "passed": False}
    assert (
        "<b>not</b>" not in bundle["text/html"] and "&lt;b&gt;not&lt;/b&gt;" in bundle["text/html"]
    )
    assert "&lt;hint&gt;" in bundle["text/html"]
    assert bundle["text/plain"].startswith("✗ 01 exercise 2: not yet.")


def test_a_counterexample_picture_shows_in_the_card():
    picture = planviz.render(planviz.Plan("g", [planviz.Step("A", "a")]))
    bundle = wrong("01 ancestors", "differs", "hint", picture=picture)._repr_mimebundle_()
    assert "planviz-diagram" in bundle["text/html"] and "<svg" in bundle["text/html"]


@pytest.mark.parametrize(
    "answer, passed, says",
    [
        ("b", True, "(b) is the reason"),
        ("(B) ", True, "(b) is the reason"),
        ("a", False, "not (a): wrong because"),
        ("z", False, "is not one of the choices"),
        (None, False, "no answer yet"),
        (..., False, "no answer yet"),
    ],
)
def test_multiple_choice(answer, passed, says):
    feedback = multiple_choice(
        "05 exercise 3", answer, "b", {"a": "wrong because", "c": "no"}, "think"
    )
    assert feedback.passed is passed and says in str(feedback)
    if not passed:
        assert "(b)" not in str(feedback), (
            "a wrong answer's feedback must not name the right choice"
        )
