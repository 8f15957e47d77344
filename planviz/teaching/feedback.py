"""What an exercise check says: right, or what is wrong and a hint, never the solution.

A check returns a :class:`Feedback`. It shows itself in a notebook as a small
card (green when right, orange when not yet), prints as one or two lines, and
is truthy only when the answer is right, so ``assert check(answer)`` works in
a script.

>>> good = right("03 exercise 1", "the new chain is the longest one")
>>> bool(good), str(good)
(True, '✓ 03 exercise 1: right. the new chain is the longest one')
>>> print(wrong("03 exercise 1", "that chain is not the longest", "add the durations along each chain"))
✗ 03 exercise 1: not yet. that chain is not the longest
  Hint: add the durations along each chain
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Feedback",
    "right",
    "wrong",
    "unanswered",
    "is_blank",
    "unusable",
    "multiple_choice",
    "MIME",
]

#: The mimetype of a check's result in a notebook output (read by tests; front ends ignore it).
MIME = "application/vnd.planviz.feedback+json"


@dataclass(frozen=True)
class Feedback:
    """The verdict of one exercise check.

    ``exercise`` names it (``"01 exercise 2"``); ``passed`` is the verdict;
    ``message`` says what is right or what is wrong; ``hint`` where to look
    next (it never gives the answer away); ``picture`` an optional
    :class:`~planviz.Diagram` of a counterexample (the plan where a
    student's function first disagreed with planviz).
    """

    exercise: str
    passed: bool
    message: str
    hint: str = ""
    picture: Any = field(default=None, compare=False, repr=False)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.passed:
            return f"✓ {self.exercise}: right. {self.message}"
        text = f"✗ {self.exercise}: not yet. {self.message}"
        return text + (f"\n  Hint: {self.hint}" if self.hint else "")

    __repr__ = __str__

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        colour, mark, verdict = (
            ("#1b7a3d", "✓", "right") if self.passed else ("#b34700", "✗", "not yet")
        )
        lines = html.escape(self.message).replace("\n", "<br>")
        hint = (
            f'<div style="margin-top:4px"><b>Hint:</b> {html.escape(self.hint)}</div>'
            if self.hint
            else ""
        )
        picture = ""
        if self.picture is not None:
            picture = (
                '<div style="margin-top:6px">'
                + self.picture._repr_mimebundle_()["text/html"]
                + "</div>"
            )
        card = (
            f'<div class="planviz-feedback" style="border-left:4px solid {colour};padding:4px 10px;'
            f'margin:4px 0"><b style="color:{colour}">{mark} {html.escape(self.exercise)}: {verdict}.</b> '
            f'<span style="white-space:pre-wrap">{lines}</span>{hint}{picture}</div>'
        )
        return {
            "text/plain": str(self),
            "text/html": card,
            MIME: {"exercise": self.exercise, "passed": self.passed},
        }


def right(exercise: str, message: str) -> Feedback:
    """A passed check."""
    return Feedback(exercise, True, message)


def wrong(exercise: str, message: str, hint: str = "", picture: Any = None) -> Feedback:
    """A failed check: what is wrong, and a hint that does not give the answer away."""
    return Feedback(exercise, False, message, hint, picture)


def unanswered(exercise: str, what: str, hint: str = "") -> Feedback:
    """The check of an exercise not answered yet (the notebook's placeholder ``...`` or ``None``)."""
    return Feedback(exercise, False, f"no answer yet: {what}", hint)


def is_blank(value: Any) -> bool:
    """``None`` or ``...``: the placeholders a notebook leaves for the student's answer."""
    return value is None or value is Ellipsis


def unusable(
    exercise: str, answer: Any, kind: type | tuple[type, ...], ask: str, expected: str, hint: str
) -> Feedback | None:
    """The feedback for an answer that is not given yet or not of the kind asked, else None (check it further).

    >>> unusable("ex", ..., dict, "a dict of minutes", "a dict", "").message
    'no answer yet: a dict of minutes'
    >>> unusable("ex", [1], dict, "a dict of minutes", "a dict", "").message
    'expected a dict, got list'
    >>> unusable("ex", {}, dict, "a dict of minutes", "a dict", "") is None
    True
    """
    if is_blank(answer):
        return unanswered(exercise, ask, hint)
    if not isinstance(answer, kind):
        return wrong(exercise, f"expected {expected}, got {type(answer).__name__}", hint)
    return None


def multiple_choice(
    exercise: str, answer: Any, right_choice: str, why_not: dict[str, str], hint: str
) -> Feedback:
    """Check a one-letter answer: ``why_not`` says, for each wrong letter, what is wrong with that choice."""
    choices = sorted({right_choice, *why_not})
    if is_blank(answer):
        return unanswered(exercise, f"pick one of {', '.join(map(repr, choices))}", hint)
    letter = str(answer).strip().strip("().: ").lower()  # "b", " B ", "(b)", "B." all read as b
    if letter == right_choice:
        return right(exercise, f"({letter}) is the reason.")
    if letter in why_not:
        return wrong(exercise, f"not ({letter}): {why_not[letter]}", hint)
    return wrong(
        exercise, f"{answer!r} is not one of the choices {', '.join(map(repr, choices))}", hint
    )
