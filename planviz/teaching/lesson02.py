"""Checks for notebook 02, validation (notebooks/02_validation.ipynb).

Grading and real planner outputs are notebook 02b's (:mod:`planviz.teaching.lesson02b`).

Every expected answer is computed here with planviz from the bundled
``cache_isolation`` plan, so a check follows the library. Solutions:
notebooks/solutions/02_validation.py.

>>> check_exercise_1({"unmet_requirement"}).passed
False
>>> check_exercise_3({name: "error" for name in VACUOUS_CASES}).passed
False
>>> check_exercise_5({}).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from planviz.checks.predicate import vacuous
from planviz.checks.validation import CODES, refusal, validate
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.model import Contract, Plan, ToolSpec
from planviz.plan.placeholder import placeholders_in, split_reference
from planviz.runs.engine.simulation import simulate
from planviz.teaching.answers import Unreadable, same_word, short, stop_reason, word
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, unusable, wrong

__all__ = [
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "check_exercise_4",
    "check_exercise_5",
    "purge_contract",
    "VACUOUS_CASES",
    "PURGE_TOOLS",
    "CONTRACT_CASES",
    "CONTRACT_FIELDS",
]

_LAYER_OF = {code: layer for layer, codes in CODES.items() for code in codes}


def _edit(plan: Plan, sid: str, **changes: Any) -> Plan:
    return plan.replace(
        steps=tuple(replace(s, **changes) if s.id == sid else s for s in plan.steps)
    )


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
        return wrong(
            ex,
            f"{unknown[0]!r} is not a finding code",
            "the codes are listed in the layer table at the top, "
            "and validate(...).codes gives the set",
        )
    missing, extra = expected - given, given - expected
    if not missing and not extra:
        return right(
            ex,
            f"{len(expected)} findings: the fact S4 needs comes from a step that is no longer its "
            "ancestor, and the contract's order 'patch before verify' is broken the same way. One "
            "missing edge, two rules.",
        )
    parts = []
    if missing:
        parts.append(
            f"{len(missing)} code(s) missing, in the {' and '.join(sorted({_LAYER_OF[c] for c in missing}))} "
            "layer"
        )
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
    new = [
        f
        for f in validate(forgot, stricter).findings
        if f.code not in validate(forgot, contract).codes
    ]
    hint = "validate forgot_edge against both contracts and compare the codes"
    if is_blank(layer) or is_blank(code):
        return unanswered(ex, "check_exercise_2(layer=..., code=...)", hint)
    finding = new[0]
    if not same_word(code, finding.code):
        known = word(code) in _LAYER_OF
        return wrong(
            ex, f"{short(code)} is {'not the new finding' if known else 'not a finding code'}", hint
        )
    if not same_word(layer, finding.layer):
        return wrong(
            ex,
            f"{finding.code} is right, but it is not reported by the {layer!r} layer",
            "each finding carries its layer: f.layer",
        )
    return right(
        ex,
        f"the {finding.layer} layer reports {finding.code}: the contract now demands an order the graph "
        "does not guarantee. The same missing edge was already an unmet requirement (a fact); now it "
        "is also a broken rule of the contract.",
    )


#: Exercise 3: a check written on one step of the cache plan, as (step id, check); predict what validate says.
VACUOUS_CASES = {
    "S3 ran": ("S3", "ran"),
    "S1 done": ("S1", "done"),
    "S3 restated": ("S3", "Patch the key builder to include the tenant id"),
    "S4 completed": ("S4", "Completed successfully."),
    "S3 applied": ("S3", "Patch applied."),
    "S3 compiles": ("S3", "the patched key builder compiles"),
    "S4 both pass": (
        "S4",
        "the isolation test and the hit-rate test both pass on the patched build",
    ),
}
_NO_FINDING = frozenset({"none", "ok", "nothing", "no finding", "-", "no", "passes", "accepted"})


def _vacuous_severity(sid: str, text: str) -> str | None:
    plan = load("cache_isolation")
    found = [
        f
        for f in validate(_edit(plan, sid, check=text), plan.contract).findings
        if f.code == "vacuous_check"
    ]
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


def check_exercise_3(predictions: Any = None) -> Feedback:
    """Exercise 3: for each case of :data:`VACUOUS_CASES`, what ``validate`` says of that check: ``"error"``,
    ``"warning"`` or None (no ``vacuous_check``)."""
    ex = "02 exercise 3"
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
            return wrong(
                ex,
                f"{short(key)} is not one of the cases",
                f"the cases are {', '.join(VACUOUS_CASES)}",
            )
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
        return right(
            ex,
            "the words decide whether a check is vacuous, the step decides how bad it is: on the "
            "patch, which changes the world, it refuses the plan; on a step that only reads it is a "
            "warning. 'Patch applied.' is the action's own word plus a word that only means 'it ran': "
            "nothing is left to observe. 'the patched key builder compiles' reuses the action's words "
            "too, but 'compiles' is something you could see fail. Whether the predicate is the right "
            "one (compiling says nothing of the tenant id) is still for a person to read.",
        )
    severity_only = all(said is not None and truth is not None for said, truth in off.values())
    hint = (
        "error or warning is not in the words: does the step change the world (resources, a writing tool or "
        "effect)?"
        if severity_only
        else "the rule reads the words: drop filler, the words that only mean 'it ran' (done, applied, "
        "completed...) and the step's own action words (patch, patched, patches are one word); a check is "
        "vacuous when nothing is left, and a word you could observe (passes, compiles, above, a number) "
        "always counts"
    )
    return wrong(
        ex,
        f"{len(off)} of {len(VACUOUS_CASES)} predictions differ from validate: "
        f"{', '.join(map(repr, off))}",
        hint,
    )


#: Exercise 4: the tools of the purge job, as the cache's owner registered them.
PURGE_TOOLS = {
    "list_tenants": ToolSpec(effect="read"),
    "read_log": ToolSpec(effect="read"),
    "query_log": ToolSpec(effect="read"),
    "snapshot_cache": ToolSpec(effect="write"),
    "purge_cache": ToolSpec(
        effect="destructive",
        preconditions=("snapshot_cache",),
        arguments={"pairs": "array", "snapshot": "string"},
        required=("pairs", "snapshot"),
    ),
}
_AUDIT_TOOLS = ("list_tenants", "read_log", "query_log")


def purge_contract() -> Contract:
    """Exercise 4's write job: purge the leaked entries, with the tools of :data:`PURGE_TOOLS`."""
    return Contract(intent="write", tools=PURGE_TOOLS)


def check_exercise_4(plan: Any = None) -> Feedback:
    """Exercise 4: the purge plan fixed so that ``prepare`` accepts it under :func:`purge_contract` (the contract
    is the cache owner's: it stays as it is); it still finds the leaks, snapshots, purges with the snapshot as
    an argument, and says how to tell the purge worked."""
    ex = "02 exercise 4"
    how = "read validate(purge, purge_job): each finding names the field to change; change the plan, not the contract"
    bad = unusable(ex, plan, Plan, "check_exercise_4(plan=your_fixed_plan)", "a planviz Plan", how)
    if bad is not None:
        return bad
    contract = purge_contract()
    purges = [s for s in plan.steps if s.tool == "purge_cache"]
    snapshots = {s.id for s in plan.steps if s.tool == "snapshot_cache"}
    if not purges:
        return wrong(
            ex,
            "the plan no longer purges the leaked entries (no step calls 'purge_cache')",
            "the job is the purge: fix the plan around it, do not remove it",
        )
    gone = [tool for tool in _AUDIT_TOOLS if not any(s.tool == tool for s in plan.steps)]
    if gone:
        return wrong(
            ex,
            f"the plan no longer calls {gone[0]!r}: what does it purge, then?",
            "keep the audit that finds the leaked entries",
        )
    if not snapshots:
        return wrong(ex, "no step takes the snapshot the purge needs", "keep the snapshot step")
    for step in purges:
        named = {
            ref[0]
            for _, p in placeholders_in(step.arguments, step.id)
            if (ref := split_reference(p.inner, plan.ids)) is not None
        }
        if not named & snapshots:
            return wrong(
                ex,
                f"{step.id!r} no longer names the snapshot in its arguments: it could not be undone",
                "the argument was right; what was wrong is when the snapshot is taken",
            )
        if not step.check.strip():
            return wrong(
                ex,
                f"{step.id!r} has no check: nothing says how to tell the purge worked",
                "a check is a predicate about the world after the step",
            )
        if vacuous(step.check, step.action, step_id=step.id):
            return wrong(
                ex,
                f"the check of {step.id!r}, {step.check!r}, only says the step ran",
                "what would you see in the cache if the purge worked?",
            )
    why = refusal(plan, contract)
    if why is not None:
        return wrong(ex, f"prepare refuses it: {why.code} ({', '.join(why.steps)})", how)
    run = simulate(plan, contract)
    if run.outcome != "plan_complete":
        return wrong(ex, f"without any fault the run ends {stop_reason(run)}", how)
    writing = [
        s.id
        for s in plan.steps
        if s.tool is not None and PURGE_TOOLS.get(s.tool, ToolSpec()).writes
    ]
    return right(
        ex,
        f"accepted, and complete in {len(plan.steps)} tool calls. The argument and the tool's "
        "precondition were checked on the whole plan, before anything ran, and both wanted the same "
        f"edge. What a person confirms before step 1 are its writing steps: {', '.join(writing)}.",
    )


#: Exercise 5: the node contract's five fields, each the answer to a question a run asks of a step.
CONTRACT_FIELDS = ("requires", "produces", "expected_evidence", "check", "rollback")
#: Exercise 5's cases: one field of the patch S3 emptied (on the plan as shipped, or with S3 high-risk and approved).
CONTRACT_CASES = {
    "no requires": ("requires", "low"),
    "no produces": ("produces", "low"),
    "no expected_evidence": ("expected_evidence", "low"),
    "no check": ("check", "low"),
    "no rollback": ("rollback", "low"),
    "no rollback, high risk": ("rollback", "high"),
}


def _contract_codes(field: str, risk: str) -> frozenset[str]:
    plan = load("cache_isolation")
    if risk == "high":
        plan = _edit(plan, "S3", risk="high", approval="team lead")
    empty = "" if isinstance(getattr(plan.step("S3"), field), str) else ()
    return frozenset(validate(_edit(plan, "S3", **{field: empty}), plan.contract).codes)


def check_exercise_5(predictions: Any = None) -> Feedback:
    """Exercise 5: for each case of :data:`CONTRACT_CASES` (one field of the patch S3 left empty), the set of
    finding codes ``validate`` reports (an empty set when it reports nothing)."""
    ex = "02 exercise 5"
    how = "{case: set of finding codes}, one entry per case of CONTRACT_CASES; set() when validate finds nothing"
    if is_blank(predictions) or (isinstance(predictions, Mapping) and not predictions):
        return unanswered(ex, "a dict {case: set of finding codes}", how)
    if not isinstance(predictions, Mapping):
        return wrong(ex, f"expected a dict, got {type(predictions).__name__}", how)
    names = {name.lower(): name for name in CONTRACT_CASES}
    given: dict[str, set[str]] = {}
    for key, value in predictions.items():
        name = names.get(key.strip().lower()) if isinstance(key, str) else None
        if name is None:
            return wrong(
                ex,
                f"{short(key)} is not one of the cases",
                f"the cases are {', '.join(CONTRACT_CASES)}",
            )
        if value is Ellipsis:
            return unanswered(ex, f"your prediction for {name!r}", how)
        if value is None or (
            isinstance(value, str) and value.strip().lower() in ("", "none", "nothing", "ok")
        ):
            value = set()
        codes = _codes(value)
        if codes is None:
            return wrong(
                ex, f"{name!r}: expected a set of finding codes, got {type(value).__name__}", how
            )
        unknown = sorted(c for c in codes if c not in _LAYER_OF)
        if unknown:
            return wrong(
                ex,
                f"{name!r}: {unknown[0]!r} is not a finding code",
                "validate(...).codes gives the set",
            )
        given[name] = codes
    missing = [name for name in CONTRACT_CASES if name not in given]
    if missing:
        return wrong(ex, f"no prediction for {', '.join(map(repr, missing))}", how)
    off = [name for name, codes in given.items() if codes != _contract_codes(*CONTRACT_CASES[name])]
    if not off:
        return right(
            ex,
            "each field answers a question the run asks: requires (may it start?), produces (what "
            "does it leave for the steps after it?), expected_evidence (what should the trace "
            "show?), check (did the change work?), rollback (how is it undone?). A missing one costs "
            "differently: without expected_evidence the plan is refused; without produces the facts "
            "S4 needs come from nowhere; a missing check is a warning; a missing rollback matters "
            "only where a person must be able to undo (high risk); and a missing requires costs the "
            "most because nothing reports it: the ancestor rule has nothing left to check.",
        )
    silent = [name for name in off if not _contract_codes(*CONTRACT_CASES[name])]
    hint = (
        "validation checks what a step declares: a field left empty can also leave nothing to check"
        if silent
        else "which rule reads that field? the layer table at the top names them"
    )
    return wrong(
        ex,
        f"{len(off)} of {len(CONTRACT_CASES)} predictions differ from validate: "
        f"{', '.join(map(repr, off))}",
        hint,
    )
