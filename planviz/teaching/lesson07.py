"""Checks for notebook 07, is planning worth it? (notebooks/07_is_planning_worth_it.ipynb).

Every expected answer is computed here with planviz (simulations and
comparisons of the bundled ``cache_isolation`` plan), so a check follows the
library. Solutions: notebooks/solutions/07_is_planning_worth_it.py.

>>> check_exercise_1(tool_calls=15, model_calls=6, outcome="plan_complete").passed
False
>>> check_exercise_3(fault=None).passed
False
>>> check_reissue(lambda old, voided: old).passed
False
>>> check_exercise_5(evidence_rate=0.8, attribution="executor", planner_outcome="plan_complete").passed
False
"""

from __future__ import annotations

import math
import re
from dataclasses import fields, replace
from typing import Any

from planviz.analysis.schedule import critical_path
from planviz.analysis.timeline import ready_waves
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.identity import work_keys
from planviz.plan.model import Plan, Step
from planviz.runs.comparisons.comparison import compare_strategies
from planviz.runs.engine.revision import reissue as library_reissue
from planviz.runs.engine.simulation import simulate
from planviz.runs.evaluation.frozenplan import frozen_plan_test
from planviz.runs.events import Run
from planviz.runs.fault import Fault
from planviz.runs.measures.runmetrics import metrics
from planviz.teaching.agreement import agreement
from planviz.teaching.answers import Unreadable, number, same_word, short, stop_reason
from planviz.teaching.cases import reissue_cases
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, unusable, wrong
from planviz.teaching.mechanisms import choose, read_ablation

__all__ = [
    "check_reissue",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "check_exercise_4",
    "check_exercise_5",
    "check_exercise_6",
    "check_exercise_7",
    "STRUCTURAL",
    "MORE_REPLANS",
    "FROZEN_FAULT",
]

#: The structural side effect: every re-issued patch breaks the hit rate again.
STRUCTURAL = Fault("S4", "side_effect", times=10)
MORE_REPLANS = 5  # exercise 1


def check_exercise_1(
    tool_calls: Any = None, model_calls: Any = None, outcome: Any = None
) -> Feedback:
    """Exercise 1: with ``max_replans=5``, the planner's ``tool_calls``, ``model_calls`` and ``outcome`` on the
    structural side effect."""
    ex = "07 exercise 1"
    plan = load("cache_isolation")
    if plan.contract is None:  # the example comes with its contract
        raise PlanvizError("the example cache_isolation has no contract")
    run = simulate(plan, replace(plan.contract, max_replans=MORE_REPLANS), faults=[STRUCTURAL])
    m = metrics(run)
    hint = (
        "each replan re-issues S3 and S4 (two more tool calls) and costs one model call; how many replans "
        "before the cap, and does any of them change the approach?"
    )
    if is_blank(tool_calls) or is_blank(model_calls) or is_blank(outcome):
        return unanswered(
            ex, "check_exercise_1(tool_calls=..., model_calls=..., outcome=...)", hint
        )
    if not same_word(outcome, str(run.outcome)):
        return wrong(
            ex,
            f"the run does not end {short(outcome)}",
            "does re-issuing the same patch ever pass the check?",
        )
    if number(tool_calls) != m.tool_calls or number(model_calls) != m.model_calls:
        return wrong(ex, "the outcome is right, but not both counts", hint)
    return right(
        ex,
        f"{run.outcome} after {m.tool_calls} tool calls and {m.model_calls} model calls "
        f"({m.time:g} min): three more replans bought three more failures. A cap limits the damage "
        "of a wrong route; it does not find a right one.",
    )


def check_exercise_2(propose: Any = None) -> Feedback:
    """Exercise 2: a replanner ``propose(goal, contract, state, old)`` that gets the structural side effect's
    run to complete with another approach."""
    ex = "07 exercise 2"
    how = (
        "return a Plan: the completed steps as they are, then a new patch step and a new verification (new ids, "
        "no revises), producing the facts S3 and S4 promised"
    )
    if is_blank(propose):
        return unanswered(ex, "your replanner: check_exercise_2(propose=your_function)", how)
    if not callable(propose):
        return wrong(ex, f"expected a function, got {type(propose).__name__}", how)
    plan = load("cache_isolation")
    proposals: list[Any] = []

    def spy(goal: Any, contract: Any, state: Any, old: Any) -> Any:
        proposals.append(propose(goal, contract, state, old))
        return proposals[-1]

    run: Run | Exception
    try:
        run = simulate(plan, plan.contract, faults=[STRUCTURAL], propose=spy)
    except Exception as exc:  # the student's code: show what it raised
        run = exc
    same = _same_patch(plan, proposals)
    if same:
        return wrong(
            ex,
            f"{same} is the patch S3 under another name: the same work under a new id is the same "
            "approach, and the side effect follows the work, not the id",
            "a different approach is a "
            "different patch: change what the patch does (its action, tool or arguments), not only "
            "its id",
        )
    if isinstance(run, Exception):
        return wrong(ex, f"the run raised {type(run).__name__}: {run}", how)
    hits = sum(1 for e in run.events if e.kind == "fail" and e.category == "side_effect")
    if run.outcome != "plan_complete" and hits > 1:
        return wrong(
            ex,
            "the side effect hits your route again: it keeps the same check of the same approach",
            "a step that revises S4 (or is S4) is the same check of the same approach: give the new "
            "verification a new id and no revises",
        )
    if run.outcome != "plan_complete":
        return wrong(ex, f"the run ends {stop_reason(run)}", how)
    m = metrics(run)
    return right(
        ex,
        f"a different route completes after {m.replans} replan(s): {m.tool_calls} tool calls, "
        f"{m.model_calls} model calls, {m.time:g} min. Note executability {m.executability:.2f}: "
        "the first plan's patch ran, was voided by the side effect it caused, and was replaced, not "
        "repaired.",
    )


def _same_patch(plan: Plan, proposals: list[Any]) -> str | None:
    """The id of a step some proposal made that is the same work as the patch S3 (planviz.plan.identity:
    action, tool, arguments, requires, produces) under another id, when the proposal also passes the patch or
    its check off as new work (a new id, no ``revises``); None otherwise (a plain re-issue is not hidden)."""
    old = work_keys(plan, ["S3", "S4"])
    for new in proposals:
        if isinstance(new, Plan):
            keys = work_keys(new)
            same = sorted(sid for sid, key in keys.items() if key == old["S3"] and sid != "S3")
            hidden = [
                sid
                for sid, key in keys.items()
                if key in old.values() and sid not in old and new.by_id[sid].revises is None
            ]
            if same and hidden:
                return same[0]
    return None


def check_exercise_3(fault: Any = None) -> Feedback:
    """Exercise 3: a ``fault`` for which ``workflow`` and ``planner`` end differently with the same tool calls."""
    ex = "07 exercise 3"
    hint = (
        "compare_strategies(plan, [fault], contract=contract).rows: look for a failure the planner notices that the "
        "workflow does not, on the last steps"
    )
    problem = unusable(
        ex, fault, Fault, "check_exercise_3(fault=Fault(...))", "a planviz Fault", hint
    )
    if problem is not None:
        return problem
    plan = load("cache_isolation")
    try:
        rows = {
            r.strategy: r for r in compare_strategies(plan, [fault], contract=plan.contract).rows
        }
    except PlanvizError as exc:
        return wrong(ex, f"that fault cannot be injected: {exc}", hint)
    w, p = rows["workflow"], rows["planner"]
    if w.outcome == p.outcome:
        return wrong(ex, f"both end {w.outcome}", hint)
    if w.metrics.tool_calls != p.metrics.tool_calls:
        return wrong(
            ex,
            f"the outcomes differ, but the workflow makes {w.metrics.tool_calls} tool calls and the "
            f"planner {p.metrics.tool_calls}",
            hint,
        )
    return right(
        ex,
        f"both make {w.metrics.tool_calls} tool calls; the workflow ends {w.outcome}, the planner "
        f"{p.outcome}. Same work, different truth: the planner's checks change what the run "
        "claims, not what it costs.",
    )


def _branches(plan: Plan) -> int:
    """How many steps can run at once at most (the widest ready wave)."""
    return max((len(wave) for wave in ready_waves(plan)), default=0)


def check_exercise_4(
    plan: Any = None, direct: Any = None, planner: Any = None, one_worker: Any = None
) -> Feedback:
    """Exercise 4: a ``plan`` with three parallel branches, and the finish times of ``direct``, ``planner`` and
    ``planner`` with one worker (``one_worker``), with no fault."""
    ex = "07 exercise 4"
    hint = "simulate(plan, strategy=...).time, and simulate(plan, workers=1).time"
    if is_blank(plan) or is_blank(direct) or is_blank(planner) or is_blank(one_worker):
        return unanswered(
            ex, "check_exercise_4(plan=..., direct=..., planner=..., one_worker=...)", hint
        )
    if not isinstance(plan, Plan):
        return wrong(
            ex,
            f"expected a planviz Plan, got {type(plan).__name__}",
            "Plan(goal, [Step(...), ...]) with three steps that depend on a common first step only",
        )
    try:
        width = _branches(plan)
        times = {
            "direct": simulate(plan, strategy="direct").time,
            "planner": simulate(plan).time,
            "one_worker": simulate(plan, workers=1).time,
        }
    except PlanvizError as exc:
        return wrong(ex, f"that plan cannot run: {exc}", "validate(plan) says what is wrong")
    if width < 3:
        return wrong(
            ex,
            f"at most {width} steps of that plan can run at once",
            "three branches: three steps no one of which depends, directly or not, on another",
        )
    for strategy in ("direct", "planner"):
        run = simulate(plan, strategy=strategy)
        if run.outcome != "plan_complete":
            return wrong(
                ex,
                f"with no fault, the {strategy} run of that plan ends {stop_reason(run)}, so its time "
                "says nothing about parallel branches",
                "validate(plan) says what the planner refuses: every step needs an expected_evidence",
            )
    if not times["planner"] < times["direct"]:
        return wrong(
            ex,
            f"with these durations the planner takes {times['planner']:g}, as long as direct: the plan "
            "shows nothing about running branches at once",
            "give the branches durations above 0",
        )
    given = {"direct": direct, "planner": planner, "one_worker": one_worker}
    off = [k for k, v in given.items() if (n := number(v)) is None or not math.isclose(n, times[k])]
    if off:
        return wrong(ex, f"not right for {', '.join(off)}", hint)
    serial, makespan = sum(s.duration for s in plan.steps), critical_path(plan).makespan
    return right(
        ex,
        f"direct takes the serial time ({serial:g}), the planner the makespan ({makespan:g}), and "
        "one worker takes the planner back to the serial time: parallel branches pay only with "
        "someone to run them.",
    )


#: A re-issued route as a check compares it:
#: {step id: (the id it revises, its dependencies sorted, the rest of the step)}.
Route = dict[str, tuple[Any, ...]]


def _route(value: Any) -> Route | Unreadable | None:
    """The student's new version (a Plan, or its steps) read as a :data:`Route`; anything else an Unreadable."""
    if value is None:
        return None
    steps = value.steps if isinstance(value, Plan) else value
    if isinstance(steps, (str, bytes, dict)) or not hasattr(steps, "__iter__"):
        return Unreadable(
            f"{type(value).__name__} {short(value)}; return the new version, a Plan "
            "(old.replace(steps=...))"
        )
    steps = list(steps)
    if not all(isinstance(step, Step) for step in steps):
        return Unreadable(
            "a collection that is not all Steps; return a Plan (old.replace(steps=...))"
        )
    return {
        step.id: (step.revises, tuple(sorted(step.depends_on)), _carried(step)) for step in steps
    }


def _carried(step: Step) -> tuple[tuple[str, Any], ...]:
    """What a re-issued step must carry over unchanged: every field but its id, what it revises and its links."""
    return tuple(
        (f.name, getattr(step, f.name))
        for f in fields(Step)
        if f.name not in ("id", "revises", "depends_on")
    )


def _reissue_oracle(plan: Plan, voided: frozenset[str]) -> Route:
    return _route(library_reissue(plan, voided, "by hand"))  # type: ignore[return-value]


def _step_text(sid: str, entry: tuple[Any, ...]) -> str:
    revises, deps = entry[0], entry[1]
    return (
        f"{sid}"
        + (f" (revises {revises})" if revises else "")
        + (f" after {', '.join(deps)}" if deps else " after nothing")
    )


def _say_route(case: Any, expected: Route, got: Route) -> str:
    missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
    if missing or extra:
        return (
            f"planviz's version has the steps {', '.join(sorted(expected))}; yours has "
            f"{', '.join(sorted(got)) or 'none'}"
            + (f" (missing {', '.join(missing)})" if missing else "")
            + (f" (extra {', '.join(extra)})" if extra else "")
        )
    sid = next(k for k in sorted(expected) if expected[k] != got[k])
    if expected[sid][:2] == got[sid][:2]:
        lost = [
            name for (name, value), (_, mine) in zip(expected[sid][2], got[sid][2]) if value != mine
        ]
        return (
            f"{sid} does not carry over its {', '.join(lost)}: planviz's re-issued step keeps everything the "
            "old step said (what it requires and produces, its evidence, its check) but its id and links"
        )
    return f"planviz has {_step_text(sid, expected[sid])}; yours has {_step_text(sid, got[sid])}"


def check_reissue(reissue: Any) -> Feedback:
    """Your ``reissue(old, voided)`` against :func:`planviz.reissue` on random plans and failures.

    It must return the next version of ``old``: every voided step ``X`` re-issued as
    ``X.v<old.version + 1>`` with ``revises="X"``, every dependency on a voided step renamed with it,
    and every other step kept as it is (its id, its dependencies).
    """

    def hint(case: Any, expected: Route, got: Any) -> str:
        plan, voided = case
        if isinstance(got, dict) and set(got) == set(expected):
            return (
                "the ids are right; now the links: a re-issued step says which step it revises, and a step "
                "that depended on a voided step depends on its new id (kept steps too)"
            )
        if not voided:
            return "nothing was voided: the new version keeps every step as it is"
        return (
            f"a voided step X becomes X.v{plan.version + 1} (revises X); a step that was not voided keeps its "
            "id, so completed ids keep their meaning"
        )

    return agreement(
        "07 reissue",
        reissue,
        _reissue_oracle,
        reissue_cases(),
        fresh=reissue_cases,
        name="reissue",
        question=lambda plan, voided: (
            "the new version after a failure that voided "
            + (", ".join(sorted(voided)) or "nothing")
        ),
        hint=hint,
        build="replanner",
        read=_route,
        say=_say_route,
        returns="the new version, a Plan",
    )


def _rate(value: Any) -> float | None:
    """A rate from an answer: a number, its text, or a fraction as text (``"2/3"``)."""
    if (
        isinstance(value, str)
        and (match := re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", value))
        and int(match[2])
    ):
        return int(match[1]) / int(match[2])
    return number(value)


#: Exercise 5's fault: a side effect found when S1 completes; its scope is S1 and everything after it.
FROZEN_FAULT = Fault("S1", "side_effect")


def check_exercise_5(
    evidence_rate: Any = None, attribution: Any = None, planner_outcome: Any = None
) -> Feedback:
    """Exercise 5: on :data:`FROZEN_FAULT`, the frozen-plan test's ``evidence_rate`` and ``attribution``
    (:func:`planviz.frozen_plan_test`: the route fixed, no replanning), and the ``planner_outcome`` of the
    planner's run on the same fault."""
    ex = "07 exercise 5"
    hint = (
        "which steps run before the frozen route stops (S2 does not wait for S1), and which of them produced "
        "the evidence they declared?"
    )
    if is_blank(evidence_rate) or is_blank(attribution) or is_blank(planner_outcome):
        return unanswered(
            ex, "check_exercise_5(evidence_rate=..., attribution=..., planner_outcome=...)", hint
        )
    plan = load("cache_isolation")
    frozen = frozen_plan_test(plan, plan.contract, faults=[FROZEN_FAULT])
    run = simulate(plan, plan.contract, faults=[FROZEN_FAULT])
    rate = _rate(evidence_rate)
    if rate is None:
        return wrong(ex, f"an evidence rate of {short(evidence_rate)}: a number from 0 to 1", hint)
    ran = [sid for sid, p in frozen.steps.items() if p.performed]
    # a simulated route: always known
    expected = frozen.evidence_rate if frozen.evidence_rate is not None else 0.0
    if abs(rate - expected) > 0.005:
        produced = sum(1 for p in frozen.steps.values() if p.evidence)
        if abs(rate - produced / len(plan.steps)) <= 0.005:
            why = "that divides by the steps of the plan; the rate is over the steps that ran"
        elif abs(rate - 1.0) <= 0.005:
            why = "a side effect is found by the step's own check: did S1 produce its evidence?"
        else:
            why = f"the evidence rate is not {rate:g}"
        return wrong(ex, why, hint)
    if not same_word(attribution, str(frozen.attribution)):
        return wrong(
            ex,
            f"the frozen test does not blame {short(attribution)}",
            "seed 000's tree: the plan passed its contract; did each step produce the evidence it declared?",
        )
    if not same_word(planner_outcome, str(run.outcome)):
        return wrong(
            ex,
            f"the planner's run does not end {short(planner_outcome)}",
            "the planner may replan: what does it keep, and does the re-issued S1 pass?",
        )
    m = metrics(run)
    return right(
        ex,
        f"{len(ran)} steps ran on the frozen route ({', '.join(ran)}), S1 without its evidence: rate "
        f"{expected:.2f}, the executor's failure. The planner hides it: it voids S1's scope, "
        f"replans and completes ({m.tool_calls} tool calls, {m.replans} replan). Scored on success "
        "alone the system looks sound; measure the executor with the route fixed.",
    )


def check_exercise_6(choices: Any = None) -> Feedback:
    """Exercise 6 (seed 004, choosing the mechanism): for each task of ``mechanisms.TASKS``, ``workflow``,
    ``search`` (tree of thought) or ``agent`` (agent planning); a dict letter -> mechanism."""
    return choose("07 exercise 6", choices)


def check_exercise_7(
    ablation: Any = None,
    loses_success: Any = None,
    wasteful: Any = None,
    metric: Any = None,
    unexercised: Any = None,
) -> Feedback:
    """Exercise 7 (reading the metrics and an ablation): from the notebook's ``ablation``, the mechanism whose
    removal costs goal success, the one whose removal keeps it but voids more verified work, a ``metric`` whose
    intervals show it, and the mechanisms this fault model never exercises."""
    return read_ablation("07 exercise 7", ablation, loses_success, wasteful, metric, unexercised)
