"""Notebook 02's checks (and 02b's grading exercises 1 and 2, which were 02's 3 and 4): each accepts a
right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz import Contract, Plan, Step
from planviz.teaching.lesson02 import (
    VACUOUS_CASES,
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_exercise_4,
    purge_contract,
)
from planviz.teaching.lesson02b import (
    check_exercise_1 as grading_exercise_1,
    check_exercise_2 as grading_exercise_2,
    milestone_contract,
)

PLAN = planviz.examples.load("cache_isolation")
CONTRACT = PLAN.contract
STRICT = milestone_contract(CONTRACT)
RELEASE = planviz.examples.load("release_no_credentials")


def edit(plan, sid, **changes):
    return plan.replace(
        steps=tuple(replace(s, **changes) if s.id == sid else s for s in plan.steps)
    )


def test_the_strict_contract_gives_the_notebooks_contrast():
    """Recall 1.0 with three order violations (the checklist) against 0.5 with none (the half plan)."""
    checklist = PLAN.replace(steps=[replace(s, depends_on=()) for s in PLAN.steps])
    half = PLAN.replace(steps=PLAN.steps[:2])
    assert (
        planviz.grade(checklist, STRICT).required_recall,
        len(planviz.grade(checklist, STRICT).order_violations),
    ) == (1.0, 3)
    assert (
        planviz.grade(half, STRICT).required_recall,
        planviz.grade(half, STRICT).order_violations,
    ) == (0.5, ())


@pytest.mark.parametrize(
    "codes",
    [
        {"unmet_requirement", "order_violation"},
        "order_violation, unmet_requirement",
        ["order_violation", "unmet_requirement"],
    ],
)
def test_exercise_1_right(codes):
    assert check_exercise_1(codes)


@pytest.mark.parametrize(
    "codes, says",
    [
        ({"unmet_requirement"}, "1 code(s) missing, in the semantics layer"),
        ({"unmet_requirement", "order_violation", "dead_end"}, "dead_end is not reported"),
        ({"unmet_requirement", "cycles"}, "'cycles' is not a finding code"),
        (42, "expected a set of finding codes"),
        (..., "no answer yet"),
    ],
)
def test_exercise_1_wrong(codes, says):
    feedback = check_exercise_1(codes)
    assert not feedback and says in feedback.message and feedback.hint
    assert "order_violation" not in feedback.message + feedback.hint


def test_exercise_2_right():
    assert check_exercise_2("semantics", "order_violation")


@pytest.mark.parametrize(
    "layer, code, says",
    [
        ("semantics", "unmet_requirement", "not the new finding"),
        ("static", "order_violation", "not reported by the 'static' layer"),
        ("semantics", "ordering", "not a finding code"),
        (None, "order_violation", "no answer yet"),
    ],
)
def test_exercise_2_wrong(layer, code, says):
    feedback = check_exercise_2(layer, code)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize("steps", [["S0", "S3"], ["S3", "S4"], ["S1", "S3"], ["S0", "S4"]])
def test_02b_exercise_1_right(steps):
    plan = PLAN.replace(steps=[replace(PLAN.step(s), depends_on=()) for s in steps])
    assert grading_exercise_1(plan)


@pytest.mark.parametrize(
    "plan, says",
    [
        (PLAN, "recall 1.00"),
        (PLAN.replace(steps=PLAN.steps[:1]), "recall 0.25"),
        # shown before it
        (
            PLAN.replace(steps=[PLAN.step("S0"), PLAN.step("S1")]),
            "that is the half plan's grade",
        ),
        (
            PLAN.replace(steps=[replace(PLAN.step(s), depends_on=()) for s in ("S0", "S1")]),
            "no order violation",
        ),
        (
            PLAN.replace(
                steps=[PLAN.step("S0"), Step("X", "patch it", kind="patch", expected_evidence="")]
            ),
            "not well formed: no_evidence",
        ),
        ("S0, S1", "expected a planviz Plan"),
        (None, "no answer yet"),
    ],
)
def test_02b_exercise_1_wrong(plan, says):
    feedback = grading_exercise_1(plan)
    assert not feedback and says in feedback.message and feedback.hint


RIGHT_GATES = {  # five plans the notebook's table did not gate
    "cycle through S0": (edit(PLAN, "S0", depends_on=["S4"]), CONTRACT, "SchemaError"),
    "nothing obtainable": (PLAN, replace(CONTRACT, obtainable_facts=()), "PlanningFailure"),
    "cheat, no contract": (planviz.examples.load("delete_failing_test"), None, "SemanticError"),
    "vouched, no contract": (
        RELEASE.replace(premises=RELEASE.premises + ("deploy_credentials",), contract=None),
        None,
        "runs",
    ),
    "checklist, strict": (
        PLAN.replace(steps=[replace(s, depends_on=()) for s in PLAN.steps]),
        STRICT,
        "SemanticError",
    ),
}
TABLE_ORIGINAL = (PLAN, CONTRACT, "runs")


def test_02b_exercise_2_right():
    assert grading_exercise_2(RIGHT_GATES)


@pytest.mark.parametrize(
    "predictions, says",
    [
        (
            {
                **RIGHT_GATES,
                "nothing obtainable": (
                    PLAN,
                    replace(CONTRACT, obtainable_facts=()),
                    "SemanticError",
                ),
            },
            "'nothing obtainable': prepare does not give",
        ),
        (
            {
                **RIGHT_GATES,
                "cheat, no contract": (planviz.examples.load("delete_failing_test"), None, "runs"),
            },
            "'cheat, no contract': prepare does not give",
        ),
        (
            {k: v for k, v in RIGHT_GATES.items() if k != "nothing obtainable"},
            "4 plan(s); the exercise asks for five",
        ),
        (
            {
                **{k: v for k, v in RIGHT_GATES.items() if k != "nothing obtainable"},
                "again": RIGHT_GATES["cycle through S0"],
            },
            "the same plan and contract as another entry",
        ),
        (
            {**RIGHT_GATES, "cycle through S0": (PLAN, CONTRACT, "refused")},
            "'refused' is not one of",
        ),
        (
            {**RIGHT_GATES, "cycle through S0": (PLAN, "contract.yaml", "runs")},
            "not (plan, contract, prediction)",
        ),
        ({"cycle": (PLAN, CONTRACT, ...)}, "no answer yet"),
        ({}, "no answer yet"),
        ([("a", PLAN)], "expected a dict"),
        # the table's own plans are not the five the exercise asks for
        (
            {
                "original": TABLE_ORIGINAL,
                "release": (RELEASE, RELEASE.contract, "PlanningFailure"),
                "cycle": (edit(PLAN, "S1", depends_on=["S0", "S4"]), CONTRACT, "SchemaError"),
                "cheat": (
                    planviz.examples.load("delete_failing_test"),
                    planviz.examples.load("delete_failing_test").contract,
                    "SemanticError",
                ),
                "forgot": (edit(PLAN, "S3", depends_on=["S1"]), CONTRACT, "SemanticError"),
            },
            "a plan the table above already gated",
        ),
        (
            {**RIGHT_GATES, "original": TABLE_ORIGINAL},
            "'original' is a plan the table above already gated",
        ),
    ],
)
def test_02b_exercise_2_wrong(predictions, says):
    feedback = grading_exercise_2(predictions)
    assert not feedback and says in feedback.message and feedback.hint


def test_02b_exercise_2_hint_says_warnings_never_refuse():
    clash = edit(
        edit(PLAN, "S1", resources=["c"], check="c holds S1's entry"),
        "S2",
        resources=["c"],
        check="c holds S2's entry",
    )
    feedback = grading_exercise_2({**RIGHT_GATES, "clash": (clash, CONTRACT, "SemanticError")})
    assert not feedback and "warnings never refuse" in feedback.hint


@pytest.mark.parametrize("form", ["semanticerror", " SemanticError ", planviz.SemanticError])
def test_02b_exercise_2_reads_a_prediction_in_any_form(form):
    """The exception class itself, or its name in any case with spaces around: the same prediction."""
    gates = dict(RIGHT_GATES)
    plan, contract, _ = gates["checklist, strict"]
    gates["checklist, strict"] = (plan, contract, form)
    assert grading_exercise_2(gates)


# --- exercise 3: predict what validate says of a check that may only say "ran" ---------------------------------

VACUOUS_RIGHT = {
    "S3 ran": "error",
    "S1 done": "warning",
    "S3 restated": "error",
    "S4 completed": "warning",
    "S3 applied": "error",
    "S3 compiles": None,
    "S4 both pass": None,
}


def test_the_vacuous_cases_are_what_validate_says():
    """The truth, from validate itself: error on the patch (it writes), warning where the step only reads."""
    for name, (sid, text) in VACUOUS_CASES.items():
        report = planviz.validate(edit(PLAN, sid, check=text), CONTRACT)
        found = [f.severity for f in report.findings if f.code == "vacuous_check"]
        assert (found[0] if found else None) == VACUOUS_RIGHT[name], name


@pytest.mark.parametrize(
    "predictions",
    [
        VACUOUS_RIGHT,
        {**VACUOUS_RIGHT, "S3 compiles": "none", "S4 both pass": "OK"},  # None as a word
        # keys and words in any case
        {f" {k.upper()} ": (v.title() if v else "") for k, v in VACUOUS_RIGHT.items()},
        {**VACUOUS_RIGHT, "S3 compiles": "no finding", "S4 both pass": False},
    ],
)
def test_exercise_3_right(predictions):
    assert check_exercise_3(predictions)


@pytest.mark.parametrize(
    "predictions, says",
    [
        ({k: "error" for k in VACUOUS_RIGHT}, "4 of 7 predictions differ"),  # one verdict for all
        ({k: None for k in VACUOUS_RIGHT}, "5 of 7 predictions differ"),  # nothing is vacuous
        # partial
        (
            {**VACUOUS_RIGHT, "S3 applied": None},
            "1 of 7 predictions differ from validate: 'S3 applied'",
        ),
        (
            {**VACUOUS_RIGHT, "S3 compiles": "error"},
            "1 of 7 predictions differ from validate: 'S3 compiles'",
        ),
        # severity by the words
        (
            {**VACUOUS_RIGHT, "S1 done": "error", "S4 completed": "error"},
            "2 of 7",
        ),
        ({**VACUOUS_RIGHT, "S3 ran": "warning"}, "'S3 ran'"),
        ({**VACUOUS_RIGHT, "S3 restated": None}, "'S3 restated'"),  # the action restated is caught
        ({**VACUOUS_RIGHT, "S4 both pass": "warning"}, "'S4 both pass'"),
        (
            {k: v for k, v in VACUOUS_RIGHT.items() if k != "S4 both pass"},
            "no prediction for 'S4 both pass'",
        ),
        ({**VACUOUS_RIGHT, "S5 ran": "error"}, "'S5 ran' is not one of the cases"),
        ({**VACUOUS_RIGHT, "S3 ran": "vacuous_check"}, "is not 'error', 'warning' or None"),
        ({**VACUOUS_RIGHT, "S3 ran": 1}, "is not 'error', 'warning' or None"),
        ({**VACUOUS_RIGHT, "S3 ran": ...}, "no answer yet"),
        ({}, "no answer yet"),
        (["error", "warning"], "expected a dict"),
        ({3: "error"}, "is not one of the cases"),
    ],
)
def test_exercise_3_wrong(predictions, says):
    feedback = check_exercise_3(predictions)
    assert not feedback and says in feedback.message and feedback.hint


def test_exercise_3_hints_at_the_step_when_only_the_severity_is_off():
    feedback = check_exercise_3({**VACUOUS_RIGHT, "S1 done": "error"})
    assert not feedback and "change the world" in feedback.hint


# --- exercise 4: the purge plan, fixed without touching the owner's contract -------------------------------------

AUDIT = Plan(
    "Report which tenants read another tenant's cache entries",
    [
        Step(
            "R1",
            "List the tenants",
            tool="list_tenants",
            produces=["tenants_listed"],
            duration=2,
            expected_evidence="a list of tenant ids",
        ),
        Step(
            "R2",
            "Read the cache access log",
            tool="read_log",
            depends_on="R1",
            requires="tenants_listed",
            produces=["log_read"],
            duration=5,
            expected_evidence="log lines per tenant",
        ),
        Step(
            "R3",
            "Find cross-tenant reads",
            tool="query_log",
            depends_on="R2",
            requires="log_read",
            produces=["leaks_found"],
            duration=4,
            expected_evidence="pairs of tenants",
        ),
        Step(
            "R4",
            "Purge the leaked entries",
            tool="purge_cache",
            depends_on="R3",
            requires="leaks_found",
            produces=["entries_purged"],
            duration=1,
            expected_evidence="a purge count",
            check="no leaked entry remains",
        ),
    ],
)
PURGE = AUDIT.replace(
    goal="Purge the cache entries one tenant read from another",
    steps=[
        *AUDIT.steps[:3],
        Step(
            "R5",
            "Snapshot the cache",
            tool="snapshot_cache",
            depends_on="R3",
            produces=["cache_snapshot"],
            duration=2,
            expected_evidence="a snapshot id",
            check="the snapshot lists every entry of the cache",
        ),
        replace(
            AUDIT.step("R4"),
            arguments={"pairs": "{{R3.pairs}}", "snapshot": "{{R5.snapshot_id}}"},
            check="done",
            rollback="restore the snapshot R5 took",
        ),
    ],
)
FIXED = edit(
    edit(PURGE, "R4", depends_on=["R3", "R5"]), "R4", check="no leaked entry remains in the cache"
)


def test_the_purge_plan_is_refused_for_three_reasons_before_step_1():
    report = planviz.validate(PURGE, purge_contract())
    assert sorted(f.code for f in report.errors) == [
        "bad_placeholder",
        "tool_precondition",
        "vacuous_check",
    ]
    assert planviz.validate(FIXED, purge_contract()).ok


def _renamed(plan, old, new):
    return plan.replace(
        steps=[
            replace(
                s,
                id=new if s.id == old else s.id,
                depends_on=[new if d == old else d for d in s.depends_on],
                arguments={k: v.replace(old + ".", new + ".") for k, v in s.arguments.items()},
            )
            for s in plan.steps
        ]
    )


@pytest.mark.parametrize(
    "plan",
    [
        FIXED,
        _renamed(FIXED, "R5", "SNAP"),  # another id
        # snapshot first, in parallel
        edit(edit(FIXED, "R5", depends_on=()), "R4", depends_on=["R5", "R3"]),
        # spaces
        edit(
            FIXED, "R4", arguments={"pairs": "{{ R3.pairs }}", "snapshot": "{{ R5.snapshot_id }}"}
        ),
        edit(FIXED, "R4", approval="cache owner"),  # more care than asked
        # the action's words and more
        edit(FIXED, "R4", check="purged entries: zero leaked entries remain"),
        # a contract in the plan: the owner's is used
        FIXED.replace(contract=Contract(intent="write")),
    ],
)
def test_exercise_4_right(plan):
    assert check_exercise_4(plan)


@pytest.mark.parametrize(
    "plan, says",
    [
        (PURGE, "only says the step ran"),  # as written
        (edit(PURGE, "R4", depends_on=["R3", "R5"]), "only says the step ran"),  # the edge only
        (
            edit(PURGE, "R4", check="no leaked entry remains in the cache"),
            "prepare refuses it: bad_placeholder",
        ),
        (edit(FIXED, "R4", check=""), "has no check"),  # no_check is only a warning
        # the action restated
        (
            edit(FIXED, "R4", check="Purge the leaked entries"),
            "only says the step ran",
        ),
        (edit(FIXED, "R4", check="Purged."), "only says the step ran"),  # the action's word
        # partly restated
        (
            edit(FIXED, "R4", check="done: purge the leaked entries"),
            "only says the step ran",
        ),
        # its id and 'applied'
        (
            edit(FIXED, "R4", check="R4 applied successfully"),
            "only says the step ran",
        ),
        # argument dropped
        (
            edit(FIXED, "R4", arguments={"pairs": "{{R3.pairs}}"}),
            "no longer names the snapshot",
        ),
        # the job dropped
        (
            PURGE.replace(steps=[s for s in PURGE.steps if s.id != "R4"]),
            "no longer purges",
        ),
        (edit(FIXED, "R4", tool="purge_cache_now"), "no longer purges"),  # renamed tool
        (
            PURGE.replace(steps=[s for s in FIXED.steps if s.id != "R5"]),
            "no step takes the snapshot",
        ),
        (
            FIXED.replace(steps=[s for s in FIXED.steps if s.id != "R1"]),
            "no longer calls 'list_tenants'",
        ),
        # the purge declared read
        (
            edit(FIXED, "R4", effect="read"),
            "prepare refuses it: effect_conflict",
        ),
        # snapshot after
        (
            edit(edit(FIXED, "R4", depends_on=["R3"]), "R5", depends_on=["R4"]),
            "prepare refuses it",
        ),
        (edit(FIXED, "R5", depends_on=["R4"]), "prepare refuses it: cycle"),
        ("FIXED", "expected a planviz Plan"),
        (None, "no answer yet"),
    ],
)
def test_exercise_4_wrong(plan, says):
    feedback = check_exercise_4(plan)
    assert not feedback and says in feedback.message and feedback.hint
