"""The teacher's answer bank (tests/teaching/bank/): at least 25 answers for every check of every lesson, of
every family, and each gets the verdict the teacher wrote down."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter

import pytest

import planviz.teaching
from tests.teaching.bank import Answer

LESSONS = sorted(
    m.name for m in pkgutil.iter_modules(planviz.teaching.__path__) if m.name.startswith("lesson")
)
BANKS = sorted(
    m.name for m in pkgutil.iter_modules(importlib.import_module("tests.teaching.bank").__path__)
)

#: the checks that take the student's own function and compare it with the library's on random plans
BUILD_ITS = {
    "lesson01.check_ancestors",
    "lesson01.check_topological_order",
    "lesson02b.check_grade",
    "lesson03.check_critical_path",
    "lesson03.check_ready_waves",
    "lesson04.check_failure_scope",
    "lesson05.check_invariants",
    "lesson06.check_reachable",
    "lesson07.check_reissue",
}
ROUTES = {"cheat:import", "cheat:getattr", "cheat:importlib", "cheat:stored", "cheat:hardcoded"}


def checks() -> dict[str, object]:
    """Every ``check_*`` function defined in a lesson module, by ``lessonNN.check_name``."""
    out = {}
    for lesson in LESSONS:
        module = importlib.import_module(f"planviz.teaching.{lesson}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("check_") and fn.__module__ == module.__name__:
                out[f"{lesson}.{name}"] = fn
    return out


def bank() -> dict[str, list[Answer]]:
    out: dict[str, list[Answer]] = {}
    for name in BANKS:
        for check, answers in importlib.import_module(f"tests.teaching.bank.{name}").BANK.items():
            out.setdefault(check, []).extend(answers)
    return out


CHECKS = checks()
BANK = bank()


def test_the_bank_names_only_checks_that_exist():
    assert set(BANK) <= set(CHECKS), sorted(set(BANK) - set(CHECKS))
    assert BUILD_ITS <= set(CHECKS)
    assert len(CHECKS) >= 45  # lesson01 .. lesson09 and lesson02b


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_every_check_has_at_least_25_answers_of_every_family(check):
    families = Counter(answer.family for answer in BANK.get(check, []))
    cheats = sum(n for family, n in families.items() if family.startswith("cheat:"))
    short = [f"{sum(families.values())} answers (25 wanted)"] if sum(families.values()) < 25 else []
    short += [
        f"{n} {family} ({k} wanted)"
        for family, k in (("right", 1), ("form", 3), ("wrong", 3))
        if (n := families[family]) < k
    ]
    short += [f"{cheats} cheats (3 wanted)"] if cheats < 3 else []
    if check in BUILD_ITS:
        short += [f"no {route}" for route in sorted(ROUTES - set(families))]
    assert not short, f"{check}: " + "; ".join(short)


CASES = [
    (check, i, answer)
    for check, answers in sorted(BANK.items())
    for i, answer in enumerate(answers)
]


@pytest.mark.parametrize(
    "check, i, answer", CASES, ids=[f"{c}-{i}-{a.family}" for c, i, a in CASES]
)
def test_the_bank_gets_the_verdicts_the_teacher_wrote(check, i, answer):
    args, kwargs = answer.call()
    feedback = CHECKS[check](*args, **kwargs)
    assert feedback.passed is answer.passed, (
        f"{check} [{answer.family}] {answer.why}: {feedback.message}"
    )
