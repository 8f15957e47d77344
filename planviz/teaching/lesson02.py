"""Checks for notebook 02, validation (notebooks/02_validation.ipynb).

Every expected answer is computed here with planviz from the bundled
``cache_isolation`` plan, so a check follows the library. Solutions:
notebooks/solutions/02_validation.py.

>>> check_exercise_1({"unmet_requirement"}).passed
False
>>> check_exercise_4({}).passed
False
>>> check_exercise_5({name: "error" for name in VACUOUS_CASES}).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from ..checks.grading import grade
from ..checks.predicate import vacuous
from ..checks.validation import CODES, prepare, refusal, validate
from ..errors import PlanvizError
from ..examples import load
from ..plan.model import Contract, Plan, ToolSpec
from ..plan.placeholder import placeholders_in, split_reference
from ..runs.simulation import simulate
from .agreement import agreement
from .answers import Unreadable, number, same_word, short, stop_reason, word
from .cases import grade_cases
from .feedback import Feedback, is_blank, right, unanswered, unusable, wrong

__all__ = ["check_grade", "check_exercise_1", "check_exercise_2", "check_exercise_3", "check_exercise_4",
           "check_exercise_5", "check_exercise_6", "milestone_contract", "purge_contract", "GATES", "MILESTONES", "ORDER",
           "VACUOUS_CASES", "PURGE_TOOLS"]

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
    if contract is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
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
    bad = unusable(ex, plan, Plan, "check_exercise_3(plan=your_plan)", "a planviz Plan", how)
    if bad is not None:
        return bad
    example = load("cache_isolation").contract
    if example is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
    contract = milestone_contract(example)
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
    return round(g.required_recall, 6), frozenset((a, b) for a, b in g.order_violations)


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


#: Exercise 5: a check written on one step of the cache plan, as (step id, check); predict what validate says.
VACUOUS_CASES = {
    "S3 ran": ("S3", "ran"),
    "S1 done": ("S1", "done"),
    "S3 restated": ("S3", "Patch the key builder to include the tenant id"),
    "S4 completed": ("S4", "Completed successfully."),
    "S3 applied": ("S3", "Patch applied."),
    "S3 compiles": ("S3", "the patched key builder compiles"),
    "S4 both pass": ("S4", "the isolation test and the hit-rate test both pass on the patched build"),
}
_NO_FINDING = frozenset({"none", "ok", "nothing", "no finding", "-", "no", "passes", "accepted"})


def _vacuous_severity(sid: str, text: str) -> str | None:
    plan = load("cache_isolation")
    found = [f for f in validate(_edit(plan, sid, check=text), plan.contract).findings if f.code == "vacuous_check"]
    return found[0].severity if found else None


def _severity(value: Any) -> str | None | Unreadable:
    """'error', 'warning' or None (no finding) from an answer in any of its forms."""
    if value is None or value is False or (isinstance(value, str) and not value.strip()):
        return None
    said = word(value)
    if said in ("error", "warning"):
        return said
    if said is not None and said.replace("_", " ") in _NO_FINDING:
        return None
    return Unreadable(f"{short(value)} is not 'error', 'warning' or None")


def check_exercise_5(predictions: Any = None) -> Feedback:
    """Exercise 5: for each case of :data:`VACUOUS_CASES`, what ``validate`` says of that check: ``"error"``,
    ``"warning"`` or None (no ``vacuous_check``)."""
    ex = "02 exercise 5"
    how = '{case: prediction} with one entry per case of VACUOUS_CASES, each "error", "warning" or None'
    if is_blank(predictions) or (isinstance(predictions, Mapping) and not predictions):
        return unanswered(ex, "a dict {case: 'error', 'warning' or None}", how)
    if not isinstance(predictions, Mapping):
        return wrong(ex, f"expected a dict, got {type(predictions).__name__}", how)
    names = {name.lower(): name for name in VACUOUS_CASES}
    given: dict[str, str | None] = {}
    for key, value in predictions.items():
        name = names.get(key.strip().lower()) if isinstance(key, str) else None
        if name is None:
            return wrong(ex, f"{short(key)} is not one of the cases", f"the cases are {', '.join(VACUOUS_CASES)}")
        if value is Ellipsis:
            return unanswered(ex, f"your prediction for {name!r}", how)
        severity = _severity(value)
        if isinstance(severity, Unreadable):
            return wrong(ex, f"{name!r}: {severity.why}", how)
        given[name] = severity
    missing = [name for name in VACUOUS_CASES if name not in given]
    if missing:
        return wrong(ex, f"no prediction for {', '.join(map(repr, missing))}", how)
    off = {name: (said, _vacuous_severity(*VACUOUS_CASES[name])) for name, said in given.items()}
    off = {name: pair for name, pair in off.items() if pair[0] != pair[1]}
    if not off:
        return right(ex, "the words decide whether a check is vacuous, the step decides how bad it is: on the "
                         "patch, which changes the world, it refuses the plan; on a step that only reads it is a "
                         "warning. 'Patch applied.' is the action's own word plus a word that only means 'it ran': "
                         "nothing is left to observe. 'the patched key builder compiles' reuses the action's words "
                         "too, but 'compiles' is something you could see fail. Whether the predicate is the right "
                         "one (compiling says nothing of the tenant id) is still for a person to read.")
    severity_only = all(said is not None and truth is not None for said, truth in off.values())
    hint = ("error or warning is not in the words: does the step change the world (resources, a writing tool or "
            "effect)?" if severity_only else
            "the rule reads the words: drop filler, the words that only mean 'it ran' (done, applied, "
            "completed...) and the step's own action words (patch, patched, patches are one word); a check is "
            "vacuous when nothing is left, and a word you could observe (passes, compiles, above, a number) "
            "always counts")
    return wrong(ex, f"{len(off)} of {len(VACUOUS_CASES)} predictions differ from validate: "
                     f"{', '.join(map(repr, off))}", hint)


#: Exercise 6: the tools of the purge job, as the cache's owner registered them.
PURGE_TOOLS = {"list_tenants": ToolSpec(effect="read"), "read_log": ToolSpec(effect="read"),
               "query_log": ToolSpec(effect="read"), "snapshot_cache": ToolSpec(effect="write"),
               "purge_cache": ToolSpec(effect="destructive", preconditions=("snapshot_cache",),
                                       arguments={"pairs": "array", "snapshot": "string"},
                                       required=("pairs", "snapshot"))}
_AUDIT_TOOLS = ("list_tenants", "read_log", "query_log")


def purge_contract() -> Contract:
    """Exercise 6's write job: purge the leaked entries, with the tools of :data:`PURGE_TOOLS`."""
    return Contract(intent="write", tools=PURGE_TOOLS)


def check_exercise_6(plan: Any = None) -> Feedback:
    """Exercise 6: the purge plan fixed so that ``prepare`` accepts it under :func:`purge_contract` (the contract
    is the cache owner's: it stays as it is); it still finds the leaks, snapshots, purges with the snapshot as
    an argument, and says how to tell the purge worked."""
    ex = "02 exercise 6"
    how = "read validate(purge, purge_job): each finding names the field to change; change the plan, not the contract"
    bad = unusable(ex, plan, Plan, "check_exercise_6(plan=your_fixed_plan)", "a planviz Plan", how)
    if bad is not None:
        return bad
    contract = purge_contract()
    purges = [s for s in plan.steps if s.tool == "purge_cache"]
    snapshots = {s.id for s in plan.steps if s.tool == "snapshot_cache"}
    if not purges:
        return wrong(ex, "the plan no longer purges the leaked entries (no step calls 'purge_cache')",
                     "the job is the purge: fix the plan around it, do not remove it")
    gone = [tool for tool in _AUDIT_TOOLS if not any(s.tool == tool for s in plan.steps)]
    if gone:
        return wrong(ex, f"the plan no longer calls {gone[0]!r}: what does it purge, then?",
                     "keep the audit that finds the leaked entries")
    if not snapshots:
        return wrong(ex, "no step takes the snapshot the purge needs", "keep the snapshot step")
    for step in purges:
        named = {ref[0] for _, p in placeholders_in(step.arguments, step.id)
                 if (ref := split_reference(p.inner, plan.ids)) is not None}
        if not named & snapshots:
            return wrong(ex, f"{step.id!r} no longer names the snapshot in its arguments: it could not be undone",
                         "the argument was right; what was wrong is when the snapshot is taken")
        if not step.check.strip():
            return wrong(ex, f"{step.id!r} has no check: nothing says how to tell the purge worked",
                         "a check is a predicate about the world after the step")
        if vacuous(step.check, step.action, step_id=step.id):
            return wrong(ex, f"the check of {step.id!r}, {step.check!r}, only says the step ran",
                         "what would you see in the cache if the purge worked?")
    why = refusal(plan, contract)
    if why is not None:
        return wrong(ex, f"prepare refuses it: {why.code} ({', '.join(why.steps)})", how)
    run = simulate(plan, contract)
    if run.outcome != "plan_complete":
        return wrong(ex, f"without any fault the run ends {stop_reason(run)}", how)
    writing = [s.id for s in plan.steps if s.tool is not None and PURGE_TOOLS.get(s.tool, ToolSpec()).writes]
    return right(ex, f"accepted, and complete in {len(plan.steps)} tool calls. The argument and the tool's "
                     "precondition were checked on the whole plan, before anything ran, and both wanted the same "
                     f"edge. What a person confirms before step 1 are its writing steps: {', '.join(writing)}.")
