"""Checks for notebook 06, debugging a failed run (notebooks/06_debugging_a_failed_run.ipynb).

``check_reachable(fn)`` compares the student's own reachable-route function
with :func:`planviz.reachable` on a few hundred random plans and run states;
``check_exercise_1..5`` check the exercises (4: an executor acting outside the plan, found
with ``frozen_plan_test(plan, contract, trace=run)`` on a recorded run; 5: replanning on an empty
result that has dependents, seed 003) at the end of the notebook.
Solutions: notebooks/solutions/06_debugging_a_failed_run.py (run it with
``%run -i`` at the end of the notebook: it uses the notebook's agent).

>>> check_reachable(lambda plan, completed, facts: set()).passed
False
>>> check_exercise_2(None, "b").passed
False
"""

from __future__ import annotations

from typing import Any

from planviz.analysis.reach import reachable
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.runs.evaluation.frozenplan import frozen_plan_test
from planviz.runs.events import Run
from planviz.runs.measures.runmetrics import attribution as blame
from planviz.teaching.agreement import agreement, reach_cases
from planviz.teaching.answers import Unreadable, id_of, ids, in_plan, same_word, short, stop_reason
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
    "check_reachable",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "check_exercise_4",
    "check_exercise_5",
]


def _oracle(plan: Any, completed: frozenset[str], facts: frozenset[str]) -> frozenset[str]:
    return reachable(plan, completed, facts).steps


def check_reachable(fn: Any) -> Feedback:
    """Your ``reachable(plan, completed, facts)`` against :func:`planviz.reachable` (its ``.steps``).

    It must return the ids of the remaining (not completed) steps that could
    still become ready if every future step succeeded.
    """

    def hint(case: Any, expected: frozenset[str], got: Any) -> str:
        plan, completed, facts = case
        if not isinstance(got, frozenset):
            return "start from the facts held and the completed steps, and add steps while you can"
        if got & completed:
            return "completed steps are not remaining work: leave them out"
        if got - expected:
            lost = {f for sid in completed for f in plan.step(sid).produces} - facts
            extra = got - expected
            if any(
                d not in completed and d not in got for s in extra for d in plan.step(s).depends_on
            ):
                return "a step also waits for its dependencies: each must be completed or reachable itself"
            if any(set(plan.step(s).requires) & lost for s in extra):
                return (
                    "a completed step is not run again: a fact it produced that is no longer held stays lost, "
                    "unless a remaining step produces it"
                )
            return (
                "do not start from every step and remove the blocked ones: two blocked steps waiting on each "
                "other's facts would keep each other in. Start from what is certain and grow"
            )
        return (
            "a fact produced by a step you already found reachable counts as available for later steps; "
            "keep going until nothing new is added"
        )

    return agreement(
        "06 reachable",
        fn,
        _oracle,
        reach_cases(),
        fresh=reach_cases,
        name="reachable",
        build="reachable",
        question=lambda plan, completed, facts: (
            f"reachable(plan, completed={_set(completed)}, facts={_set(facts)})"
        ),
        hint=hint,
    )


def _set(items: frozenset[str]) -> str:
    return "{" + ", ".join(repr(x) for x in sorted(items)) + "}" if items else "set()"


def _first_failure(run: Run) -> str | None:
    return next((e.step for e in run.events if e.kind == "fail"), None)


def _recorded(ex: str, run: Any, what: str, how: str) -> Feedback | None:
    """A "not yet" for no run, or a run that was simulated (or loaded from a simulation) where a recording
    is asked."""
    bad = unusable(ex, run, Run, what, "a planviz Run", how)
    if bad is not None:
        return bad
    if run.strategy != "recorded":
        return wrong(
            ex,
            f"that run was simulated (strategy {run.strategy!r}{', with injected faults' if run.faults else ''}), "
            "not recorded from the notebook's agent",
            how,
        )
    return None


def _report(run: Run, step: str) -> dict[str, Any] | None:
    """What the agent's tool reported for ``step`` the first time it finished (its observation's data)."""
    obs = next(
        (
            e.observation
            for e in run.events
            if e.step == step and e.observation is not None and e.kind in ("complete", "fail")
        ),
        None,
    )
    return dict(obs.data) if obs is not None else None


def check_exercise_1(run: Any = None, failed_step: Any = None, attribution: Any = None) -> Feedback:
    """Exercise 1: with a stricter rule for S1, where does the run fail (``failed_step``) and what does
    :func:`planviz.attribution` blame (its ``party``, your ``attribution``)? Pass the ``run`` you recorded too."""
    ex = "06 exercise 1"
    how = "record a new run with the stricter observer: recorder.run"
    refused = _recorded(ex, run, "check_exercise_1(run=..., failed_step=..., attribution=...)", how)
    if refused is not None:
        return refused
    first = _first_failure(run)
    if first is None:
        return wrong(
            ex,
            f"nothing failed in that run (outcome {run.outcome})",
            "the S1 rule must reject a key builder that nothing calls (result['callers'])",
        )
    if first != "S1":
        return wrong(
            ex,
            f"in your run the first step to fail is {first!r}, so the S1 rule is not strict yet",
            "the S1 rule must reject a key builder that nothing calls (result['callers'])",
        )
    if is_blank(failed_step) or is_blank(attribution):
        return unanswered(
            ex,
            "your answers failed_step=... and attribution=...",
            "read run.to_text() and call planviz.attribution(run).party",
        )
    report = _report(run, "S1") or {}
    if report.get("callers"):
        return wrong(
            ex,
            "S1 failed although its report names a key builder that is called: that is not the "
            "stricter rule at work",
            "fail S1 only when result['callers'] is empty",
        )
    named = id_of(failed_step)
    if isinstance(named, Unreadable):
        return wrong(
            ex,
            f"failed_step should be a step id: {named.why}",
            "read run.to_text(): which step has a fail event?",
        )
    # S1.v2 never ran: it is not S1
    if in_plan((named,), {e.step for e in run.events if e.step}) != (first,):
        return wrong(
            ex,
            f"{short(failed_step)} is not where your run fails",
            "read run.to_text(): which step has a fail event?",
        )
    expected = blame(run, run.contract).party
    if not same_word(attribution, str(expected)):
        return wrong(
            ex,
            f"planviz.attribution does not say {short(attribution)} for this run",
            "call planviz.attribution(run) and read its docstring (help(planviz.attribution))",
        )
    return right(
        ex,
        f"the stricter observer stops the run where the route died (t={run.time:g}), before the "
        f"patch and its verification are spent, and attribution blames {expected!r}.",
    )


_CRASH = {
    "a": "load_trace refuses a line it cannot read, but every line kept here is whole: nothing is unreadable",
    "c": "the events before the cut are all there; nothing is thrown away",
}


def check_exercise_2(run: Any = None, choice: Any = None) -> Feedback:
    """Exercise 2: the run ``load_trace`` gives back from a trace cut after its 8th line, and what that is (a, b, c)."""
    ex = "06 exercise 2"
    how = "cut = OUT / 'cut.jsonl'; cut.write_text(''.join(trace_path.read_text().splitlines(True)[:8]))"
    bad = unusable(
        ex,
        run,
        Run,
        "check_exercise_2(run=planviz.load_trace(cut), choice=...)",
        "a planviz Run",
        how,
    )
    if bad is not None:
        return bad
    if run.outcome is not None or any(e.kind == "stop" for e in run.events):
        return wrong(
            ex,
            f"that run ends with outcome {run.outcome!r}: it is a whole trace, not a cut one",
            how,
        )
    if not run.events:
        return wrong(ex, "that run has no events: keep the header, the plan and some events", how)
    return multiple_choice(ex, choice, "b", _CRASH, "print(run.to_text()) and run.outcome")


_COMPLETE = {
    "a": "planviz reads what the observer reported; it does not need to see the code base to claim something",
    "c": "a truncated run has no outcome at all; this one stopped",
}


def check_exercise_3(run: Any = None, choice: Any = None) -> Feedback:
    """Exercise 3: a run with ``locate`` fixed that ends ``plan_complete``, and why planviz does not call that
    "goal reached" (a, b, c)."""
    ex = "06 exercise 3"
    how = "fix locate() to return the key builder that is called, then record a new run"
    refused = _recorded(ex, run, "check_exercise_3(run=..., choice=...)", how)
    if refused is not None:
        return refused
    if run.outcome != "plan_complete":
        return wrong(ex, f"that run ends {run.outcome!r}, not plan_complete", how)
    if any(e.kind in ("fail", "replan", "invalidate") for e in run.events):
        return wrong(
            ex,
            "that run completes only after a failure and a replan: its second look at S1 found the "
            "builder, not its first",
            how,
        )
    report = _report(run, "S1") or {}
    if not report.get("callers"):
        return wrong(
            ex,
            "in that run S1 still reports a key builder that nothing calls: locate is not fixed",
            how,
        )
    return multiple_choice(
        ex,
        choice,
        "b",
        _COMPLETE,
        "what does completing every step's milestones prove, and what could a plan leave out?",
    )


def check_exercise_4(run: Any = None, out_of_plan: Any = None, attribution: Any = None) -> Feedback:
    """Exercise 4: a recorded ``run`` of an executor that makes a call the route does not have, the calls the
    frozen-plan test finds outside the plan (``out_of_plan``) and its ``attribution``."""
    ex = "06 exercise 4"
    how = (
        "record a run with run_agent on a route of your own (the plan's steps and one more call), then "
        "frozen = planviz.frozen_plan_test(plan, contract, trace=your_run) and read frozen.out_of_plan"
    )
    refused = _recorded(ex, run, "check_exercise_4(run=..., out_of_plan=..., attribution=...)", how)
    if refused is not None:
        return refused
    plan = load("cache_isolation")
    try:
        frozen = frozen_plan_test(plan, plan.contract, trace=run)
    except PlanvizError as exc:
        return wrong(
            ex, f"the frozen-plan test cannot read that run against the notebook's plan: {exc}", how
        )
    skipped = [sid for sid, p in frozen.steps.items() if not p.performed]
    if skipped:
        return wrong(
            ex,
            f"your executor never performed {', '.join(skipped)} of the route: that is a different "
            "route, not an executor that adds a call to this one",
            "keep every step of the plan and add one call the plan does not have",
        )
    if not frozen.out_of_plan:
        return wrong(
            ex,
            "the frozen-plan test finds no call outside the plan in that run: your executor kept to "
            "the route",
            "give your route one more step (a call the plan does not have) and make "
            "sure the agent runs it before it stops",
        )
    if is_blank(out_of_plan) or is_blank(attribution):
        return unanswered(ex, "your answers out_of_plan=... and attribution=...", how)
    named = ids(out_of_plan)
    if isinstance(named, Unreadable):
        return wrong(ex, f"out_of_plan should be step ids: {named.why}", how)
    if named != frozenset(frozen.out_of_plan):
        return wrong(
            ex,
            f"the frozen-plan test does not find {_set(frozenset(named))} outside the plan in your run",
            how,
        )
    if not same_word(attribution, str(frozen.attribution)):
        return wrong(
            ex,
            f"the frozen-plan test does not blame {short(attribution)} for your run",
            "read frozen.attribution and frozen.reason",
        )
    return right(
        ex,
        f"the trace shows {_set(frozenset(frozen.out_of_plan))} outside the route, read from what the "
        f"executor did, not from what it said; with the route fixed the blame is "
        f"{frozen.attribution!r}. On an agent that improvises, out_of_plan is the first column to read.",
    )


def check_exercise_5(run: Any = None) -> Feedback:
    """Exercise 5 (seed 003): a recorded ``run`` in which a step returned an empty result (an observation with no
    fact) while other steps depend on it, and the agent replanned (re-issued it) before any dependent started,
    and completed."""
    ex = "06 exercise 5"
    how = (
        "record a run with the empty-first locate and your agent: on an empty result of a step that has "
        "dependents, invalidate it and its descendants and replan (planviz.reissue) instead of stopping"
    )
    refused = _recorded(ex, run, "check_exercise_5(run=...)", how)
    if refused is not None:
        return refused
    first = run.plans[0] if run.plans else None
    empty = next(
        (
            e
            for e in run.events
            if e.kind == "fail"
            and e.observation is not None
            and not e.observation.facts
            and first is not None
            and e.step in first.ids
            and any(e.step in s.depends_on for s in first.steps)
        ),
        None,
    )
    if empty is None or first is None:
        return wrong(
            ex,
            "no step of that run returned an empty result while other steps depend on it",
            "use the tools whose locate finds nothing on its first look (empty_tools)",
        )
    after = run.events[empty.index + 1 :]
    dependents = {s.id for s in first.steps if empty.step in s.depends_on}
    started = next(
        (
            e
            for e in after
            if e.kind == "start"
            and (
                e.step in dependents
                or any(
                    s.id == e.step and s.revises in dependents for p in run.plans for s in p.steps
                )
            )
        ),
        None,
    )
    replan = next((e for e in after if e.kind == "replan"), None)
    if replan is None:
        return wrong(
            ex,
            f"{empty.step!r} came back empty and the agent {'stopped' if started is None else 'went on'}"
            " without a new plan: that is the implicit agent of seed 003, which stops there",
            how,
        )
    if started is not None and started.index < replan.index:
        return wrong(
            ex,
            f"{started.step!r} started on {empty.step!r}'s empty result before any replan: the empty "
            "result was passed on to a step that needs it",
            how,
        )
    redo = [s.id for p in run.plans for s in p.steps if s.revises == empty.step]
    done = {e.step for e in run.events if e.kind == "complete"}
    if not any(r in done for r in redo):
        return wrong(
            ex,
            f"the new plan never completes a step that revises {empty.step!r}: the empty result was "
            "not asked for again",
            "re-issue the empty step (planviz.reissue) so it is tried again",
        )
    if run.outcome != "plan_complete":
        return wrong(ex, f"the run ends {stop_reason(run)}", how)
    return right(
        ex,
        f"{empty.step!r} came back empty with {', '.join(sorted(dependents))} waiting on it; the agent "
        "replanned before any of them started, the re-issued step found what they need, and the run "
        "completed. An implicit agent stops there (seed 003): the plan knows who needs the result.",
    )
