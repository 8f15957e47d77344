"""Notebook 02b's answers: a plan graded badly though well formed, what prepare does to five plans, the grading
build-it, placeholders resolved at run time."""

from __future__ import annotations

from dataclasses import replace

import planviz
from planviz.teaching.cases import grade_cases
from tests.teaching import test_lesson02 as t02, test_lesson02b as t02b
from tests.teaching.bank import (
    Anything,
    a,
    build_it,
    build_it_forms,
    harvest,
    library_cheats,
    lookups,
    value_cheats,
)
from tests.teaching.test_lesson02 import PLAN, RIGHT_GATES

# exercise 1: two milestones of four, well formed, in an order that cannot work
OUT_OF_ORDER = PLAN.replace(steps=[PLAN.step("S0"), replace(PLAN.step("S3"), depends_on=())])
EX1 = [
    a("right", "reproduce and the patch, no edge", plan=OUT_OF_ORDER),
    *harvest(
        t02.test_02b_exercise_1_right,
        "form",
        lambda steps: (
            (PLAN.replace(steps=[replace(PLAN.step(s), depends_on=()) for s in steps]),),
            {},
        ),
    ),
    a("form", "positional", OUT_OF_ORDER),
    a(
        "form",
        "the patch first in the file",
        PLAN.replace(steps=[replace(PLAN.step("S3"), depends_on=()), PLAN.step("S0")]),
    ),
    *harvest(t02.test_02b_exercise_1_wrong, "wrong", lambda plan, says: ((plan,), {})),
    a("wrong", "the plan unchanged but for one step dropped", PLAN.replace(steps=PLAN.steps[:-1])),
    a("wrong", "three steps in order", PLAN.replace(steps=PLAN.steps[:3])),
    a("wrong", "a list of steps", [PLAN.step("S0"), PLAN.step("S3")]),
    a("wrong", "an empty plan", PLAN.replace(steps=())),
    a("wrong", "the diagnosis and the verification, in order", PLAN.replace(steps=PLAN.steps[1:2])),
    a("wrong", "a plan of another example", planviz.examples.load("release_no_credentials")),
    a("wrong", "a dict of steps", {"S0": PLAN.step("S0")}),
    a("cheat:identity", "an object equal to everything", Anything()),
    a(
        "cheat:identity",
        "the patch renamed with the milestone's kind dropped",
        PLAN.replace(
            steps=[PLAN.step("S0"), replace(PLAN.step("S3"), id="P", kind="", depends_on=())]
        ),
    ),
    a(
        "cheat:vacuous",
        "the steps with no evidence, so not well formed",
        PLAN.replace(
            steps=[PLAN.step("S0"), replace(PLAN.step("S3"), depends_on=(), expected_evidence="")]
        ),
    ),
    a(
        "cheat:hardcoded",
        "the notebook's half plan",
        PLAN.replace(steps=[PLAN.step("S0"), PLAN.step("S1")]),
    ),
]

EX2 = [
    a("right", "five plans the table did not gate", RIGHT_GATES),
    *harvest(
        t02.test_02b_exercise_2_reads_a_prediction_in_any_form,
        "form",
        lambda form: (
            ({**RIGHT_GATES, "checklist, strict": (*RIGHT_GATES["checklist, strict"][:2], form)},),
            {},
        ),
    ),
    a(
        "form",
        "other names for the plans",
        {f"plan {i}": v for i, v in enumerate(RIGHT_GATES.values())},
    ),
    a("form", "keyword", predictions=RIGHT_GATES),
    a("form", "lists for tuples", {k: list(v) for k, v in RIGHT_GATES.items()}),
    *harvest(
        t02.test_02b_exercise_2_wrong, "wrong", lambda predictions, says: ((predictions,), {})
    ),
    a("wrong", "a tuple of the five", tuple(RIGHT_GATES.values())),
    a("wrong", "every prediction 'runs'", {k: (*v[:2], "runs") for k, v in RIGHT_GATES.items()}),
    a(
        "cheat:everything",
        "every prediction every outcome",
        {k: (*v[:2], "runs or SchemaError") for k, v in RIGHT_GATES.items()},
    ),
    a(
        "cheat:hardcoded",
        "the same plan five times under five names",
        {f"p{i}": RIGHT_GATES["cycle through S0"] for i in range(5)},
    ),
    *value_cheats(lambda v: ((v,), {})),
    a(
        "cheat:identity",
        "predictions equal to everything",
        {k: (*v[:2], Anything()) for k, v in RIGHT_GATES.items()},
    ),
]


def _grader(
    by_id=True,
    by_kind=True,
    empty=1.0,
    self_counts=False,
    direct_only=False,
    pairs=list,
    text=False,
):
    """A grade_it written in several ways; each flag off is a wrong rule of its own."""

    def grade_it(plan, contract):
        steps = {s.id: s for s in plan.steps}

        def named(name):
            return {
                sid
                for sid, s in steps.items()
                if (by_id and sid == name) or (by_kind and s.kind == name)
            }

        def ancestors(sid):
            seen, todo = set(), list(steps[sid].depends_on)
            while todo:
                x = todo.pop()
                if x not in seen:
                    seen.add(x)
                    if not direct_only:
                        todo.extend(steps[x].depends_on)
            return seen

        required = list(contract.required)
        recall = sum(1 for r in required if named(r)) / len(required) if required else empty
        bad = {
            (x, y)
            for x, y in contract.must_precede
            if any(
                not ((named(x) if self_counts else named(x) - {sid}) & ancestors(sid))
                for sid in named(y)
            )
        }
        return (f"{recall}" if text else recall), pairs(bad)

    return grade_it


def _divides_by_zero(plan, contract):
    return (
        _grader(empty=None)(plan, contract)
        if contract.required
        else (1 / len(contract.required), set())
    )


GRADE = [
    build_it("grade", "02b_planner_outputs_and_grading.py", "grade_it"),
    *build_it_forms("grade", "02b_planner_outputs_and_grading.py", "grade_it"),
    a("form", "violations as a list", _grader()),
    a("form", "violations as a set of lists", _grader(pairs=lambda s: [list(p) for p in s])),
    a("form", "recall as text", _grader(text=True, pairs=set)),
    a("form", "violations as a sorted tuple", _grader(pairs=lambda s: tuple(sorted(s)))),
    a("form", "a list for the pair", lambda p, c: list(_grader(pairs=set)(p, c))),
    a("wrong", "matches by kind only", _grader(by_id=False)),
    a("wrong", "matches by id only", _grader(by_kind=False)),
    a("wrong", "recall 0 when nothing is required", _grader(empty=0.0)),
    a("wrong", "divides by zero when nothing is required", _divides_by_zero),
    a("wrong", "direct parents only", _grader(direct_only=True)),
    a(
        "wrong",
        "a recall as a percentage",
        lambda p, c: (100 * _grader(pairs=set)(p, c)[0], _grader()(p, c)[1]),
    ),
    a("wrong", "no violations ever", lambda p, c: (_grader()(p, c)[0], set())),
    a("wrong", "every pair violated", lambda p, c: (_grader()(p, c)[0], set(c.must_precede))),
    a("wrong", "returns a dict", lambda p, c: {"recall": _grader()(p, c)[0]}),
    a("wrong", "raises", lambda p, c: p.missing),
    a("wrong", "no answer", None),
    *library_cheats("grade"),
    a(
        "cheat:importlib",
        "grade by importlib",
        t02b
        and __import__("tests.teaching.test_unplugged", fromlist=["_grade"])._grade(
            lambda p, c: __import__("importlib").import_module("planviz.checks.grading").grade(p, c)
        ),
    ),
    a(
        "cheat:hardcoded",
        "the notebook's half plan's grade for every plan",
        lambda p, c: (0.5, set()),
    ),
]

_CHEAT3 = {
    "everything ok": "cheat:everything",
    "everything refused": "cheat:everything",
    "a catch-all": "cheat:everything",
    "both codes at once": "cheat:everything",
    "the cases themselves": "cheat:identity",
}
EX3 = [
    a(
        "right" if i == 0 else "form" if verdict else _CHEAT3.get(name, "wrong"),
        f"test_lesson02b: {name}",
        answer,
    )
    for i, (name, answer, verdict) in enumerate(t02b.BANK)
]
EX3 += [
    *value_cheats(lambda v: ((v,), {})),
    a(
        "cheat:identity",
        "each case an object equal to everything",
        {k: Anything() for k in t02b.RIGHT},
    ),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
GRADE += lookups(
    grade_cases,
    lambda plan, contract: (
        (g := planviz.grade(plan, contract)).required_recall,
        set(g.order_violations),
    ),
)

BANK = {
    "lesson02b.check_exercise_1": EX1,
    "lesson02b.check_exercise_2": EX2,
    "lesson02b.check_grade": GRADE,
    "lesson02b.check_exercise_3": EX3,
}
