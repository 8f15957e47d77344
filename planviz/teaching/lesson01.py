"""Checks for notebook 01, from a checklist to a plan (notebooks/01_checklist_to_plan.ipynb).

``check_ancestors(fn)`` compares the student's own ancestor function with
planviz on a few hundred random plans; ``check_exercise_1..3`` check the
exercises at the end of the notebook. Solutions: notebooks/solutions/01_checklist_to_plan.py.

>>> check_exercise_2(["fix_deployed"]).passed
False
>>> check_ancestors(lambda plan, step_id: set()).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

import networkx as nx

from ..errors import show_value
from ..checks.validation import validate
from ..examples import load
from ..plan.model import Plan, Step
from ..structure.graph import to_graph
from .agreement import agreement, ancestor_cases
from .feedback import Feedback, is_blank, multiple_choice, right, unanswered, wrong

__all__ = ["check_ancestors", "check_exercise_1", "check_exercise_2", "check_exercise_3", "NEW_STEP"]

#: What exercise 1 asks of the new step: (id, facts it requires, fact it produces).
NEW_STEP = ("S5", ("isolation_verified", "hit_rate_ok"), "fix_deployed")


def _oracle(plan: Plan, step_id: str) -> frozenset[str]:
    return frozenset(nx.ancestors(to_graph(plan), step_id))


def check_ancestors(ancestors: Any) -> Feedback:
    """Your ``ancestors(plan, step_id)`` against planviz's graph (``nx.ancestors(planviz.to_graph(plan), id)``).

    ``ancestors`` must return the ids of every step that has to finish before
    ``step_id`` can start, through ``depends_on`` chains of any length, and
    not ``step_id`` itself.
    """
    def hint(case: Any, expected: frozenset[str], got: Any) -> str:
        plan, sid = case
        if isinstance(got, frozenset) and sid in got:
            return "a step is not its own ancestor: leave step_id out"
        if isinstance(got, frozenset) and got < expected:
            direct = set(plan.step(sid).depends_on)
            if got <= direct:
                return "depends_on gives only the direct parents; their parents must finish first too (keep a to-do stack)"
            return "follow depends_on all the way back: every parent of an ancestor is an ancestor"
        if isinstance(got, frozenset) and got - expected:
            return "an ancestor is reached by following depends_on backwards; coming earlier in the file is not enough"
        return "start from plan.step(step_id).depends_on and walk backwards, remembering what you have seen"

    return agreement("01 ancestors", ancestors, _oracle, ancestor_cases(), name="ancestors",
                     question=lambda plan, sid: f"ancestors(plan, {sid!r})", hint=hint)


def _reference() -> Plan:
    """The cache plan with the new step after the producers of the facts it requires (the exercise's intent)."""
    plan = load("cache_isolation")
    sid, needs, makes = NEW_STEP
    producers = sorted({s.id for s in plan.steps if set(s.produces) & set(needs)})
    step = Step(sid, "Deploy the fix behind a feature flag", depends_on=producers, requires=needs, produces=makes,
                expected_evidence="the flag is on in staging and the isolation test passes there")
    return plan.replace(steps=plan.steps + (step,))


def check_exercise_1(plan: Any) -> Feedback:
    """Exercise 1: the cache plan with a new step S5 that requires what the exercise says, and validates clean."""
    ex = "01 exercise 1"
    sid, needs, makes = NEW_STEP
    how = "plan.replace(steps=plan.steps + (Step('S5', ...),))"
    if is_blank(plan):
        return unanswered(ex, "pass the plan with your new step S5", how)
    if not isinstance(plan, Plan):
        return wrong(ex, f"expected a planviz Plan, got {type(plan).__name__}", how)
    if sid not in plan:
        return wrong(ex, f"your plan has no step {sid!r}", f"give the new step the id {sid!r}")
    original = load("cache_isolation")
    changed = [s.id for s in original.steps if s.id not in plan or plan.step(s.id) != s]
    if changed:
        return wrong(ex, f"you changed {', '.join(changed)} too", "add S5 and leave the other steps as they are")
    step = plan.step(sid)
    missing = [f for f in needs if f not in step.requires]
    if missing:
        return wrong(ex, f"S5 must require {' and '.join(needs)}; it does not require {', '.join(missing)}",
                     "Step(..., requires=[...])")
    if makes not in step.produces:
        return wrong(ex, f"S5 must produce {makes!r}", "Step(..., produces=[...])")
    report = validate(plan, plan.contract)
    codes = sorted({f.code for f in report.findings if sid in f.steps})
    if "unmet_requirement" in codes:
        return wrong(ex, "planviz finds unmet_requirement: S5 requires a fact that no step it depends on "
                         "(directly or through other steps) produces",
                     "which step produces isolation_verified? S5 has to come after it in the graph, not only in the file")
    if "no_evidence" in codes:
        return wrong(ex, "planviz finds no_evidence: nobody could tell whether S5 worked",
                     "give S5 an expected_evidence: what would you see if the deploy worked?")
    if not report.ok:
        found = sorted({f.code for f in report.findings if f.severity == "error"})
        return wrong(ex, f"your plan does not validate: {', '.join(found)}", "print(planviz.validate(plan, plan.contract))")
    return right(ex, f"S5 comes after {', '.join(step.depends_on)}, which produces what it requires, and the plan "
                     "validates clean.")


def check_exercise_2(facts: Any) -> Feedback:
    """Exercise 2: the facts the new edge into S5 carries."""
    ex = "01 exercise 2"
    g = to_graph(_reference())
    (edge,) = [(u, v) for u, v in g.in_edges(NEW_STEP[0])]
    expected = set(g.edges[edge]["facts"])
    hint = "for u, v, facts in planviz.to_graph(plan).edges(data='facts'): print(u, v, facts)"
    if is_blank(facts):
        return unanswered(ex, "the facts the edge into S5 carries, as a list of names", hint)
    if isinstance(facts, str) or not isinstance(facts, Iterable):
        return wrong(ex, f"expected a list of fact names, got {type(facts).__name__} {show_value(facts, 60)}", hint)
    given = {str(f) for f in facts}
    if given == expected:
        return right(ex, "an edge carries the facts its source produces that its target requires.")
    extra, missing = sorted(given - expected), len(expected - given)
    parts = [f"not carried: {', '.join(extra)}"] if extra else []
    if missing:
        parts.append(f"{missing} fact(s) the edge carries are missing")
    return wrong(ex, "; ".join(parts), "an edge carries what its source produces and its target requires; " + hint)


_EX3_CHOICES = {
    "a": "validation does not distrust the file format; file order would be just as reliable as depends_on "
         "if it meant anything",
    "c": "required facts may come from any step the requiring step depends on, not only from premises",
}


def check_exercise_3(code: Any, reason: Any = None) -> Feedback:
    """Exercise 3: the finding planviz reports once S5 has no ``depends_on``, and why (choice a, b or c)."""
    ex = "01 exercise 3"
    plan = _reference()
    loose = plan.replace(steps=plan.steps[:-1] + (replace(plan.steps[-1], depends_on=()),))
    expected = {f.code for f in validate(loose, loose.contract).findings if NEW_STEP[0] in f.steps}
    hint = "validate the plan without S5's depends_on and read each finding's code"
    if is_blank(code):
        return unanswered(ex, "the code of the finding planviz reports, and the letter of the reason", hint)
    if str(code) not in expected:
        return wrong(ex, f"planviz does not report {code!r} for S5 without depends_on", hint)
    return multiple_choice(ex, reason, "b", _EX3_CHOICES,
                           "what decides when S5 may start: its place in the file, or its dependencies?")
