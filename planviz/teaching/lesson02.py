"""Checks for notebook 02, validation (notebooks/02_validation.ipynb).

Every expected answer is computed here with planviz from the bundled
``cache_isolation`` plan, so a check follows the library. Solutions:
notebooks/solutions/02_validation.py.

>>> check_exercise_1({"unmet_requirement"}).passed
False
>>> check_exercise_4({}).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from ..checks.grading import grade
from ..checks.validation import CODES, prepare, validate
from ..errors import PlanvizError
from ..examples import load
from ..plan.model import Contract, Plan
from .agreement import agreement
from .answers import Unreadable, number, same_word, short, word
from .cases import grade_cases
from .feedback import Feedback, is_blank, right, unanswered, wrong

__all__ = ["check_grade", "check_exercise_1", "check_exercise_2", "check_exercise_3", "check_exercise_4", "milestone_contract",
           "GATES", "MILESTONES", "ORDER"]

#: The grading section's stricter contract: four milestones and three orders between them.
MILESTONES = ("reproduce", "diagnose", "patch", "verify")
ORDER = (("reproduce", "patch"), ("diagnose", "patch"), ("patch", "verify"))
#: What :func:`planviz.prepare` can do with a plan (exercise 4's answers).
GATES = ("runs", "PlanningFailure", "SchemaError", "SemanticError")
_LAYER_OF = {code: layer for layer, codes in CODES.items() for code in codes}


def milestone_contract(contract: Contract) -> Contract:
    """``contract`` with the grading section's four required milestones and three orders."""
    return replace(contract, required=MILESTONES, must_precede=ORDER)


def _edit(plan: Plan, sid: str, **changes: Any) -> Plan:
    return plan.replace(steps=tuple(replace(s, **changes) if s.id == sid else s for s in plan.steps))


def _codes(value: Any) -> set[str] | None:
    """Finding codes from an answer: a set of names or one text; spaces and case aside; else None."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        return None
    out = {word(c) for c in value}
    return None if None in out else {c for c in out if c is not None}


def check_exercise_1(codes: Any = None) -> Feedback:
    """Exercise 1: S4 depends on S2 only. Which finding codes does ``validate`` report? (a set of codes)"""
    ex = "02 exercise 1"
    plan = load("cache_isolation")
    expected = set(validate(_edit(plan, "S4", depends_on=["S2"]), plan.contract).codes)
    hint = "S4 needs patch_applied, and the contract says a patch must precede a verification: who is S4's ancestor now?"
    if is_blank(codes):
        return unanswered(ex, "your prediction, a set of finding codes such as {'cycle'}", hint)
    given = _codes(codes)
    if given is None:
        return wrong(ex, f"expected a set of finding codes, got {type(codes).__name__}", hint)
    unknown = sorted(c for c in given if c not in _LAYER_OF)
    if unknown:
        return wrong(ex, f"{unknown[0]!r} is not a finding code", "the codes are listed in the layer table at the top, "
                     "and validate(...).codes gives the set")
    missing, extra = expected - given, given - expected
    if not missing and not extra:
        return right(ex, f"{len(expected)} findings: the fact S4 needs comes from a step that is no longer its "
                         "ancestor, and the contract's order 'patch before verify' is broken the same way. One "
                         "missing edge, two rules.")
    parts = []
    if missing:
        parts.append(f"{len(missing)} code(s) missing, in the {' and '.join(sorted({_LAYER_OF[c] for c in missing}))} "
                     "layer")
    if extra:
        parts.append(f"{', '.join(sorted(extra))} is not reported")
    return wrong(ex, "; ".join(parts), hint)


def check_exercise_2(layer: Any = None, code: Any = None) -> Feedback:
    """Exercise 2: with ``("S2", "S3")`` added to ``must_precede``, which ``layer`` reports the new finding, and
    its ``code``?"""
    ex = "02 exercise 2"
    plan = load("cache_isolation")
    contract = plan.contract
    forgot = _edit(plan, "S3", depends_on=["S1"])
    stricter = replace(contract, must_precede=contract.must_precede + (("S2", "S3"),))
    new = [f for f in validate(forgot, stricter).findings if f.code not in validate(forgot, contract).codes]
    hint = "validate forgot_edge against both contracts and compare the codes"
    if is_blank(layer) or is_blank(code):
        return unanswered(ex, "check_exercise_2(layer=..., code=...)", hint)
    finding = new[0]
    if not same_word(code, finding.code):
        known = word(code) in _LAYER_OF
        return wrong(ex, f"{short(code)} is {'not the new finding' if known else 'not a finding code'}", hint)
    if not same_word(layer, finding.layer):
        return wrong(ex, f"{finding.code} is right, but it is not reported by the {layer!r} layer",
                     "each finding carries its layer: f.layer")
    return right(ex, f"the {finding.layer} layer reports {finding.code}: the contract now demands an order the graph "
                     "does not guarantee. The same missing edge was already an unmet requirement (a fact); now it "
                     "is also a broken rule of the contract.")


def check_exercise_3(plan: Any = None) -> Feedback:
    """Exercise 3: a plan whose every step is well formed (no import or structure error) that ``grade`` scores
    with recall 0.5 against the grading section's contract (:func:`milestone_contract`)."""
    ex = "02 exercise 3"
    how = ("keep the steps of two of the four milestones: plan.replace(steps=...) with steps whose kind is "
           f"one of {', '.join(MILESTONES)}")
    if is_blank(plan):
        return unanswered(ex, "check_exercise_3(plan=your_plan)", how)
    if not isinstance(plan, Plan):
        return wrong(ex, f"expected a planviz Plan, got {type(plan).__name__}", how)
    contract = milestone_contract(load("cache_isolation").contract)
    report = validate(plan, contract)
    malformed = [f for f in report.errors if f.layer in ("import", "structure")]
    if malformed:
        return wrong(ex, f"a step is not well formed: {malformed[0].code} ({malformed[0].message})",
                     "every step needs an id, an action and its expected evidence, and no cycle")
    g = grade(plan, contract)
    if g.required_recall != 0.5:
        return wrong(ex, f"grade gives recall {g.required_recall:.2f}: the plan has "
                         f"{len(MILESTONES) - len(g.missing_required)} of the {len(MILESTONES)} milestones",
                     "recall is the share of the contract's required milestones (ids or kinds) the plan contains")
    return right(ex, f"recall 0.5, {len(g.order_violations)} order violation(s), admissible: "
                     f"{'yes' if g.admissible else 'no'}. Recall alone says how much of the work is there, not "
                     "whether it is done in an order that can work: read it beside the order violations.")


def _gate(plan: Plan, contract: Contract | None) -> str:
    """What :func:`planviz.prepare` does with the plan: ``runs``, ``PlanningFailure`` or the exception's name."""
    try:
        out = prepare(plan, contract)
    except PlanvizError as exc:
        return type(exc).__name__
    return "runs" if out else "PlanningFailure"


def _table() -> list[tuple[Plan, Contract | None]]:
    """The (plan, contract) pairs the notebook's gate table already shows: exercise 4 asks for others."""
    plan = load("cache_isolation")
    contract = plan.contract
    release = load("release_no_credentials")
    cheat = load("delete_failing_test")
    clash = _edit(_edit(plan, "S1", resources=["staging-cache"], check="the staging cache is back to baseline"),
                  "S2", resources=["staging-cache"], check="the staging cache is back to baseline")
    clash = _edit(clash, "S3", risk="high")
    fixed = _edit(_edit(clash, "S2", depends_on=["S0", "S1"]), "S3", approval="team lead")
    return [(plan, contract), (_edit(plan, "S1", depends_on=["S0", "S4"]), contract), (release, release.contract),
            (release.replace(premises=release.premises + ("deploy_credentials",)), release.contract),
            (_edit(plan, "S3", depends_on=["S1"]), contract), (cheat, cheat.contract), (clash, contract),
            (fixed, contract)]


def _prediction(said: Any) -> str | None:
    """One of :data:`GATES` from an answer: its name in any case, or the exception class itself."""
    return next((g for g in GATES if same_word(said, g)), None)


def check_exercise_4(predictions: Any = None) -> Feedback:
    """Exercise 4: ``{name: (plan, contract, prediction)}`` for five plans the notebook's table did not gate,
    each prediction one of :data:`GATES` (or the exception class); together they must show all four outcomes."""
    ex = "02 exercise 4"
    how = ('{"cyclic": (cyclic, contract, "SchemaError"), ...}: one entry per plan, with what you predict '
           "prepare does")
    if is_blank(predictions) or (isinstance(predictions, Mapping) and not predictions):
        return unanswered(ex, "a dict {name: (plan, contract, prediction)}", how)
    if not isinstance(predictions, Mapping):
        return wrong(ex, f"expected a dict, got {type(predictions).__name__}", how)
    table = _table()
    outcomes: dict[str, str] = {}
    seen: list[tuple[Plan, Contract | None]] = []
    for name, case in predictions.items():
        if not (isinstance(case, (tuple, list)) and len(case) == 3 and isinstance(case[0], Plan)
                and (case[1] is None or isinstance(case[1], Contract))):
            return wrong(ex, f"the entry {short(name)} is not (plan, contract, prediction)", how)
        plan, contract, said = case
        if is_blank(said):
            return unanswered(ex, f"your prediction for {short(name)}", f"one of {', '.join(map(repr, GATES))}")
        gate = _prediction(said)
        if gate is None:
            return wrong(ex, f"{short(name)}: {short(said)} is not one of {', '.join(map(repr, GATES))}", how)
        if (plan, contract) in table:
            return wrong(ex, f"{short(name)} is a plan the table above already gated, with the same contract",
                         "the exercise lists five plans the table did not gate: the audit, vouched without a "
                         "contract, the checklist, the real output, the cache plan with nothing obtainable")
        if (plan, contract) in seen:
            return wrong(ex, f"{short(name)} is the same plan and contract as another entry", how)
        seen.append((plan, contract))
        actual = _gate(plan, contract)
        if actual != gate:
            report = validate(plan, contract)
            tip = ("warnings never refuse; look for an error" if gate != "runs" and report.ok
                   else "which layer is its first error in? prepare's docstring (help(planviz.prepare)) maps "
                        "layers to what it does")
            return wrong(ex, f"{short(name)}: prepare does not give {gate}", tip)
        outcomes[actual] = str(name)
    if len(seen) < 5:
        return wrong(ex, f"{len(seen)} plan(s); the exercise asks for five", how)
    absent = [g for g in GATES if g not in outcomes]
    if absent:
        return wrong(ex, f"your predictions are right, but no plan shows {', '.join(absent)}",
                     "the five plans of the exercise show every outcome: is one missing?")
    return right(ex, "one rule: any error refuses, a warning never does. How it refuses says what is wrong: a "
                     "malformed plan raises SchemaError, a plan no route can satisfy returns a PlanningFailure "
                     "(nothing to retry), a plan that breaks the contract's rules raises SemanticError.")


def _grade_oracle(plan: Plan, contract: Contract) -> tuple[float, frozenset[tuple[str, str]]]:
    g = grade(plan, contract)
    return round(g.required_recall, 6), frozenset(tuple(p) for p in g.order_violations)


def _read_grade(value: Any) -> Any:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (tuple, list)) or len(value) != 2:
        return Unreadable(f"{type(value).__name__} {short(value)}; return a pair (recall, violations)")
    recall, pairs = number(value[0]), value[1]
    if recall is None:
        return Unreadable(f"a recall of {short(value[0])}: a number from 0 to 1")
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        return Unreadable(f"violations {short(pairs)}: a set of (a, b) pairs")
    out = set()
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            return Unreadable(f"a violation {short(pair)}: each is a pair (a, b) of the contract's must_precede")
        out.add((str(pair[0]).strip(), str(pair[1]).strip()))
    return round(recall, 6), frozenset(out)


def _say_grade(case: Any, expected: Any, got: Any) -> str:
    def show(pairs: Any) -> str:
        return "{" + ", ".join(f"{a} < {b}" for a, b in sorted(pairs)) + "}" if pairs else "none"
    return (f"planviz says recall {expected[0]:.3g} and violations {show(expected[1])}; yours says recall "
            f"{got[0]:.3g} and violations {show(got[1])}")


def _grade_hint(case: Any, expected: Any, got: Any) -> str:
    if isinstance(got, tuple) and got[0] != expected[0]:
        return ("a required entry is met by a step with that id OR by any step of that kind; recall is the share "
                "of required entries met (1.0 when nothing is required)")
    return ("for a pair (a, b), every step that is b (id or kind) needs a step that is a among its ancestors; "
            "with no b step there is nothing to violate, with no a step every b step violates it")


def check_grade(grade_it: Any) -> Feedback:
    """Your ``grade_it(plan, contract)``: ``(recall, violations)`` against :func:`planviz.grade`'s
    ``required_recall`` and ``order_violations`` on random plans whose steps have milestone kinds."""
    def question(plan: Plan, contract: Contract) -> str:
        kinds = ", ".join(f"{s.id}:{s.kind}" for s in sorted(plan.steps, key=lambda s: s.id))
        order = ", ".join(f"{a} < {b}" for a, b in contract.must_precede) or "none"
        return (f"grade_it(plan, contract) (kinds {kinds}; required {', '.join(contract.required)}; "
                f"must_precede {order})")

    return agreement("02 grade", grade_it, _grade_oracle, grade_cases(), name="grade_it", build="grade",
                     question=question, hint=_grade_hint, read=_read_grade, say=_say_grade,
                     returns="a pair (recall, violations)")
