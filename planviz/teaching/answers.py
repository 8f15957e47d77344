"""Reading what a student answers: one normalisation for every check, and a type guard that never raises.

A right answer is accepted in any reasonable form: surrounding whitespace
(``" S1"``), case where case carries no meaning (``"Executor"``, ``"B"``),
numbers as text (``"29"``), an exception class where its name is asked
(``SchemaError`` for ``"SchemaError"``). A wrong type is not an error: each
reader returns :data:`UNREADABLE` with what was wrong, and the check turns it
into a "not yet" with a hint (:func:`unreadable`). Readers are deterministic:
a set where an order is asked is refused, never read in hash order.

>>> number("29"), number(" 29 "), number("soon"), number(float("nan")), number(True)
(29.0, 29.0, None, None, None)
>>> word(" Executor "), word(KeyError), word(3)
('executor', 'keyerror', None)
>>> sorted(ids([" S1", "S2 "])), sorted(ids("S3")), sorted(ids("S1, S3 S4"))
(['S1', 'S2'], ['S3'], ['S1', 'S3', 'S4'])
>>> sorted(words("model calls, Input-Tokens")), sorted(words((x for x in ["cost", " TIME "])))
(['input_tokens', 'model_calls'], ['cost', 'time'])
>>> words({"cost": 1}).why
'a dict; give the names as a list or a set'
>>> sorted(in_plan(ids(["s1", "S3"]), ["S0", "S1", "S3"]))
['S1', 'S3']
>>> ids({"S1", "S2"}, ordered=True).why
'a set has no order: give the steps as a list, first to last'
>>> from planviz import examples, simulate
>>> stop_reason(simulate(examples.load("release_no_credentials")))[:33]
'refused: the plan is refused befo'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable

from planviz.errors import show_value
from planviz.plan.model import Step
from planviz.runs.events import Run

__all__ = [
    "number",
    "word",
    "same_word",
    "ids",
    "id_of",
    "Unreadable",
    "unreadable",
    "stop_reason",
    "same_step",
    "in_plan",
    "words",
    "whole_number",
    "short",
]


@dataclass(frozen=True)
class Unreadable:
    """An answer of the wrong type or form: ``why`` says what it is, to show the student."""

    why: str

    def __bool__(self) -> bool:
        return False


def unreadable(value: Any) -> bool:
    """True when a reader could not read the answer (its result is an :class:`Unreadable` or None)."""
    return value is None or isinstance(value, Unreadable)


def number(value: Any, unit: str | None = None) -> float | None:
    """A finite number from a student's answer (a number or its text, surrounding spaces allowed), else None.

    ``True`` and ``False`` are not numbers here, though Python counts them as 1 and 0. With ``unit`` (a
    plan's ``time_unit``), text may name it after the number: "30 min", "30 minutes", "2h".

    >>> number(" 30 "), number("30 min", "min"), number("2 hours", "h"), number("30 h", "min"), number("30 min")
    (30.0, 30.0, 2.0, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if unit is not None:
            found = re.fullmatch(r"(.*?\d\.?)\s*([a-zA-Z]+)\.?", value)
            if found and found[2].lower() in _spellings(unit):
                value = found[1]
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return out if math.isfinite(out) else None


_UNITS = (
    ("min", "mins", "minute", "minutes", "m"),
    ("h", "hr", "hrs", "hour", "hours"),
    ("s", "sec", "secs", "second", "seconds"),
    ("ms", "millisecond", "milliseconds"),
    ("d", "day", "days"),
)


def _spellings(unit: str) -> frozenset[str]:
    """The ways an answer may write ``unit`` (a plan's time unit) after a number."""
    unit = unit.strip().lower()
    return frozenset(next((names for names in _UNITS if unit in names), (unit, unit + "s")))


def whole_number(value: Any) -> int | None:
    """A whole number from an answer (``3``, ``3.0``, ``"3"``), else None."""
    out = number(value)
    return int(out) if out is not None and out == int(out) else None


def _plain(value: Any) -> Any:
    """A str subclass read as the plain text it holds: its own ``==``, ``strip`` or ``lower`` never decide a
    verdict (a str equal to every string is a cheat, not an answer)."""
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def word(value: Any) -> str | None:
    """A word from an answer, stripped and lower case; a class or an exception gives its name; else None."""
    value = _plain(value)
    if isinstance(value, type):
        return value.__name__.lower()
    if isinstance(value, BaseException):
        return type(value).__name__.lower()
    if isinstance(value, str):
        text = re.sub(r"^(?:the|an|a)\s+(?=\S)", "", value.strip().lower()).rstrip(".!;").strip()
        return text or None
    return None


def same_word(value: Any, expected: str) -> bool:
    """True when ``value`` reads as ``expected`` (case, spaces, underscores and hyphens aside).

    >>> same_word(" Plan_Complete", "plan_complete"), same_word("plan complete", "plan_complete")
    (True, True)
    >>> same_word("the executor", "executor"), same_word("Executor.", "executor"), same_word("planner", "executor")
    (True, True, False)
    """
    got = word(value)
    return got is not None and _squash(got) == _squash(expected)


def words(value: Any) -> frozenset[str] | Unreadable:
    """Names from an answer (facts, figures), each as :func:`same_word` reads it: lower case, spaces and hyphens as
    ``_``. A string holds them separated by commas (or, with none, by spaces); any other collection is read once
    (a generator is fine). A dict or a non-name gives an :class:`Unreadable` saying why."""
    value = _plain(value)
    if isinstance(value, str):
        parts = value.split(",") if "," in value else value.split()
        value = [p for p in parts if p.strip()]
    if isinstance(value, dict) or type(value).__name__ in ("dict_values", "dict_items"):
        return Unreadable("a dict; give the names as a list or a set")
    if not isinstance(value, Iterable) or isinstance(value, (bytes, bytearray)):
        return Unreadable(
            f"expected names (a list such as ['a', 'b']), got {type(value).__name__} {short(value)}"
        )
    out = set()
    for item in value:
        got = word(item) if isinstance(item, str) else None
        if got is None:
            return Unreadable(f"{short(item)} is not a name: give names as strings")
        out.add(_squash(got))
    return frozenset(out)


def _squash(text: str) -> str:
    return re.sub(r"[\s_\-]+", "_", text.strip().lower())


def id_of(value: Any) -> str | Unreadable:
    """One step id from an answer: a string (stripped); a :class:`~planviz.Step` is refused with the fix."""
    value = _plain(value)
    if isinstance(value, Step):
        return Unreadable(f"that is the Step object {value.id!r}; give its id: step.id")
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, str):
        return Unreadable("an empty string is not a step id")
    return Unreadable(
        f"expected a step id (a string such as 'S1'), got {type(value).__name__} {short(value)}"
    )


def ids(value: Any, *, ordered: bool = False) -> frozenset[str] | tuple[str, ...] | Unreadable:
    """Step ids from an answer: a frozenset, or with ``ordered`` a tuple in the student's order.

    A string reads as ids separated by commas or spaces (``"S1, S3"``); ordered, a string such as
    ``"S0 -> S1 -> S3"`` reads as a path. Step objects, non-strings and (when
    ``ordered``) sets and dicts give an :class:`Unreadable` saying why.
    """
    value = _plain(value)
    if isinstance(value, Step):
        return Unreadable("that is a Step object; give step ids (step.id)")
    if isinstance(value, str):
        found = (
            tuple(re.findall(r"[A-Za-z0-9_.:\-]+", value))
            if ordered
            else tuple(x for x in re.split(r"[\s,;]+", value.strip()) if x) or ("",)
        )
        found = tuple(x for x in found if x and x not in ("->", "-"))
        if not all(found):
            return Unreadable("an empty string is not a step id")
        return found if ordered else frozenset(found)
    if (
        ordered
        and isinstance(value, (set, frozenset, dict))
        or ordered
        and type(value).__name__ in ("dict_keys",)
    ):
        return Unreadable("a set has no order: give the steps as a list, first to last")
    if not isinstance(value, Iterable) or isinstance(value, (bytes, bytearray)):
        return Unreadable(
            f"expected step ids (a {'list' if ordered else 'set'} such as ['S0', 'S1']), got "
            f"{type(value).__name__} {short(value)}"
        )
    items = []
    for item in value:
        one = id_of(item)
        if isinstance(one, Unreadable):
            return Unreadable(
                one.why
                if isinstance(item, Step)
                else f"{short(item)} is not a step id: give step ids such as 'S1'"
            )
        items.append(one)
    return tuple(items) if ordered else frozenset(items)


def same_step(
    value: Any, expected: str, plan_ids: Iterable[str] = (), version: int | None = None
) -> bool:
    """True when ``value`` names step ``expected``, or the revision of it that runs next (``"S1.v2"`` for ``S1``).

    A revision id is accepted only when it is not a step of the plan in its own right (``plan_ids``), and, when
    ``version`` (the version that runs next) is given, only with that number: ``"S1.v3"`` never ran after v1.
    """
    got = id_of(value)
    if isinstance(got, Unreadable):
        return False
    if (
        got == expected
        or got.lower() == expected.lower()
        and expected.lower() not in {i.lower() for i in plan_ids if i != expected}
    ):
        return True
    match = re.fullmatch(r"(.+)\.v(\d+)", got, re.I)
    return (
        match is not None
        and match.group(1).lower() == expected.lower()
        and got not in set(plan_ids)
        and (version is None or int(match.group(2)) == version)
    )


def in_plan(got: Any, plan_ids: Iterable[str]) -> Any:
    """``got`` (a tuple or frozenset of ids read by :func:`ids`) with each id spelled as the plan spells it,
    when they differ only in case and the plan has no other step of that spelling (``"s1"`` for ``S1``).
    Anything else is returned as it is."""
    if not isinstance(got, (tuple, frozenset)):
        return got
    by_lower: dict[str, list[str]] = {}
    for pid in plan_ids:
        by_lower.setdefault(pid.lower(), []).append(pid)

    def spell(sid: str) -> str:
        found = by_lower.get(sid.lower(), [])
        return sid if sid in found or len(found) != 1 else found[0]

    out = (spell(x) for x in got)
    return tuple(out) if isinstance(got, tuple) else frozenset(out)


def stop_reason(run: Run) -> str:
    """The run's outcome and why, as its stop event says it (``outcome: message``)."""
    message = run.events[-1].message if run.events else ""
    return message if message.startswith(str(run.outcome)) else f"{run.outcome}: {message}"


def short(value: Any) -> str:
    """``repr(value)`` cut to 60 characters, safe for any object a student passes (errors.show_value)."""
    return show_value(value, 57)
