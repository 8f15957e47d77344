"""Notebook 02's exercise 5, the node contract's five fields: a teacher's answer bank, each answer with its verdict.

The truth is read here from ``validate`` on the cache plan with the field emptied (not from the check), and the
bank holds right answers in several forms, wrong ones, and cheats (every case the same, a catch-all word, the
cases themselves, a different container)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz.teaching.lesson02 import CONTRACT_CASES, CONTRACT_FIELDS, check_exercise_5

PLAN = planviz.examples.load("cache_isolation")


def _truth(field, risk):
    plan = PLAN
    if risk == "high":
        plan = plan.replace(
            steps=tuple(
                replace(s, risk="high", approval="team lead") if s.id == "S3" else s
                for s in plan.steps
            )
        )
    emptied = tuple(
        replace(s, **{field: "" if isinstance(getattr(s, field), str) else ()})
        if s.id == "S3"
        else s
        for s in plan.steps
    )
    return set(planviz.validate(plan.replace(steps=emptied), PLAN.contract).codes)


RIGHT = {
    "no requires": set(),
    "no produces": {"unmet_requirement", "no_artifact"},
    "no expected_evidence": {"no_evidence"},
    "no check": {"no_check"},
    "no rollback": set(),
    "no rollback, high risk": {"high_risk_unguarded"},
}


def test_the_cases_cover_the_five_fields_and_the_bank_is_what_validate_says():
    assert {field for field, _ in CONTRACT_CASES.values()} == set(CONTRACT_FIELDS) and len(
        CONTRACT_FIELDS
    ) == 5
    assert {name: _truth(*case) for name, case in CONTRACT_CASES.items()} == RIGHT
    # the lesson: the most expensive omission is the silent one
    assert RIGHT["no requires"] == set()


def _with(**changes):
    return {**RIGHT, **changes}


BANK = [
    # right, in several forms
    ("sets", RIGHT, True),
    ("lists", {k: sorted(v) for k, v in RIGHT.items()}, True),
    ("tuples", {k: tuple(v) for k, v in RIGHT.items()}, True),
    ("texts", {k: " ".join(sorted(v)) for k, v in RIGHT.items()}, True),
    (
        "commas and case",
        {k: ", ".join(c.upper() for c in sorted(v)) for k, v in RIGHT.items()},
        True,
    ),
    ("None for nothing", _with(**{"no requires": None, "no rollback": None}), True),
    ("'none' for nothing", _with(**{"no requires": "none", "no rollback": "nothing"}), True),
    ("frozensets", {k: frozenset(v) for k, v in RIGHT.items()}, True),
    ("keys in any case", {k.upper(): v for k, v in RIGHT.items()}, True),
    ("keys with spaces", {f" {k} ": v for k, v in RIGHT.items()}, True),
    # wrong
    ("requires is not silent", _with(**{"no requires": {"unmet_requirement"}}), False),
    ("produces only the warning", _with(**{"no produces": {"no_artifact"}}), False),
    ("produces only the error", _with(**{"no produces": {"unmet_requirement"}}), False),
    ("evidence as a warning code", _with(**{"no expected_evidence": {"no_check"}}), False),
    ("check as vacuous", _with(**{"no check": {"vacuous_check"}}), False),
    ("rollback always matters", _with(**{"no rollback": {"high_risk_unguarded"}}), False),
    ("high risk silent", _with(**{"no rollback, high risk": set()}), False),
    ("a case missing", {k: v for k, v in RIGHT.items() if k != "no check"}, False),
    ("an unknown code", _with(**{"no check": {"missing_check"}}), False),
    # cheats
    ("every code everywhere", {k: set().union(*RIGHT.values()) for k in RIGHT}, False),
    ("nothing anywhere", {k: set() for k in RIGHT}, False),
    ("a catch-all word", {k: "any" for k in RIGHT}, False),
    ("the cases themselves", dict(CONTRACT_CASES), False),
    ("a list of sets", list(RIGHT.values()), False),
    ("an extra case", _with(**{"no action": {"no_action"}}), False),
    ("a function", lambda: RIGHT, False),
    ("the placeholder", {k: ... for k in RIGHT}, False),
    ("nothing", ..., False),
    ("codes as numbers", {k: {1, 2} for k in RIGHT}, False),
]


@pytest.mark.parametrize("name, answer, verdict", BANK, ids=[row[0] for row in BANK])
def test_answer_bank(name, answer, verdict):
    feedback = check_exercise_5(answer)
    assert bool(feedback) is verdict, feedback.message
    if not verdict:  # a wrong answer is told what is off, never which codes are right
        assert feedback.hint and "no_artifact" not in feedback.message + feedback.hint


def test_the_bank_is_big_enough():
    assert len(BANK) >= 25
