"""Checks for notebook 04, a simulated run with faults (notebooks/04_simulated_run.ipynb).

Every expected answer is computed here with planviz (simulations of the
bundled ``cache_isolation`` plan), so a check follows the
library. Solutions: notebooks/solutions/04_simulated_run.py. Exercises 4 and 5, on replanning,
moved with it to notebook 05 (lesson05).

>>> check_exercise_1(voided={"S3", "S4"}, kept={"S0", "S1", "S2"}, restart="S3").passed
False
>>> check_exercise_3(most=None, never="transient").passed
False
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from planviz.analysis.scope import failure_scope
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.model import Plan
from planviz.runs.engine.simulation import simulate
from planviz.runs.fault import Fault
from planviz.runs.measures.runmetrics import metrics
from planviz.teaching.agreement import agreement
from planviz.teaching.answers import (
    Unreadable,
    ids,
    in_plan,
    same_step,
    same_word,
    short,
    whole_number,
)
from planviz.teaching.cases import patch_cases
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, wrong

__all__ = [
    "check_failure_scope",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "TABLE_KINDS",
]

#: The fault kinds of the notebook's table of failure classes (``withdraw`` makes a precondition failure).
TABLE_KINDS = ("transient", "withdraw", "side_effect", "goal_change")


def _cache() -> Plan:
    return load("cache_isolation")


def _ids(value: Any) -> frozenset[str] | Unreadable:
    out = ids(value)
    return (
        out if isinstance(out, frozenset) else Unreadable(str(getattr(out, "why", "not step ids")))
    )


def check_exercise_1(voided: Any = None, kept: Any = None, restart: Any = None) -> Feedback:
    """Exercise 1: ``Fault("S3", "withdraw", fact="key_builder_located")``: which steps are ``voided``, which
    ``kept``, and at which step does execution ``restart``?"""
    ex = "04 exercise 1"
    plan = _cache()
    run = simulate(
        plan, plan.contract, faults=[Fault("S3", "withdraw", fact="key_builder_located")]
    )
    fail = next(e for e in run.events if e.kind == "fail")
    before = run.frame(fail.index - 1)
    completed = {s for s, status in before.statuses.items() if status == "done"}
    scope = failure_scope(
        plan, "S3", "precondition", fact="key_builder_located", state=(completed, before.facts)
    )
    hint = "which step produced the fact that turned out false, and what was built on it?"
    if is_blank(voided) or is_blank(kept) or is_blank(restart):
        return unanswered(ex, "check_exercise_1(voided={...}, kept={...}, restart=...)", hint)
    v, k = in_plan(_ids(voided), plan.ids), in_plan(_ids(kept), plan.ids)
    for given in (v, k):
        if isinstance(given, Unreadable):
            return wrong(
                ex, f"voided and kept are sets of step ids, such as {{'S0'}}: {given.why}", hint
            )
    # The run voids what of the scope had started; the scope also holds its steps that never started. Either
    # set is a right reading: the explorer's voiding event shows the first, failure_scope the second.
    voiding = next(e for e in run.events if e.kind == "invalidate")
    started = frozenset(voiding.voided)
    if v not in (scope.voided, started):
        return wrong(
            ex,
            f"not the steps voided ({len(started)} are, of a scope of {len(scope.voided)})",
            "a precondition failure voids more than the step where it shows up: " + hint,
        )
    if k not in (scope.kept, frozenset(voiding.kept)):
        return wrong(
            ex,
            "the voided steps are right, but not the kept ones",
            "kept is the verified work outside the scope: completed, and not voided",
        )
    if scope.restart is None:  # a precondition failure restarts at the fact's producer
        raise PlanvizError("the failure scope of S3 names no restart")
    if not same_step(restart, scope.restart, plan.ids, version=plan.version + 1):
        return wrong(
            ex,
            f"execution does not resume at {short(restart)}",
            "it goes back to the producer of the false fact",
        )
    never = sorted(scope.voided - started)
    aside = (
        f" ({', '.join(never)} {'is' if len(never) == 1 else 'are'} in the scope too but never started: the run "
        "has nothing of it to void.)"
        if never
        else ""
    )
    return right(
        ex,
        f"the withdrawn fact sends execution back to its producer {scope.restart}: it and everything "
        "built on it are voided, the rest is kept. A precondition failure is scoped by the fact, not "
        f"by where it showed up.{aside}",
    )


def check_exercise_2(
    outcome_2: Any = None, outcome_3: Any = None, attempts_3: Any = None
) -> Feedback:
    """Exercise 2: the outcomes of ``Fault("S1", "transient", times=2)`` and ``times=3``, and how many times S1
    was attempted in the second run."""
    ex = "04 exercise 2"
    plan = _cache()
    runs = {
        t: simulate(plan, plan.contract, faults=[Fault("S1", "transient", times=t)]) for t in (2, 3)
    }
    attempts = sum(1 for e in runs[3].events if e.kind == "start" and e.step == "S1")
    hint = "simulate both and read run.outcome; then count the start events of S1 (and read contract.max_retries)"
    if is_blank(outcome_2) or is_blank(outcome_3) or is_blank(attempts_3):
        return unanswered(
            ex, "check_exercise_2(outcome_2=..., outcome_3=..., attempts_3=...)", hint
        )
    if not (
        same_word(outcome_2, str(runs[2].outcome)) and same_word(outcome_3, str(runs[3].outcome))
    ):
        return wrong(ex, "not both outcomes are right", hint)
    if whole_number(attempts_3) != attempts:
        return wrong(
            ex, f"the outcomes are right, but S1 was not attempted {attempts_3!r} times", hint
        )
    if plan.contract is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
    return right(
        ex,
        f"max_retries={plan.contract.max_retries} allows {attempts} attempts of S1: two transient "
        "failures are retried away, a third is one too many and the run stops. A retry cap is a "
        "budget, not a guarantee.",
    )


@lru_cache(maxsize=1)
def _voided_work() -> dict[str, int]:
    """``str(fault)`` -> completed steps its run voids (work_voided), for the table's kinds at every step."""
    plan = _cache()
    out = {}
    for step in plan.steps:
        for kind in TABLE_KINDS:
            for fact in step.requires if kind == "withdraw" else (None,):
                fault = Fault(step.id, kind, fact=fact)
                out[str(fault)] = metrics(simulate(plan, plan.contract, faults=[fault])).work_voided
    return out


def check_exercise_3(most: Any = None, never: Any = None) -> Feedback:
    """Exercise 3: the fault (kind of the table, any step) whose run voids the most verified work (``most``,
    a Fault), and the kind of the table that never voids any (``never``)."""
    ex = "04 exercise 3"
    table = _voided_work()
    hint = (
        "metrics(run).work_voided counts the completed steps a run voided: try every step and kind"
    )
    if is_blank(most) or is_blank(never):
        return unanswered(ex, "check_exercise_3(most=Fault(...), never=...)", hint)
    if not isinstance(most, Fault):
        return wrong(ex, f"most should be a planviz Fault, got {type(most).__name__}", hint)
    plan = _cache()
    try:
        got = metrics(simulate(plan, plan.contract, faults=[most])).work_voided
    except PlanvizError as exc:
        return wrong(ex, f"that fault cannot be injected: {exc}", hint)
    best = max(table.values())
    if got < best:
        return wrong(ex, f"{most} voids {got} completed step(s); another fault voids more", hint)
    silent = {
        k for k in TABLE_KINDS if all(v == 0 for f, v in table.items() if f.split(":")[1] == k)
    }
    named = next((k for k in sorted(silent) if same_word(never, k)), None)
    if named is None:
        return wrong(
            ex,
            f"{short(never)} is not a kind of the table that never voids work",
            "a kind that voids nothing at every step: which failure class has an empty scope?",
        )
    beyond = " (more than any fault of the table!)" if got > best else ""
    return right(
        ex,
        f"{most} voids {got} verified step(s){beyond}; {named} never voids any. The later a failure "
        "shows up, the more verified work its scope can reach.",
    )


def check_failure_scope(voided: Any) -> Feedback:
    """Your ``voided(plan, step_id)``: the steps a side effect found at ``step_id`` voids, against
    ``planviz.failure_scope(plan, step_id, "side_effect").voided``.

    The rule (SPEC section 6): undo the patch that caused it: the step itself if its kind is ``patch``,
    else its nearest ancestor of kind ``patch`` (fewest edges back, ties by the smaller id), else the
    step's direct dependencies (itself when it has none); void that and everything downstream of it.
    """

    def oracle(plan: Plan, sid: str) -> frozenset[str]:
        return failure_scope(plan, sid, "side_effect").voided

    def hint(case: Any, expected: frozenset[str], got: Any) -> str:
        plan, sid = case
        if not isinstance(got, frozenset):
            return "return a set of step ids"
        if got - expected:
            return (
                "start from ONE patch: the nearest one walking back from the step (count edges), and void "
                "only it and what depends on it, directly or not"
            )
        if got and any(any(d in got for d in s.depends_on) and s.id not in got for s in plan.steps):
            return "everything downstream of the patch is voided too: follow the dependents all the way down"
        if plan.step(sid).kind != "patch" and not any(
            plan.step(a).kind == "patch" for a in _back(plan, sid)
        ):
            return "with no patch before it, the side effect undoes the step's direct dependencies and what follows"
        return "which patch is undone? the step itself if it is one, else the nearest patch walking back"

    return agreement(
        "04 failure scope",
        voided,
        oracle,
        patch_cases(),
        fresh=patch_cases,
        name="voided",
        build="failure_scope",
        question=lambda plan, sid: (
            f"voided(plan, {sid!r}) (patches: "
            f"{', '.join(sorted(s.id for s in plan.steps if s.kind == 'patch')) or 'none'})"
        ),
        hint=hint,
    )


def _back(plan: Plan, sid: str) -> set[str]:
    seen, todo = set(), list(plan.step(sid).depends_on)
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(plan.step(x).depends_on)
    return seen
