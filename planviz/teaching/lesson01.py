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
from typing import Any

import networkx as nx

from planviz.checks.validation import validate
from planviz.examples import load
from planviz.plan.model import Plan, Step
from planviz.structure.graph import to_graph
from planviz.teaching.agreement import agreement, ancestor_cases
from planviz.teaching.answers import Unreadable, ids, same_word, short, words
from planviz.teaching.cases import has_cycle, order_plans
from planviz.teaching.feedback import (
    Feedback,
    is_blank,
    multiple_choice,
    right,
    unanswered,
    unusable,
    wrong,
)

__all__ = [
    "check_ancestors",
    "check_topological_order",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "NEW_STEP",
]

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
                return (
                    "depends_on gives only the direct parents; their parents must finish first too "
                    "(keep a to-do stack)"
                )
            return "follow depends_on all the way back: every parent of an ancestor is an ancestor"
        if isinstance(got, frozenset) and got - expected:
            return "an ancestor is reached by following depends_on backwards; coming earlier in the file is not enough"
        return "start from plan.step(step_id).depends_on and walk backwards, remembering what you have seen"

    return agreement(
        "01 ancestors",
        ancestors,
        _oracle,
        ancestor_cases(),
        fresh=ancestor_cases,
        name="ancestors",
        build="ancestors",
        question=lambda plan, sid: f"ancestors(plan, {sid!r})",
        hint=hint,
    )


def _reference() -> Plan:
    """The cache plan with the new step after the producers of the facts it requires (the exercise's intent)."""
    plan = load("cache_isolation")
    sid, needs, makes = NEW_STEP
    producers = sorted({s.id for s in plan.steps if set(s.produces) & set(needs)})
    step = Step(
        sid,
        "Deploy the fix behind a feature flag",
        depends_on=producers,
        requires=needs,
        produces=makes,
        expected_evidence="the flag is on in staging and the isolation test passes there",
    )
    return plan.replace(steps=plan.steps + (step,))


def check_exercise_1(plan: Any) -> Feedback:
    """Exercise 1: the cache plan with a new step S5 that requires what the exercise says, and validates clean."""
    ex = "01 exercise 1"
    sid, needs, makes = NEW_STEP
    how = "plan.replace(steps=plan.steps + (Step('S5', ...),))"
    bad = unusable(ex, plan, Plan, "pass the plan with your new step S5", "a planviz Plan", how)
    if bad is not None:
        return bad
    if sid not in plan:
        near = [s.id for s in plan.steps if s.id.strip().lower() == sid.lower()]
        if near:  # ids are exact names: other steps depend on them as written
            return wrong(
                ex,
                f"your new step is called {near[0]!r}; ids are case-sensitive, so it is not {sid!r}",
                f"give the new step the id {sid!r}",
            )
        return wrong(ex, f"your plan has no step {sid!r}", f"give the new step the id {sid!r}")
    original = load("cache_isolation")
    changed = [s.id for s in original.steps if s.id not in plan or plan.step(s.id) != s]
    if changed:
        return wrong(
            ex,
            f"you changed {', '.join(changed)} too",
            "add S5 and leave the other steps as they are",
        )
    step = plan.step(sid)
    produced = {f for s in plan.steps for f in s.produces}
    vouched = sorted((set(plan.premises) - set(original.premises)) & produced)
    given = sorted(
        (
            set(plan.contract.given_facts if plan.contract else ())
            - set(original.contract.given_facts if original.contract else ())
        )
        & produced
    )
    if vouched or given:
        where = "premises" if vouched else "the contract's given_facts"
        return wrong(
            ex,
            f"you listed {', '.join(vouched or given)} in {where}, but a step of the plan produces "
            f"{'it' if len(vouched or given) == 1 else 'them'}: the plan would vouch for its own facts, "
            "and S5 could start before anything established them",
            "leave premises and the contract as they were; make S5 come after the step that produces "
            "what it requires",
        )
    if plan.premises != original.premises or plan.contract != original.contract:
        return wrong(
            ex,
            "you changed the plan's premises or its contract too",
            "add S5 and leave the rest of the plan as it was",
        )
    missing = [f for f in needs if f not in step.requires]
    if missing:
        return wrong(
            ex,
            f"S5 must require {' and '.join(needs)}; it does not require {', '.join(missing)}",
            "Step(..., requires=[...])",
        )
    if makes not in step.produces:
        return wrong(ex, f"S5 must produce {makes!r}", "Step(..., produces=[...])")
    report = validate(plan, plan.contract)
    codes = sorted({f.code for f in report.findings if sid in f.steps})
    ancestors = nx.ancestors(to_graph(plan), sid)
    unsupported = [f for f in needs if not any(f in plan.step(a).produces for a in ancestors)]
    if "unmet_requirement" in codes or unsupported:
        return wrong(
            ex,
            "planviz finds unmet_requirement: S5 requires a fact that no step it depends on "
            "(directly or through other steps) produces",
            "which step produces isolation_verified? S5 has to come after it in the graph, not only in the file",
        )
    if "no_evidence" in codes:
        return wrong(
            ex,
            "planviz finds no_evidence: nobody could tell whether S5 worked",
            "give S5 an expected_evidence: what would you see if the deploy worked?",
        )
    if not report.ok:
        found = sorted({f.code for f in report.findings if f.severity == "error"})
        return wrong(
            ex,
            f"your plan does not validate: {', '.join(found)}",
            "print(planviz.validate(plan, plan.contract))",
        )
    return right(
        ex,
        f"S5 comes after {', '.join(step.depends_on)}, which produces what it requires, and the plan "
        "validates clean.",
    )


def check_exercise_2(facts: Any) -> Feedback:
    """Exercise 2: the facts the new edge into S5 carries."""
    ex = "01 exercise 2"
    g = to_graph(_reference())
    (edge,) = [(u, v) for u, v in g.in_edges(NEW_STEP[0])]
    expected = set(g.edges[edge]["facts"])
    hint = "for u, v, facts in planviz.to_graph(plan).edges(data='facts'): print(u, v, facts)"
    if is_blank(facts):
        return unanswered(ex, "the facts the edge into S5 carries, as a list of names", hint)
    given = words(facts)
    if isinstance(given, Unreadable):
        return wrong(ex, f"expected a list of fact names (strings): {given.why}", hint)
    read = words(sorted(expected))
    expected = set(read) if isinstance(read, frozenset) else expected
    if given == expected:
        return right(ex, "an edge carries the facts its source produces that its target requires.")
    extra, missing = sorted(given - expected), len(expected - given)
    parts = [f"not carried: {', '.join(extra)}"] if extra else []
    if missing:
        parts.append(f"{missing} fact(s) the edge carries are missing")
    return wrong(
        ex,
        "; ".join(parts),
        "an edge carries what its source produces and its target requires; " + hint,
    )


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
        return unanswered(
            ex, "the code of the finding planviz reports, and the letter of the reason", hint
        )
    if not any(same_word(code, c) for c in expected):
        return wrong(ex, f"planviz does not report {code!r} for S5 without depends_on", hint)
    return multiple_choice(
        ex,
        reason,
        "b",
        _EX3_CHOICES,
        "what decides when S5 may start: its place in the file, or its dependencies?",
    )


def _order_oracle(plan: Plan) -> tuple[str, ...] | None:
    """One order planviz accepts (None for a cycle): the lexicographic topological sort of its graph."""
    return None if has_cycle(plan) else tuple(nx.lexicographical_topological_sort(to_graph(plan)))


def _read_order(value: Any) -> Any:
    if value is None:
        return "no order"  # the answer "this plan has a cycle"
    if isinstance(value, str):
        return Unreadable(f"str {short(value)}; return a list of step ids, first to last")
    return ids(value, ordered=True)


def _valid_order(plan: Plan, got: Any) -> bool:
    if not isinstance(got, tuple) or sorted(got) != sorted(plan.ids):
        return False
    place = {sid: i for i, sid in enumerate(got)}
    return all(place[d] < place[s.id] for s in plan.steps for d in s.depends_on)


def check_topological_order(order: Any) -> Feedback:
    """Your ``order(plan)``: the step ids in an order where every step comes after its ``depends_on``, or
    ``None`` when the plan has a cycle (no such order exists). Any valid order is right."""
    cases = [(plan,) for plan in order_plans()]

    def judge(case: Any, expected: Any, got: Any) -> bool:
        return got == "no order" if expected is None else _valid_order(case[0], got)

    def say(case: Any, expected: Any, got: Any) -> str:
        plan = case[0]
        if expected is None:
            return (
                f"this plan has a cycle, so no order exists (return None); yours says {_shown(got)}"
            )
        if got == "no order":
            return "yours returned None (a cycle), but this plan has none"
        if sorted(got) != sorted(plan.ids):
            missing = sorted(set(plan.ids) - set(got))
            return f"yours says {_shown(got)}: " + (
                f"missing {', '.join(missing)}" if missing else "not every step exactly once"
            )
        place = {sid: i for i, sid in enumerate(got)}
        bad = next((d, s.id) for s in plan.steps for d in s.depends_on if place[d] > place[s.id])
        return f"yours says {_shown(got)}: {bad[1]} comes before {bad[0]}, which it depends on"

    def hint(case: Any, expected: Any, got: Any) -> str:
        if expected is None:
            return (
                "when no step is left with all its dependencies placed but steps remain, they wait for each "
                "other: that is a cycle"
            )
        return (
            "repeatedly take a step whose dependencies are all placed already (count each step's unplaced "
            "dependencies, like Kahn's algorithm)"
        )

    return agreement(
        "01 topological order",
        order,
        _order_oracle,
        cases,
        fresh=lambda count, seed: [(plan,) for plan in order_plans(count, seed=seed)],
        name="order",
        build="topological_order",
        question=lambda plan: "order(plan)",
        hint=hint,
        read=_read_order,
        judge=judge,
        say=say,
        returns="a list of step ids (or None for a cycle)",
    )


def _shown(got: Any) -> str:
    return " -> ".join(got) if isinstance(got, tuple) and got else str(got)
