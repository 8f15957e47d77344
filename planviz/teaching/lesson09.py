"""Checks for notebook 09, debugging a real trace (notebooks/09_debugging_a_real_trace.ipynb).

The traces are the bundled real ones (``planviz.examples.trace``): the same
task recorded under the OpenAI Agents SDK and under LangChain. Every expected
answer is computed here with planviz. Solutions:
notebooks/solutions/09_debugging_a_real_trace.py.

>>> check_exercise_1(first_divergence=4, differ={"time"}).passed
False
>>> check_exercise_4(source="get_current_time", field="datetime", kind="derived").passed
True
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from planviz.errors import PlanvizError
from planviz.examples import trace
from planviz.plan.model import Plan
from planviz.runs.comparisons.alignment import align
from planviz.runs.comparisons.rundiff import diff_runs
from planviz.runs.engine.simulation import simulate
from planviz.runs.events import Run
from planviz.runs.fault import Fault
from planviz.runs.hindsight.callrecords import result_leaves
from planviz.runs.hindsight.retrospect import hindsight
from planviz.runs.usage import Usage
from planviz.teaching.answers import Unreadable, same_word, short, whole_number, words
from planviz.teaching.feedback import (
    Feedback,
    is_blank,
    multiple_choice,
    right,
    unanswered,
    unusable,
    wrong,
)
from planviz.traces.own.tracefile import load_trace

__all__ = [
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "check_exercise_4",
    "USAGE",
    "KINDS",
]

#: How a call's argument can come from an earlier result (the reasons of ``Hindsight.data_edges``).
KINDS = ("exact", "contains", "derived")

#: The usage figures diff_runs compares.
USAGE = tuple(f.name for f in fields(Usage))


def _recorded() -> Run:
    return load_trace(trace("any-agent_OPENAI_trace"))


def _event_index(value: Any) -> int | None | Unreadable:
    """An event index from an answer (a number or its text), None for "no divergence", else Unreadable."""
    if value is None or (
        isinstance(value, str) and value.strip().lower() in ("none", "no divergence", "")
    ):
        return None
    got = whole_number(value)
    return got if got is not None else Unreadable(f"{short(value)} is not an event index")


def check_exercise_1(first_divergence: Any = ..., differ: Any = None) -> Feedback:
    """Exercise 1: the ``first_divergence`` diff_runs reports between the OpenAI and the LangChain run of the same
    task (an event index, or None), and the usage figures that ``differ``."""
    ex = "09 exercise 1"
    d = diff_runs(_recorded(), load_trace(trace("any-agent_LANGCHAIN_trace")))
    a, b = d.usage
    expected = {name for name in USAGE if getattr(a, name) != getattr(b, name)}
    hint = (
        "the two runs made the same tool calls in the same order; what did the extra model call add, "
        f"among {', '.join(USAGE)}?"
    )
    if first_divergence is Ellipsis or is_blank(differ):
        return unanswered(ex, "check_exercise_1(first_divergence=..., differ={...})", hint)
    if _event_index(first_divergence) != d.first_divergence:
        return wrong(
            ex,
            f"the first divergence is not {first_divergence!r}",
            "first_divergence compares the runs' events (starts, completions, failures), not their costs",
        )
    given = words(differ)
    if isinstance(given, Unreadable):
        return wrong(ex, f"differ should be the names of usage figures: {given.why}", hint)
    if not given:
        return wrong(ex, "differ names no usage figure", hint)
    unknown = sorted(given - set(USAGE))
    if unknown:
        return wrong(ex, f"{unknown[0]!r} is not a usage figure", hint)
    if given != expected:
        return wrong(
            ex, f"{len(expected - given)} figure(s) missing, {len(given - expected)} too many", hint
        )
    return right(
        ex,
        "no divergence: the runs did the same work event by event; the extra model call shows only in "
        "the cost figures (time, model calls, tokens, cost). Two agents can agree on what they did and "
        "still differ in what it cost.",
    )


_WORSE = {
    "a": "align matches by tool name and arguments; a shorter plan is not harder to match",
    "c": "the recorded run is the same whatever the declared plan says",
}


def check_exercise_2(plan: Any = None, choice: Any = None) -> Feedback:
    """Exercise 2: a declared ``plan`` that ``align`` finds entirely ``as_planned`` for the recorded run, and why
    that plan is worse (a, b, c)."""
    ex = "09 exercise 2"
    how = "remove a step from declared: Plan(declared.goal, [...]) and print(planviz.align(plan, run).to_text())"
    bad = unusable(ex, plan, Plan, "check_exercise_2(plan=..., choice=...)", "a planviz Plan", how)
    if bad is not None:
        return bad
    try:
        alignment = align(plan, _recorded())
    except PlanvizError as exc:
        return wrong(ex, f"align cannot use that plan: {exc}", how)
    off = [f.step for f in alignment.fates if f.fate != "as_planned"]
    if off or not alignment.fates:
        return wrong(
            ex, f"align does not find every step as planned ({', '.join(off) or 'no step'})", how
        )
    recorded = _recorded().plan
    dropped = sorted(
        {s.tool for s in (recorded.steps if recorded else ()) if s.tool}
        - {s.tool for s in plan.steps}
    )
    if "write_file" in dropped:
        return wrong(
            ex,
            "that plan no longer writes the year: it is not the task any more",
            "keep the work the agent was asked to do",
        )
    if dropped:
        return wrong(
            ex,
            f"that plan no longer calls {', '.join(dropped)}, which the agent did and the task needs: "
            "only the step the run skipped has to go",
            "keep the work the agent was asked to do",
        )
    return multiple_choice(ex, choice, "b", _WORSE, "what did the step you removed promise?")


def check_exercise_3(divergence: Any = None, outcome: Any = None) -> Feedback:
    """Exercise 3: a ``transient`` fault at ``get_current_time`` (workflow): the event where the runs diverge and
    the simulated run's ``outcome``."""
    ex = "09 exercise 3"
    recorded = _recorded()
    if recorded.plan is None:  # the lesson's recorded trace carries its plan
        raise PlanvizError("the recorded run carries no plan")
    simulated = simulate(
        recorded.plan, faults=[Fault("get_current_time", "transient")], strategy="workflow"
    )
    d = diff_runs(recorded, simulated)
    hint = "a transient failure makes the first call fail once: which event of the recorded run does it replace?"
    if is_blank(divergence) or is_blank(outcome):
        return unanswered(ex, "check_exercise_3(divergence=..., outcome=...)", hint)
    if _event_index(divergence) != d.first_divergence:
        return wrong(ex, f"the runs do not part at event {short(divergence)}", hint)
    if not same_word(outcome, str(simulated.outcome)):
        return wrong(
            ex,
            f"the divergence is right, but the simulated run does not end {short(outcome)}",
            "does a workflow retry a transient failure?",
        )
    return right(
        ex,
        f"they part at event {d.first_divergence}, where the recorded call completed and the simulated "
        f"one failed; the workflow retries it and the run still ends {simulated.outcome}. A divergence "
        "is where the stories part, not whether they end differently.",
    )


def _derived() -> tuple[str, str, str, tuple[str, ...]]:
    """write_file's data edge in the recorded run: (source step, kind, the argument part, the result fields
    holding it)."""
    run = _recorded()
    [(u, why)] = [(u, why) for u, v, why in hindsight(run).data_edges if v == "write_file"]
    kind = why.split(":")[0]
    part = (
        str(dict(next(s for s in run.plan.steps if s.id == "write_file").arguments)["text"])
        if run.plan
        else ""
    )
    result = dict(run.state.observations)[u].data.get("result")
    found = tuple(".".join(path) for path, leaf in result_leaves(result) if path and part in leaf)
    return u, kind, part, found


def check_exercise_4(source: Any = None, field: Any = None, kind: Any = None) -> Feedback:
    """Exercise 4: by hand, the call whose result ``write_file``'s argument came from (``source``), the ``field``
    of that result that holds it, and the ``kind`` of the copy (exact, contains or derived)."""
    ex = "09 exercise 4"
    u, expected_kind, part, fields_ = _derived()
    hint = (
        "print each step's arguments (run.plan.steps) and each observation's data['result'] "
        "(run.state.observations): where does write_file's text appear first?"
    )
    if is_blank(source) or is_blank(field) or is_blank(kind):
        return unanswered(ex, "check_exercise_4(source=..., field=..., kind=...)", hint)
    if not same_word(source, u):
        return wrong(ex, f"write_file's text {part!r} does not come from {short(source)}", hint)
    if not any(same_word(field, f) for f in fields_):
        return wrong(
            ex,
            f"the field {short(field)} of {u}'s result does not hold {part!r}",
            "a result is JSON: which of its fields holds the text?",
        )
    if not same_word(kind, expected_kind):
        why = {
            "exact": f"the field is not {part!r} whole",
            "contains": f"the argument is {part!r}, no more",
        }
        return wrong(
            ex,
            why.get(str(kind).strip().lower(), f"{short(kind)} is not one of {', '.join(KINDS)}"),
            "is the argument the whole field, does it hold the whole field, or a part of it?",
        )
    return right(
        ex,
        f"{part!r} is a part of {u}'s {fields_[0]}: derived. No value passed unchanged, so the old "
        "rule (whole values only) said the two calls shared no data and promised 0.316 s; a derived "
        "value needs a model call in between, so the ideal schedule keeps one there.",
    )
