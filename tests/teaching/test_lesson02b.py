"""Notebook 02b's exercise 3, placeholders resolved at run time: a teacher's answer bank, each with its verdict.

The truth is read here from ``validate`` on the fixed purge plan (R4 after R3 and R5) with R4's arguments
replaced, never from the check."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz.teaching.lesson02 import purge_contract
from planviz.teaching.lesson02b import PLACEHOLDER_CASES, check_exercise_3, fixed_purge


def _truth(arguments):
    plan = fixed_purge()
    plan = plan.replace(
        steps=tuple(replace(s, arguments=arguments) if s.id == "R4" else s for s in plan.steps)
    )
    codes = {f.code for f in planviz.validate(plan, purge_contract()).findings}
    # each case breaks one thing at most
    assert codes <= {"bad_placeholder", "bad_arguments"}, codes
    return min(codes) if codes else "ok"


RIGHT = {
    "as written": "ok",
    "spaces": "ok",
    "in a sentence": "ok",
    "an earlier step": "ok",
    "twice": "ok",
    "no such step": "bad_placeholder",
    "a later step": "bad_placeholder",
    "its own output": "bad_placeholder",
    "lower case": "bad_placeholder",
    "a number": "bad_arguments",
    "a literal id": "ok",
}


def test_the_fixed_purge_validates_and_the_bank_is_what_validate_says():
    assert planviz.validate(fixed_purge(), purge_contract()).findings == ()
    assert {name: _truth(args) for name, args in PLACEHOLDER_CASES.items()} == RIGHT
    # every verdict is needed
    assert set(RIGHT.values()) == {
        "ok",
        "bad_placeholder",
        "bad_arguments",
    }


def _with(**changes):
    return {**RIGHT, **changes}


BANK = [
    # right, in several forms
    ("words", RIGHT, True),
    ("upper case", {k: v.upper() for k, v in RIGHT.items()}, True),
    ("spaces for underscores", {k: v.replace("_", " ") for k, v in RIGHT.items()}, True),
    ("None for ok", {k: (None if v == "ok" else v) for k, v in RIGHT.items()}, True),
    ("'none' for ok", {k: ("none" if v == "ok" else v) for k, v in RIGHT.items()}, True),
    ("padded", {k: f"  {v} " for k, v in RIGHT.items()}, True),
    ("keys in any case", {k.title(): v for k, v in RIGHT.items()}, True),
    ("True for ok", {k: (True if v == "ok" else v) for k, v in RIGHT.items()}, True),
    # wrong
    ("the field is checked", _with(**{"an earlier step": "bad_placeholder"}), False),
    ("spaces break it", _with(spaces="bad_placeholder"), False),
    ("a sentence breaks it", _with(**{"in a sentence": "bad_arguments"}), False),
    ("a missing step is a type error", _with(**{"no such step": "bad_arguments"}), False),
    ("a later step is fine", _with(**{"a later step": "ok"}), False),
    ("twice is refused", _with(twice="bad_placeholder"), False),
    ("its own output is fine", _with(**{"its own output": "ok"}), False),
    ("ids ignore case", _with(**{"lower case": "ok"}), False),
    ("a number fits", _with(**{"a number": "ok"}), False),
    ("a number is a placeholder error", _with(**{"a number": "bad_placeholder"}), False),
    ("a literal is refused", _with(**{"a literal id": "bad_arguments"}), False),
    ("a case missing", {k: v for k, v in RIGHT.items() if k != "a number"}, False),
    # cheats
    ("everything ok", {k: "ok" for k in RIGHT}, False),
    ("everything refused", {k: "bad_placeholder" for k in RIGHT}, False),
    ("a catch-all", {k: "error" for k in RIGHT}, False),
    ("both codes at once", {k: "bad_placeholder or bad_arguments" for k in RIGHT}, False),
    ("the cases themselves", dict(PLACEHOLDER_CASES), False),
    ("a list", list(RIGHT.values()), False),
    ("an extra case", _with(**{"a dict": "ok"}), False),
    ("a function", lambda: RIGHT, False),
    ("the placeholder", {k: ... for k in RIGHT}, False),
    ("nothing", ..., False),
    ("numbers", {k: 0 for k in RIGHT}, False),
]


@pytest.mark.parametrize("name, answer, verdict", BANK, ids=[row[0] for row in BANK])
def test_answer_bank(name, answer, verdict):
    feedback = check_exercise_3(answer)
    assert bool(feedback) is verdict, feedback.message
    if not verdict:
        assert feedback.hint


def test_the_bank_is_big_enough():
    assert len(BANK) >= 25
