"""Checks for notebook 05, replanning and the rules every revision obeys (notebooks/05_replanning_rules.ipynb).

``check_invariants(refuse)`` checks the student's guard of what a revision
may not change (the goal and the contract, unless the goal changed) against
planviz's controller on a table of revisions. Exercises 4 and 5 came from
notebook 04 when it was split (their names are kept; the notebook numbers its
exercises on from 04's). Every expected answer
is computed here with planviz (simulations of the bundled ``cache_isolation``
plan), so a check follows the library. Solutions:
notebooks/solutions/05_replanning_rules.py.

>>> check_exercise_4(kept=None, choice="b").passed
False
>>> check_invariants(lambda old, new, goal_changed: None).passed
False
>>> check_exercise_5(propose=lambda goal, contract, state, old: old).passed
False
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import networkx as nx

from planviz.checks.static import writes
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.model import Contract, Plan, ToolSpec
from planviz.runs.engine.revision import changed_invariants, redundant_work
from planviz.runs.engine.simulation import simulate
from planviz.runs.events import Run
from planviz.runs.fault import Fault
from planviz.runs.measures.runmetrics import metrics
from planviz.structure.graph import to_graph
from planviz.teaching.agreement import Renaming
from planviz.teaching.answers import Unreadable, ids, in_plan, short, stop_reason
from planviz.teaching.feedback import Feedback, is_blank, multiple_choice, right, unanswered, wrong
from planviz.teaching.guards import FORBIDDEN, LibraryUsed, forbidden, library_calls, used_message

__all__ = [
    "check_invariants",
    "check_exercise_4",
    "check_exercise_5",
    "check_exercise_6",
    "check_exercise_7",
    "APPROVAL_TIME",
    "CONTROLLER_FAULTS",
]

APPROVAL_TIME = 4  # exercise 6: hours the change board takes


def _cache() -> Plan:
    return load("cache_isolation")


def check_exercise_4(kept: Any = None, choice: Any = None) -> Feedback:
    """Exercise 4: a goal change at S3 with a new goal but no contract: which completed steps are ``kept``, and
    why (a, b, c)?"""
    ex = "05 exercise 4"
    plan = _cache()
    run = simulate(
        plan,
        plan.contract,
        faults=[Fault("S3", "goal_change", goal="Every tenant gets its own cache")],
    )
    expected = frozenset(e.step for e in run.events if e.kind == "recheck" and e.step in e.kept)
    hint = "read the recheck events: each says why the step is kept or voided"
    if is_blank(kept):
        return unanswered(ex, "check_exercise_4(kept={...}, choice=...)", hint)
    got = in_plan(ids(kept), plan.ids)  # "s1" for S1, as every other check reads ids
    if isinstance(got, Unreadable):
        return wrong(ex, f"kept is a set of step ids: {got.why}", hint)
    if got != expected:
        return wrong(ex, "not the steps the re-check keeps", hint)
    return multiple_choice(
        ex, choice, "b", _WHY_KEPT, "what does the re-check compare a completed step with?"
    )


_WHY_KEPT = {
    "a": "planviz never reads the goal's words against a step's action; it checks facts and rules",
    "c": "a goal change with a new contract that wants none of a step's facts voids it (notebook: S1 and S2)",
}


def check_exercise_5(propose: Any = None) -> Feedback:
    """Exercise 5: a replanner ``propose(goal, contract, state, old)`` for the side effect at S4 that redoes
    no work whose facts are already held."""
    ex = "05 exercise 5"
    how = "propose(goal, contract, state, old) -> Plan: look at state (what is done, which facts are held)"
    if is_blank(propose):
        return unanswered(ex, "your replanner: check_exercise_5(propose=your_function)", how)
    if not callable(propose):
        return wrong(ex, f"expected a function, got {type(propose).__name__}", how)
    # judged by its run alone: the text forbids no tool, so planviz.reissue with the right voided steps is a
    # right answer (07 asks students to build reissue; here it is a tool like any other)
    plan = _cache()
    try:
        run = simulate(plan, plan.contract, faults=[Fault("S4", "side_effect")], propose=propose)
    except Exception as exc:  # the student's code: show what it raised
        return wrong(ex, f"the run raised {type(exc).__name__}: {exc}", how)
    return _replan_verdict(ex, run, how)


def _redundant(run: Run, index: int) -> tuple[str, ...]:
    """The steps the revision adopted at event ``index`` would redo although their facts are held."""
    before = run.frame(index - 1)
    done = frozenset(s for s, status in before.statuses.items() if status == "done")
    new = run.plan_at(index)
    if new is None:  # a replan event adopts a plan
        raise PlanvizError(f"the run has no plan at event {index}")
    return redundant_work(SimpleNamespace(completed=done, facts=before.facts), new)


def _replan_verdict(ex: str, run: Run, how: str) -> Feedback:
    stop = run.events[-1]
    if run.outcome == "refused":
        return wrong(
            ex,
            f"the revision was refused: {stop.message}",
            "a completed step keeps its id and its meaning: redo work under a new id (planviz.reissue)",
        )
    redundant = [sid for e in run.events if e.kind == "replan" for sid in _redundant(run, e.index)]
    if redundant:
        return wrong(
            ex,
            f"the revision redoes work whose facts are already held: {', '.join(redundant)}",
            how,
        )
    if run.outcome != "plan_complete":
        return wrong(ex, f"the run ends {stop_reason(run)}", how)
    m = metrics(run)
    return right(
        ex,
        f"the run completes at t={run.time:g} with {m.duplicate_steps} repeated step(s), only the "
        "voided ones. Completed ids keep their meaning, and a revision redoes only what the failure "
        "voided.",
    )


# --- build it: what a revision may not change --------------------------------------------------------------------


@dataclass(frozen=True)
class _Revision:
    """One question of the invariants build-it: may ``new`` replace ``old``, after a goal change or not?"""

    what: str  # the revision, in words
    old: Plan
    new: Plan
    goal_changed: bool
    trap: str  # the hint when a guard answers this one wrong


def _redo(old: Plan, **change: Any) -> Plan:
    """``old`` with S3 and S4 re-issued as S3.v2 and S4.v2 (what the side effect at S4 voids), then ``change``."""
    new = {"S3": "S3.v2", "S4": "S4.v2"}
    steps = [
        replace(
            s,
            id=new.get(s.id, s.id),
            revises=s.id if s.id in new else None,
            depends_on=tuple(new.get(d, d) for d in s.depends_on),
        )
        for s in old.steps
    ]
    return old.replace(steps=steps, **change)


def _contract_changes(c: Contract) -> list[tuple[str, Contract]]:
    """(what changed, the contract with that one field changed), one for every field of the contract."""
    return [
        (
            "drops the milestone 'verify'",
            replace(c, required=tuple(r for r in c.required if r != "verify")),
        ),
        (
            "forbids a kind of step the contract did not forbid",
            replace(c, forbidden=(*c.forbidden, "deploy")),
        ),
        (
            "drops the rule that the patch precedes the verification",
            replace(c, must_precede=tuple(p for p in c.must_precede if p != ("patch", "verify"))),
        ),
        (
            "takes 'isolation_verified' as given",
            replace(c, given_facts=(*c.given_facts, "isolation_verified")),
        ),
        (
            "adds a fact the run may obtain",
            replace(c, obtainable_facts=(*c.obtainable_facts, "cache_flushed")),
        ),
        ("no longer forbids the state 'tests_deleted'", replace(c, forbidden_states=())),
        (
            "registers a destructive tool",
            replace(c, tools={**c.tools, "purge_cache": ToolSpec(effect="destructive")}),
        ),
        ("changes the intent from 'write' to 'read'", replace(c, intent="read")),
        ("raises max_retries to 10", replace(c, max_retries=10)),
        ("raises max_replans to 10", replace(c, max_replans=10)),
        ("names 'verify' the final milestone", replace(c, final="verify")),
        ("asks the user to confirm the plan before it runs", replace(c, confirm="plan")),
    ]


@lru_cache(maxsize=1)
def _revisions() -> tuple[_Revision, ...]:
    """The questions, easy first: honest revisions, a new goal, each field of the contract changed, plans
    without a contract; each asked without a goal change and after one."""
    old = _cache()
    c = old.contract
    if c is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
    bare = Plan(old.goal, old.steps, premises=old.premises)  # a plan that carries no contract
    fixed = "the goal and every field of the contract are fixed across revisions, unless the goal changed"
    after = (
        "after a goal change, the goal and the contract may change: that is what a goal change is"
    )
    out = [
        _Revision(
            "re-issues S3 and S4 as S3.v2 and S4.v2, goal and contract as they were",
            old,
            _redo(old),
            False,
            "a revision exists to change steps: only the goal and the contract are fixed",
        ),
        _Revision(
            "re-issues S3 and S4 and carries an equal copy of the contract",
            old,
            _redo(old, contract=replace(c)),
            False,
            "compare contracts by what they say (==), not by which object they are (is)",
        ),
        _Revision(
            "re-issues S3 and S4 in a plan that carries no contract",
            old,
            _redo(bare),
            False,
            "a revision that carries no contract keeps the run's: only a contract it brings can change it",
        ),
        _Revision(
            "drops S2 and re-orders the file, goal and contract as they were",
            old,
            old.replace(steps=[s for s in reversed(old.steps) if s.id != "S2"]),
            False,
            "whether the steps are good is for the other rules (validation, the identity rule): this guard "
            "reads only the goal and the contract",
        ),
        _Revision(
            "sets the goal to 'Document the leak only'",
            old,
            _redo(old, goal="Document the leak only"),
            False,
            "the goal itself is the first invariant: " + fixed,
        ),
        _Revision(
            "sets the goal to 'Document the leak only', after a goal change",
            old,
            _redo(old, goal="Document the leak only"),
            True,
            after,
        ),
    ]
    for what, changed in _contract_changes(c):
        out.append(
            _Revision(
                f"carries a contract that {what}",
                old,
                _redo(old, contract=changed),
                False,
                "every field of the contract is an invariant, not only the safety ones: " + fixed,
            )
        )
    out += [
        _Revision(
            f"carries a contract that {what}, after a goal change",
            old,
            _redo(old, contract=changed),
            True,
            after,
        )
        for what, changed in _contract_changes(c)[::4]
    ]
    out += [
        _Revision(
            "in a run with no contract, re-issues S3 and S4 without one",
            bare,
            _redo(bare),
            False,
            "where neither carries a contract, nothing about the contract changed",
        ),
        _Revision(
            "in a run with no contract, brings a contract of its own",
            bare,
            _redo(bare, contract=c),
            False,
            "where the run had no contract, a revision that brings one changes what the run is held to",
        ),
    ]
    return tuple(out)


def _refusal(value: Any) -> bool | Unreadable:
    """The student's verdict: True (refused) for a reason, True or a non-empty list of reasons; False (adopted)
    for None, False, '' or an empty list; an Unreadable for anything else."""
    if value is None or isinstance(value, (bool, str)):
        return bool(value and (not isinstance(value, str) or value.strip()))
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return bool(value)
    return Unreadable(f"{type(value).__name__} {short(value)}")


def check_invariants(refuse: Any) -> Feedback:
    """Your ``refuse(old, new, goal_changed)``: whether the controller refuses revision ``new`` of ``old``
    (``goal_changed_by_replan``), against planviz on every question of a table of revisions.

    Return a reason (text) or True to refuse, None or False to adopt. The rule (seed 004, SPEC section 8):
    unless the goal changed, a revision keeps the goal and the contract the run is held to (its milestones,
    forbidden steps and states, intent, tools and budgets). A revision that carries no contract keeps the
    run's; where the run had none, a revision may not bring one.
    """
    ex = "05 invariants"
    how = (
        "refuse(old, new, goal_changed) -> a reason or True to refuse it, None or False to adopt it"
    )
    if is_blank(refuse):
        return unanswered(
            ex, "define refuse(old, new, goal_changed) in the cell above and pass it here", how
        )
    if not callable(refuse):
        return wrong(
            ex,
            f"expected a function, got {type(refuse).__name__} {short(refuse)}",
            "pass the function itself: check_invariants(refuse)",
        )
    names = FORBIDDEN["invariants"]
    own = "compare what the two versions say yourself: the goal, the contract, and the goal_changed flag"
    called = library_calls(refuse, names)
    if called:
        return wrong(ex, used_message("refuse", called)[0], own)
    table = _revisions()
    # drawn for this call
    fresh = Renaming({s.id for q in table for p in (q.old, q.new) for s in p.steps})
    questions = [fresh.rename(q) for q in table]  # no table made beforehand knows these ids
    # then each again, under other fresh names and in an order drawn for this call: answers handed out by the
    # order of the calls (or remembered by the object asked) meet questions they did not expect
    again = Renaming({s.id for q in table for p in (q.old, q.new) for s in p.steps})
    shuffled = list(range(len(table)))
    random.Random(os.urandom(16)).shuffle(shuffled)
    asked = [*enumerate(questions, 1), *((i + 1, again.rename(table[i])) for i in shuffled)]
    answers: list[Any] = []
    for number, q in asked:
        refused = (
            changed_invariants(q.old, q.new, q.old.contract) is not None and not q.goal_changed
        )
        try:
            with forbidden(names):
                answers.append(refuse(q.old, q.new, q.goal_changed))
            got = _refusal(answers[-1])
        except LibraryUsed as exc:
            return wrong(ex, used_message("refuse", exc.name)[0], own)
        except Exception as exc:  # the student's code: show what it raised
            return wrong(
                ex,
                f"question {number} of {len(questions)} (a revision that {q.what}): your function "
                f"raised {type(exc).__name__}: {exc}",
                how,
            )
        if isinstance(got, Unreadable):
            return wrong(
                ex, f"question {number} of {len(questions)}: your function returned {got.why}", how
            )
        if got != refused:
            said = "refuses" if refused else "adopts"
            blank = (
                " (it returned None to every revision so far: None adopts; has the function a body yet?)"
                if all(a is None for a in answers)
                else ""
            )
            return wrong(
                ex,
                f"question {number} of {len(questions)}: a revision that {q.what}. The controller "
                f"{said} it; your function {'refuses' if got else 'adopts'} it{blank}.",
                q.trap,
            )
    return right(
        ex,
        f"your guard agrees with the controller on all {len(questions)} revisions. A replanner may "
        "change the route, never what the route is for: the goal, the milestones, the forbidden steps "
        "and states, the intent and the budgets stay as the run began, unless the goal itself changed.",
    )


def check_exercise_6(steps: Any = None) -> Feedback:
    """Exercise 6 (the receding horizon, moved here from notebook 06): concrete ``steps`` for the far step
    F2 of ``far_horizon`` that fit its budget, finish the migration and keep the change board's approval."""
    ex = "05 exercise 6"
    far = load("far_horizon")
    budget = far.step("F2").budget
    if budget is None:  # the far step of the example carries its budget
        raise PlanvizError("step F2 of far_horizon has no budget")
    how = (
        f"a list of step mappings like cut_over: at most {budget.steps} steps and {budget.duration:g} h in all, "
        "the first requiring reads_migrated, the last producing writes_migrated"
    )
    if is_blank(steps):
        return unanswered(ex, "check_exercise_6(steps=[...])", how)
    try:
        run = simulate(far, expand={"F2": steps}, approval_time=APPROVAL_TIME)
    except PlanvizError as exc:
        return wrong(ex, f"that expansion cannot be used: {exc}", how)
    final = run.plan
    if final is None:  # a simulated run proposes its plan first
        raise PlanvizError("the simulated run carries no plan")
    over = [f for f in final.import_findings if f.code == "over_budget"]
    if run.outcome != "plan_complete":
        return wrong(ex, f"the run ends {stop_reason(run)}", how)
    if over:
        return wrong(ex, f"the expansion is over budget: {over[0].message}", how)
    promised = [f for f in far.step("F2").produces if f not in run.state.facts]
    if promised:
        return wrong(
            ex,
            f"the run completes, but {promised[0]!r}, which F2 promised, is never established",
            how,
        )
    if not any(e.kind == "approval" for e in run.events):
        return wrong(
            ex,
            "no step waits for the change board any more",
            "the step that switches the writes is still high risk: keep its approval and rollback",
        )
    # a Feedback is falsy when not passed: no `or` here
    gamed = _expansion_games(ex, far, final, run)
    if gamed is not None:
        return gamed
    return right(
        ex,
        f"F2 became concrete work within its budget; the run completes at t={run.time:g} h, the "
        "cut-over waiting for its approval. The far step was a promise with a budget; its expansion "
        "is checked against it when the near work has shown what it involves.",
    )


def _expansion_games(ex: str, far: Any, final: Any, run: Run) -> Feedback | None:
    """A "not yet" for an expansion that passes the budget and the approval count by gaming them: work estimated
    at 0 h, the approval moved off the step that switches the writes, the old database retired before the switch."""
    new = [s for s in final.steps if s.id not in far.ids]
    free = [s.id for s in new if s.duration == 0]
    if free:
        return wrong(
            ex,
            f"{', '.join(free)} {'takes' if len(free) == 1 else 'take'} 0 h: work estimated at nothing fits any budget",
            "estimate what each step really takes; re-estimate the long one rather than zero it",
        )
    needs = set(far.step("F2").requires)
    switch = [s.id for s in new if needs & set(s.requires)]
    approved = {e.step for e in run.events if e.kind == "approval"}
    unguarded = [sid for sid in switch if sid not in approved]
    if unguarded:
        return wrong(
            ex,
            f"{', '.join(unguarded)} switches the writes without waiting for the change board: an "
            "approval on another step does not guard the switch",
            "keep risk, approval and rollback on the step that switches the writes",
        )
    graph = to_graph(final)
    early = [
        s.id
        for s in new
        if set(far.step("F2").produces) & set(s.produces)
        and not ({s.id} | nx.ancestors(graph, s.id)) & set(switch)
    ]
    if early:
        return wrong(
            ex,
            f"{', '.join(early)} finishes the migration without waiting for the switch of the writes: "
            "the old database would be retired while it still takes writes",
            "the step that retires the old database depends on the one that switches the writes",
        )
    return None


#: Exercise 7: one failure per letter; which of the controller's four choices follows each is read from a run.
CONTROLLER_FAULTS = {
    "a": Fault("S0", "transient"),
    "b": Fault("S3", "transient", times=2),
    "c": Fault("S1", "extra_fact", fact="legacy_builder_seen"),
    "d": Fault("S4", "withdraw", fact="patch_applied"),
    "e": Fault("S3", "side_effect"),
    "f": Fault("S2", "transient"),
}
_CHOICES = {
    "retry": ("retry", "retry it", "retry in place"),
    "rollback": (
        "rollback",
        "roll back",
        "rollback then retry",
        "roll back and retry",
        "rollback and retry",
    ),
    "proceed": ("proceed", "go on", "continue", "carry on"),
    "local replan": ("local replan", "replan", "local re plan", "re plan", "replan locally"),
}


def _controller_choice(plan: Plan, fault: Fault) -> str:
    """What the controller did after ``fault``, read from the planner's run: nothing failed (proceed), a retry (of a
    writing step: rollback first), or a voided scope re-issued (local replan)."""
    run = simulate(plan, plan.contract, faults=[fault])
    kinds = [e.kind for e in run.events if e.step == fault.step or e.kind == "replan"]
    if "fail" not in kinds:
        return "proceed"
    if "replan" in kinds:
        return "local replan"
    if "retry" in kinds:
        return "rollback" if writes(plan.step(fault.step), plan.contract) else "retry"
    raise PlanvizError(f"the controller neither proceeded, retried nor replanned after {fault}")


def _choice(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    said = " ".join(value.strip().lower().replace("_", " ").replace("-", " ").rstrip(".!").split())
    return next((c for c, spellings in _CHOICES.items() if said in spellings), None)


def check_exercise_7(choices: Any = None) -> Feedback:
    """Exercise 7 (seed 004, the controller's four choices): for each failure of :data:`CONTROLLER_FAULTS`,
    ``retry``, ``rollback``, ``proceed`` or ``local replan``; a dict letter -> choice."""
    ex = "05 exercise 7"
    hint = (
        "did the failure break anything (proceed if not)? does a retry fix it, and does the step write "
        "(rollback first)? or did it spoil facts other steps need (local replan of the voided scope)?"
    )
    if is_blank(choices):
        return unanswered(ex, "check_exercise_7(choices={'a': ..., 'b': ..., ...})", hint)
    if not isinstance(choices, dict):
        return wrong(
            ex,
            f"expected a dict such as {{'a': 'retry', ...}}, got {type(choices).__name__} "
            f"{short(choices)}",
            hint,
        )
    letters = {str(k).strip().strip("().").lower(): v for k, v in choices.items()}
    extra = sorted(set(letters) - set(CONTROLLER_FAULTS))
    if extra:
        return wrong(
            ex,
            f"there is no failure {', '.join(map(repr, extra))}: they are "
            f"{', '.join(CONTROLLER_FAULTS)}",
            hint,
        )
    missing = [k for k in CONTROLLER_FAULTS if is_blank(letters.get(k))]
    if missing:
        return unanswered(ex, f"a choice for {', '.join(missing)}", hint)
    read = {k: _choice(v) for k, v in letters.items()}
    unread = [k for k, v in read.items() if v is None]
    if unread:
        return wrong(
            ex,
            f"{unread[0]}: {short(letters[unread[0]])} is not one of retry, rollback, proceed, "
            "local replan",
            hint,
        )
    if len(set(read.values())) == 1:
        return wrong(
            ex,
            f"every failure gets {next(iter(read.values()))!r}: one choice does not fit every failure",
            hint,
        )
    plan = _cache()
    off = [k for k, f in CONTROLLER_FAULTS.items() if read[k] != _controller_choice(plan, f)]
    if off:
        return wrong(
            ex,
            f"{len(off)} of {len(CONTROLLER_FAULTS)} choices are not what the controller does",
            hint,
        )
    return right(
        ex,
        "retry what a retry can fix; roll a writing step back before retrying it; proceed when "
        "nothing the plan needs was broken; replan locally (void the scope, re-issue it) when a "
        "failure spoiled facts other steps need. The run's events say which one the controller took.",
    )
