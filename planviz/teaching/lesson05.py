"""Checks for notebook 05, replanning and the rules every revision obeys (notebooks/05_replanning_rules.ipynb).

Exercises 4 and 5 came from notebook 04 when it was split (their names are
kept; the notebook numbers its exercises on from 04's). Every expected answer
is computed here with planviz (simulations of the bundled ``cache_isolation``
plan), so a check follows the library. Solutions:
notebooks/solutions/05_replanning_rules.py.

>>> check_exercise_4(kept=None, choice="b").passed
False
>>> check_exercise_5(propose=lambda goal, contract, state, old: old).passed
False
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ..errors import PlanvizError
from ..examples import load
from ..plan.model import Plan
from ..runs.events import Run
from ..runs.fault import Fault
from ..runs.measures import metrics
from ..runs.revision import redundant_work
from ..runs.simulation import simulate
from .answers import Unreadable, ids, stop_reason
from .guards import FORBIDDEN, LibraryUsed, forbidden, library_calls, used_message
from .feedback import Feedback, is_blank, multiple_choice, right, unanswered, wrong

__all__ = ["check_exercise_4", "check_exercise_5"]


def _cache() -> Plan:
    return load("cache_isolation")


def check_exercise_4(kept: Any = None, choice: Any = None) -> Feedback:
    """Exercise 4: a goal change at S3 with a new goal but no contract: which completed steps are ``kept``, and
    why (a, b, c)?"""
    ex = "05 exercise 4"
    plan = _cache()
    run = simulate(plan, plan.contract, faults=[Fault("S3", "goal_change", goal="Every tenant gets its own cache")])
    expected = frozenset(e.step for e in run.events if e.kind == "recheck" and e.step in e.kept)
    hint = "read the recheck events: each says why the step is kept or voided"
    if is_blank(kept):
        return unanswered(ex, "check_exercise_4(kept={...}, choice=...)", hint)
    got = ids(kept)
    if isinstance(got, Unreadable):
        return wrong(ex, f"kept is a set of step ids: {got.why}", hint)
    if got != expected:
        return wrong(ex, "not the steps the re-check keeps", hint)
    return multiple_choice(ex, choice, "b", _WHY_KEPT, "what does the re-check compare a completed step with?")


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
    called = library_calls(propose, FORBIDDEN["replanner"])
    if called:
        return wrong(ex, *used_message("replanner", called))
    plan = _cache()
    try:
        with forbidden(FORBIDDEN["replanner"]):
            run = simulate(plan, plan.contract, faults=[Fault("S4", "side_effect")], propose=propose)
    except LibraryUsed as exc:
        return wrong(ex, *used_message("replanner", exc.name))
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
        return wrong(ex, f"the revision was refused: {stop.message}",
                     "a completed step keeps its id and its meaning: redo work under a new id (planviz.reissue)")
    redundant = [sid for e in run.events if e.kind == "replan" for sid in _redundant(run, e.index)]
    if redundant:
        return wrong(ex, f"the revision redoes work whose facts are already held: {', '.join(redundant)}", how)
    if run.outcome != "plan_complete":
        return wrong(ex, f"the run ends {stop_reason(run)}", how)
    m = metrics(run)
    return right(ex, f"the run completes at t={run.time:g} with {m.duplicate_steps} repeated step(s), only the "
                     "voided ones. Completed ids keep their meaning, and a revision redoes only what the failure "
                     "voided.")
