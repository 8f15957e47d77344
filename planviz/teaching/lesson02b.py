"""Checks for notebook 02b, real planner outputs and grading (notebooks/02b_planner_outputs_and_grading.ipynb).

Every expected answer is computed here with planviz, so a check follows the
library. Solutions: notebooks/solutions/02b_planner_outputs_and_grading.py.

>>> check_exercise_2({}).passed
False
>>> check_exercise_3({name: "ok" for name in PLACEHOLDER_CASES}).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from planviz.checks.grading import grade
from planviz.checks.validation import prepare, validate
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.model import Contract, Plan
from planviz.teaching.agreement import agreement
from planviz.teaching.answers import Unreadable, case_predictions, number, same_word, short
from planviz.teaching.cases import grade_cases
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, unusable, wrong

__all__ = [
    "check_grade",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "milestone_contract",
    "fixed_purge",
    "GATES",
    "MILESTONES",
    "ORDER",
    "PLACEHOLDER_CASES",
]

#: The grading section's stricter contract: four milestones and three orders between them.
MILESTONES = ("reproduce", "diagnose", "patch", "verify")
ORDER = (("reproduce", "patch"), ("diagnose", "patch"), ("patch", "verify"))
#: What :func:`planviz.prepare` can do with a plan (exercise 2's answers).
GATES = ("runs", "PlanningFailure", "SchemaError", "SemanticError")


def milestone_contract(contract: Contract) -> Contract:
    """``contract`` with the grading section's four required milestones and three orders."""
    return replace(contract, required=MILESTONES, must_precede=ORDER)


def _edit(plan: Plan, sid: str, **changes: Any) -> Plan:
    return plan.replace(
        steps=tuple(replace(s, **changes) if s.id == sid else s for s in plan.steps)
    )


def check_exercise_1(plan: Any = None) -> Feedback:
    """Exercise 1: a plan whose every step is well formed (no import or structure error) that ``grade`` scores
    with recall 0.5 against the grading section's contract (:func:`milestone_contract`) and at least one order
    violation (the notebook's half plan, recall 0.5 with none, is shown before the exercise)."""
    ex = "02b exercise 1"
    how = (
        "keep the steps of two of the four milestones: plan.replace(steps=...) with steps whose kind is "
        f"one of {', '.join(MILESTONES)}"
    )
    bad = unusable(ex, plan, Plan, "check_exercise_1(plan=your_plan)", "a planviz Plan", how)
    if bad is not None:
        return bad
    example = load("cache_isolation").contract
    if example is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
    contract = milestone_contract(example)
    report = validate(plan, contract)
    malformed = [f for f in report.errors if f.layer in ("import", "structure")]
    if malformed:
        return wrong(
            ex,
            f"a step is not well formed: {malformed[0].code} ({malformed[0].message})",
            "every step needs an id, an action and its expected evidence, and no cycle",
        )
    g = grade(plan, contract)
    if g.required_recall != 0.5:
        return wrong(
            ex,
            f"grade gives recall {g.required_recall:.2f}: the plan has "
            f"{len(MILESTONES) - len(g.missing_required)} of the {len(MILESTONES)} milestones",
            "recall is the share of the contract's required milestones (ids or kinds) the plan contains",
        )
    if not g.order_violations:
        return wrong(
            ex,
            "recall 0.5 with no order violation: that is the half plan's grade, shown above",
            "keep two milestones the contract orders, or one that must come after a missing one, "
            "without the edge that would make the order hold",
        )
    return right(
        ex,
        f"recall 0.5, {len(g.order_violations)} order violation(s), admissible: "
        f"{'yes' if g.admissible else 'no'}. Recall alone says how much of the work is there, not "
        "whether it is done in an order that can work: read it beside the order violations.",
    )


def _gate(plan: Plan, contract: Contract | None) -> str:
    """What :func:`planviz.prepare` does with the plan: ``runs``, ``PlanningFailure`` or the exception's name."""
    try:
        out = prepare(plan, contract)
    except PlanvizError as exc:
        return type(exc).__name__
    return "runs" if out else "PlanningFailure"


def _table() -> list[tuple[Plan, Contract | None]]:
    """The (plan, contract) pairs the notebook's gate table already shows: exercise 2 asks for others."""
    plan = load("cache_isolation")
    contract = plan.contract
    release = load("release_no_credentials")
    cheat = load("delete_failing_test")
    clash = _edit(
        _edit(
            plan, "S1", resources=["staging-cache"], check="the staging cache is back to baseline"
        ),
        "S2",
        resources=["staging-cache"],
        check="the staging cache is back to baseline",
    )
    clash = _edit(clash, "S3", risk="high")
    fixed = _edit(_edit(clash, "S2", depends_on=["S0", "S1"]), "S3", approval="team lead")
    return [
        (plan, contract),
        (_edit(plan, "S1", depends_on=["S0", "S4"]), contract),
        (release, release.contract),
        (release.replace(premises=release.premises + ("deploy_credentials",)), release.contract),
        (_edit(plan, "S3", depends_on=["S1"]), contract),
        (cheat, cheat.contract),
        (clash, contract),
        (fixed, contract),
    ]


def _prediction(said: Any) -> str | None:
    """One of :data:`GATES` from an answer: its name in any case, or the exception class itself."""
    return next((g for g in GATES if same_word(said, g)), None)


def check_exercise_2(predictions: Any = None) -> Feedback:
    """Exercise 2: ``{name: (plan, contract, prediction)}`` for five plans the notebook's table did not gate,
    each prediction one of :data:`GATES` (or the exception class); together they must show all four outcomes."""
    ex = "02b exercise 2"
    how = (
        '{"cyclic": (cyclic, contract, "SchemaError"), ...}: one entry per plan, with what you predict '
        "prepare does"
    )
    if is_blank(predictions) or (isinstance(predictions, Mapping) and not predictions):
        return unanswered(ex, "a dict {name: (plan, contract, prediction)}", how)
    if not isinstance(predictions, Mapping):
        return wrong(ex, f"expected a dict, got {type(predictions).__name__}", how)
    table = _table()
    outcomes: dict[str, str] = {}
    seen: list[tuple[Plan, Contract | None]] = []
    for name, case in predictions.items():
        if not (
            isinstance(case, (tuple, list))
            and len(case) == 3
            and isinstance(case[0], Plan)
            and (case[1] is None or isinstance(case[1], Contract))
        ):
            return wrong(ex, f"the entry {short(name)} is not (plan, contract, prediction)", how)
        plan, contract, said = case
        if is_blank(said):
            return unanswered(
                ex, f"your prediction for {short(name)}", f"one of {', '.join(map(repr, GATES))}"
            )
        gate = _prediction(said)
        if gate is None:
            return wrong(
                ex, f"{short(name)}: {short(said)} is not one of {', '.join(map(repr, GATES))}", how
            )
        if (plan, contract) in table:
            return wrong(
                ex,
                f"{short(name)} is a plan the table above already gated, with the same contract",
                "the exercise lists five plans the table did not gate: the audit, vouched without a "
                "contract, the checklist, the real output, the cache plan with nothing obtainable",
            )
        if (plan, contract) in seen:
            return wrong(ex, f"{short(name)} is the same plan and contract as another entry", how)
        seen.append((plan, contract))
        actual = _gate(plan, contract)
        if actual != gate:
            report = validate(plan, contract)
            tip = (
                "warnings never refuse; look for an error"
                if gate != "runs" and report.ok
                else "which layer is its first error in? prepare's docstring (help(planviz.prepare)) maps "
                "layers to what it does"
            )
            return wrong(ex, f"{short(name)}: prepare does not give {gate}", tip)
        outcomes[actual] = str(name)
    if len(seen) < 5:
        return wrong(ex, f"{len(seen)} plan(s); the exercise asks for five", how)
    absent = [g for g in GATES if g not in outcomes]
    if absent:
        return wrong(
            ex,
            f"your predictions are right, but no plan shows {', '.join(absent)}",
            "the five plans of the exercise show every outcome: is one missing?",
        )
    return right(
        ex,
        "one rule: any error refuses, a warning never does. How it refuses says what is wrong: a "
        "malformed plan raises SchemaError, a plan no route can satisfy returns a PlanningFailure "
        "(nothing to retry), a plan that breaks the contract's rules raises SemanticError.",
    )


def _grade_oracle(plan: Plan, contract: Contract) -> tuple[float, frozenset[tuple[str, str]]]:
    g = grade(plan, contract)
    return round(g.required_recall, 6), frozenset((a, b) for a, b in g.order_violations)


def _read_grade(value: Any) -> Any:
    if (
        isinstance(value, (str, bytes, Mapping))
        or not isinstance(value, (tuple, list))
        or len(value) != 2
    ):
        return Unreadable(
            f"{type(value).__name__} {short(value)}; return a pair (recall, violations)"
        )
    recall, pairs = number(value[0]), value[1]
    if recall is None:
        return Unreadable(f"a recall of {short(value[0])}: a number from 0 to 1")
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        return Unreadable(f"violations {short(pairs)}: a set of (a, b) pairs")
    out = set()
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            return Unreadable(
                f"a violation {short(pair)}: each is a pair (a, b) of the contract's must_precede"
            )
        out.add((str(pair[0]).strip(), str(pair[1]).strip()))
    return round(recall, 6), frozenset(out)


def _say_grade(case: Any, expected: Any, got: Any) -> str:
    def show(pairs: Any) -> str:
        return "{" + ", ".join(f"{a} < {b}" for a, b in sorted(pairs)) + "}" if pairs else "none"

    return (
        f"planviz says recall {expected[0]:.3g} and violations {show(expected[1])}; yours says recall "
        f"{got[0]:.3g} and violations {show(got[1])}"
    )


def _grade_hint(case: Any, expected: Any, got: Any) -> str:
    if isinstance(got, tuple) and got[0] != expected[0]:
        return (
            "a required entry is met by a step with that id OR by any step of that kind; recall is the share "
            "of required entries met (1.0 when nothing is required)"
        )
    return (
        "for a pair (a, b), every step that is b (id or kind) needs a step that is a among its ancestors; "
        "with no b step there is nothing to violate, with no a step every b step violates it"
    )


def check_grade(grade_it: Any) -> Feedback:
    """Your ``grade_it(plan, contract)``: ``(recall, violations)`` against :func:`planviz.grade`'s
    ``required_recall`` and ``order_violations`` on random plans whose steps have milestone kinds."""

    def question(plan: Plan, contract: Contract) -> str:
        kinds = ", ".join(f"{s.id}:{s.kind}" for s in sorted(plan.steps, key=lambda s: s.id))
        order = ", ".join(f"{a} < {b}" for a, b in contract.must_precede) or "none"
        return (
            f"grade_it(plan, contract) (kinds {kinds}; required {', '.join(contract.required)}; "
            f"must_precede {order})"
        )

    return agreement(
        "02b grade",
        grade_it,
        _grade_oracle,
        grade_cases(),
        fresh=grade_cases,
        name="grade_it",
        build="grade",
        question=question,
        hint=_grade_hint,
        read=_read_grade,
        say=_say_grade,
        returns="a pair (recall, violations)",
    )


#: Exercise 3: the arguments of the purge step R4 (of the fixed purge plan, R4 after R3 and R5, the report R6 after
#: R4); predict what
#: validate says of each: "ok", or the finding it reports on R4's arguments.
PLACEHOLDER_CASES: dict[str, dict[str, Any]] = {
    "as written": {"pairs": "{{R3.pairs}}", "snapshot": "{{R5.snapshot_id}}"},
    "spaces": {"pairs": "{{ R3.pairs }}", "snapshot": "{{ R5.snapshot_id }}"},
    "in a sentence": {
        "pairs": "{{R3.pairs}}",
        "snapshot": "snapshot {{R5.snapshot_id}} of the cache",
    },
    "an earlier step": {"pairs": "{{R1.tenants}}", "snapshot": "{{R5.snapshot_id}}"},
    "twice": {
        "pairs": "{{R3.pairs}}",
        "snapshot": "{{R5.snapshot_id}} (copy of {{R5.snapshot_id}})",
    },
    "no such step": {"pairs": "{{R3.pairs}}", "snapshot": "{{R9.snapshot_id}}"},
    "a later step": {"pairs": "{{R3.pairs}}", "snapshot": "{{R6.snapshot_id}}"},
    "its own output": {"pairs": "{{R3.pairs}}", "snapshot": "{{R4.snapshot_id}}"},
    "lower case": {"pairs": "{{R3.pairs}}", "snapshot": "{{r5.snapshot_id}}"},
    "a number": {"pairs": "{{R3.pairs}}", "snapshot": 42},
    "a literal id": {"pairs": "{{R3.pairs}}", "snapshot": "snap-2024-11-02"},
}
_ARGUMENT_CODES = ("bad_placeholder", "bad_arguments")
_OK = frozenset({"ok", "none", "nothing", "no finding", "passes", "accepted", "fine", "-"})


def fixed_purge() -> Plan:
    """The purge plan of notebook 02 with its fix (R4 after R3 and R5, a check about the cache after it), and R6,
    a report written after the purge (a thought: no tool)."""
    from planviz.plan.model import Step

    def step(
        sid: str, action: str, tool: str, after: Any, needs: str | None, makes: str, **more: Any
    ) -> Step:
        return Step(
            sid,
            action,
            tool=tool,
            depends_on=after or (),
            requires=needs or (),
            produces=[makes],
            expected_evidence=more.pop("evidence"),
            **more,
        )

    return Plan(
        "Purge the cache entries one tenant read from another",
        [
            step(
                "R1",
                "List the tenants",
                "list_tenants",
                None,
                None,
                "tenants_listed",
                evidence="a list of tenant ids",
            ),
            step(
                "R2",
                "Read the cache access log",
                "read_log",
                "R1",
                "tenants_listed",
                "log_read",
                evidence="log lines per tenant",
            ),
            step(
                "R3",
                "Find cross-tenant reads",
                "query_log",
                "R2",
                "log_read",
                "leaks_found",
                evidence="pairs of tenants",
            ),
            step(
                "R5",
                "Snapshot the cache",
                "snapshot_cache",
                "R3",
                None,
                "cache_snapshot",
                evidence="a snapshot id",
                check="the snapshot lists every entry of the cache",
            ),
            step(
                "R4",
                "Purge the leaked entries",
                "purge_cache",
                ("R3", "R5"),
                "leaks_found",
                "entries_purged",
                evidence="a purge count",
                check="no leaked entry remains in the cache",
                rollback="restore the snapshot R5 took",
                arguments={"pairs": "{{R3.pairs}}", "snapshot": "{{R5.snapshot_id}}"},
            ),
            Step(
                "R6",
                "Write the purge report",
                depends_on="R4",
                requires="entries_purged",
                produces=["purge_reported"],
                expected_evidence="a report with the purge count",
            ),
        ],
    )


def _argument_finding(arguments: Mapping[str, Any]) -> str:
    from planviz.teaching.lesson02 import purge_contract

    plan = fixed_purge()
    plan = plan.replace(
        steps=tuple(
            replace(s, arguments=dict(arguments)) if s.id == "R4" else s for s in plan.steps
        )
    )
    found = sorted(
        {f.code for f in validate(plan, purge_contract()).findings if f.code in _ARGUMENT_CODES}
    )
    return found[0] if found else "ok"


def _said(value: Any) -> str | Unreadable:
    if value is None or value is True or (isinstance(value, str) and value.strip().lower() in _OK):
        return "ok"
    text = value.strip().lower().replace(" ", "_") if isinstance(value, str) else None
    if text in _ARGUMENT_CODES:
        return text
    return Unreadable(f"{short(value)} is not 'ok', 'bad_placeholder' or 'bad_arguments'")


def check_exercise_3(predictions: Any = None) -> Feedback:
    """Exercise 3: for each case of :data:`PLACEHOLDER_CASES` (R4's arguments in the fixed purge plan), what
    ``validate`` says of them: ``"ok"``, ``"bad_placeholder"`` or ``"bad_arguments"``."""
    ex = "02b exercise 3"
    how = '{case: prediction}, one entry per case of PLACEHOLDER_CASES, each "ok", "bad_placeholder" or "bad_arguments"'
    given = case_predictions(
        ex,
        predictions,
        PLACEHOLDER_CASES,
        _said,
        how,
        "a dict {case: 'ok', 'bad_placeholder' or 'bad_arguments'}",
    )
    if isinstance(given, Feedback):
        return given
    off = [
        name for name, said in given.items() if said != _argument_finding(PLACEHOLDER_CASES[name])
    ]
    if not off:
        return right(
            ex,
            "a placeholder is resolved at run time, from the result of the step it names: at plan "
            "time only its reference can be checked (a step of the plan, an ancestor, not the step "
            "itself, and not a step that runs after it; ids are case-sensitive). "
            "Its value cannot: it fits any type, wherever it sits "
            "in the string, and whether R1's result has a 'tenants' field is for the run to find "
            "out. A literal has no run time to wait for: its type is checked now.",
        )
    return wrong(
        ex,
        f"{len(off)} of {len(PLACEHOLDER_CASES)} predictions differ from validate: "
        f"{', '.join(map(repr, off))}",
        "a placeholder is filled at run time: plan time checks what it refers to (does that step exist, "
        "is it sure to have run before R4 starts?), not its value; "
        "a literal's type is checked against the tool's arguments",
    )
