"""Checks for notebook 03, critical path and ready sets (notebooks/03_critical_path.ipynb).

Every expected answer is computed here with planviz from the bundled
``cache_isolation`` plan, so a check follows the library. Solutions:
notebooks/solutions/03_critical_path.py.

>>> check_exercise_1(path=["S0", "S1", "S3", "S4"], makespan=29).passed
False
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Mapping

from planviz.analysis.schedule import critical_path
from planviz.analysis.timeline import ready_timeline, ready_waves
from planviz.examples import load
from planviz.plan.model import Plan
from planviz.teaching.agreement import agreement
from planviz.teaching.answers import (
    Unreadable,
    id_of,
    ids as read_ids,
    in_plan,
    number,
    short,
    whole_number,
)
from planviz.teaching.cases import timed_plans
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, unusable, wrong

__all__ = [
    "check_critical_path",
    "check_ready_waves",
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_3",
    "SLOWER_S2",
    "FASTER_BY",
    "NEW_DURATION",
]

SLOWER_S2 = 9  # exercise 1: S2 takes this many minutes instead of 3
FASTER_BY = 6  # exercise 2: each step made this much faster (never below 0)
NEW_DURATION = 4  # exercise 3: the new independent step after S0


def _with_duration(plan: Plan, sid: str, duration: float) -> Plan:
    return plan.replace(
        steps=tuple(replace(s, duration=duration) if s.id == sid else s for s in plan.steps)
    )


def _chains(plan: Plan) -> list[tuple[str, ...]]:
    """Every chain from a step without dependencies to a step nothing depends on."""
    children: dict[str, list[str]] = {sid: [] for sid in plan.ids}
    for s in plan.steps:
        for d in s.depends_on:
            children[d].append(s.id)
    out: list[tuple[str, ...]] = []

    def walk(path: tuple[str, ...]) -> None:
        nxt = children[path[-1]]
        if not nxt:
            out.append(path)
        for c in nxt:
            walk(path + (c,))

    for s in plan.steps:
        if not s.depends_on:
            walk((s.id,))
    return out


def check_exercise_1(path: Any = None, makespan: Any = None) -> Feedback:
    """Exercise 1: S2 takes 9 minutes. Which chain is critical now (``path``), and how long is the job
    (``makespan``)?"""
    ex = "03 exercise 1"
    plan = _with_duration(load("cache_isolation"), "S2", SLOWER_S2)
    schedule = critical_path(plan)
    hint = "add the durations along each chain from S0 to S4, with S2 at its new duration"
    if is_blank(path) or is_blank(makespan):
        return unanswered(ex, "your prediction: check_exercise_1(path=[...], makespan=...)", hint)
    ids = in_plan(read_ids(path, ordered=True), plan.ids)
    if isinstance(ids, Unreadable):
        return wrong(ex, f"that path cannot be read: {ids.why}", hint)
    if not ids:
        return wrong(ex, "the path is empty", hint)
    unknown = [sid for sid in ids if sid not in plan]
    if unknown:
        return wrong(ex, f"the plan has no step {unknown[0]!r}", "step ids are S0 to S4")
    chains = {c: sum(plan.step(s).duration for s in c) for c in _chains(plan)}
    if ids not in chains:
        return wrong(
            ex,
            f"{' → '.join(ids)} is not a chain from the first step to the last",
            "a chain follows depends_on edges from a step with no dependencies to one nothing depends on",
        )
    length = chains[ids]
    if not math.isclose(length, schedule.makespan):
        before = critical_path(load("cache_isolation")).path
        why = " (it was critical before S2 slowed down)" if ids == before else ""
        return wrong(
            ex,
            f"{' → '.join(ids)} takes {length:g} {plan.time_unit}{why}; another chain takes longer",
            hint,
        )
    given = number(makespan, plan.time_unit)
    if given is None or not math.isclose(given, schedule.makespan):
        return wrong(
            ex,
            f"the path is right, but the makespan is not {makespan!r}",
            "the makespan is the length of the critical path",
        )
    return right(
        ex,
        f"{' → '.join(ids)} is now the longest chain: {schedule.makespan:g} {plan.time_unit}. "
        "A step off the critical path slowed down past its slack and became critical.",
    )


def _saved(plan: Plan) -> dict[str, float]:
    base = critical_path(plan).makespan
    return {
        s.id: base
        - critical_path(_with_duration(plan, s.id, max(0.0, s.duration - FASTER_BY))).makespan
        for s in plan.steps
    }


def check_exercise_2(saved: Any) -> Feedback:
    """Exercise 2: for each step, how many minutes the job saves when that step is 6 minutes faster (never below 0)."""
    ex = "03 exercise 2"
    plan = load("cache_isolation")
    expected = _saved(plan)
    hint = (
        "shorten one step in a copy of the plan (dataclasses.replace(step, duration=...)) and recompute "
        "critical_path(...).makespan"
    )
    problem = unusable(
        ex,
        saved,
        Mapping,
        "a dict {step id: minutes saved} for all five steps",
        "a dict {step id: minutes saved}",
        hint,
    )
    if problem is not None:
        return problem
    keys = {}
    for key, value in saved.items():
        sid = id_of(key)
        if isinstance(sid, Unreadable):
            return wrong(
                ex,
                f"a key of the dict: {sid.why}",
                "key the dict by step ids: {'S0': ..., 'S1': ...}",
            )
        keys[in_plan((sid,), plan.ids)[0]] = value
    saved = keys
    unknown = sorted(sid for sid in saved if sid not in plan.ids)
    if unknown:
        return wrong(
            ex,
            f"the plan has no step {', '.join(map(repr, unknown))}",
            "answer for the steps S0 to S4 only",
        )
    missing = [sid for sid in plan.ids if sid not in saved]
    if missing:
        return wrong(
            ex, f"the dict has no entry for {', '.join(missing)}", "answer for every step, S0 to S4"
        )
    bad = [
        sid
        for sid in plan.ids
        if (n := number(saved[sid], plan.time_unit)) is None or not math.isclose(n, expected[sid])
    ]
    if not bad:
        best = max(expected.values())
        most = " and ".join(s for s in plan.ids if expected[s] == best)
        none = " and ".join(s for s in plan.ids if expected[s] == 0) or "no step"
        return right(
            ex,
            f"most saved: {most}; nothing saved: {none}. Speeding up a critical step helps only "
            "until another chain becomes the longest.",
        )
    schedule = critical_path(plan)
    first = bad[0]
    step = plan.step(first)
    if first not in schedule.critical:
        tip = f"{first} is not on the critical path: what is its slack, and what does slack mean?"
    elif step.duration < FASTER_BY:
        tip = f"{first} takes only {step.duration:g} {plan.time_unit}: how much faster can it get?"
    else:
        tip = f"once {first} is shorter, is the chain through it still the longest one? Look at the other chains"
    return wrong(ex, f"not right for {', '.join(bad)}", tip)


def _minimum_workers(plan: Plan) -> int:
    target = critical_path(plan).makespan
    return next(
        k
        for k in range(1, len(plan.steps) + 1)
        if math.isclose(ready_timeline(plan, workers=k)[-1].time, target)
    )


def check_exercise_3(plan: Any = None, workers: Any = None) -> Feedback:
    """Exercise 3: the plan with a new 4-minute step after S0 that nothing waits for, and the fewest
    ``workers`` that still finish at the makespan."""
    ex = "03 exercise 3"
    how = "plan.replace(steps=plan.steps + (Step('S5', 'read the cache docs', depends_on='S0', duration=4),))"
    if is_blank(plan) or is_blank(workers):
        return unanswered(ex, "check_exercise_3(plan=your_plan, workers=...)", how)
    if not isinstance(plan, Plan):
        return wrong(ex, f"expected a planviz Plan, got {type(plan).__name__}", how)
    original = load("cache_isolation")
    new = [s for s in plan.steps if s.id not in original]
    changed = [s.id for s in original.steps if s.id not in plan or plan.step(s.id) != s]
    if changed or len(new) != 1:
        return wrong(ex, "add exactly one step and leave S0 to S4 as they are", how)
    step = new[0]
    # S0 twice is S0
    if set(step.depends_on) != {"S0"} or not math.isclose(step.duration, NEW_DURATION):
        return wrong(
            ex,
            f"the new step should come after S0 only and take {NEW_DURATION} {original.time_unit}",
            how,
        )
    if any(step.id in s.depends_on for s in plan.steps):
        return wrong(ex, "nothing should depend on the new step: it is independent", how)
    k = whole_number(workers)
    need = _minimum_workers(plan)
    makespan = critical_path(plan).makespan
    if k is None or k < 1:
        return wrong(
            ex,
            f"workers is a whole number of at least 1, got {workers!r}",
            "ready_timeline(plan, workers=k)",
        )
    finish = ready_timeline(plan, workers=int(k))[-1].time
    if not math.isclose(finish, makespan):
        return wrong(
            ex,
            f"with {int(k)} worker(s) the plan finishes at {finish:g}, after the makespan of {makespan:g}",
            "try one more worker and print ready_timeline(plan, workers=k)[-1].time",
        )
    if int(k) > need:
        return wrong(
            ex,
            f"{int(k)} workers do reach the makespan, but fewer do too",
            "try ready_timeline(plan, workers=k) with smaller k",
        )
    return right(
        ex,
        f"{need} worker(s) still finish at {makespan:g} {original.time_unit}: while one worker "
        "follows the critical path, the other fits S2 and the new step beside it. More parallel "
        "steps do not always need more workers.",
    )


def _pass_oracle(plan: Plan) -> dict[str, tuple[float, float]]:
    return {sid: (t.es, t.ls) for sid, t in critical_path(plan).steps.items()}


def _read_pass(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return Unreadable(
            f"{type(value).__name__} {short(value)}; return a dict {{step id: (earliest start, "
            "latest start)}}"
        )
    out = {}
    for key, pair in value.items():
        sid = key.strip() if isinstance(key, str) else key
        if not isinstance(sid, str):
            return Unreadable(f"a dict keyed by {short(key)}; key it by step ids such as 'A'")
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            return Unreadable(
                f"{short(pair)} for {sid!r}; give a pair (earliest start, latest start)"
            )
        es, ls = number(pair[0]), number(pair[1])
        if es is None or ls is None:
            return Unreadable(f"{short(pair)} for {sid!r}: both times must be numbers")
        out[sid] = (es, ls)
    return out


def _same_pass(case: Any, expected: dict[str, tuple[float, float]], got: Any) -> bool:
    return (
        isinstance(got, dict)
        and set(got) == set(expected)
        and all(
            math.isclose(got[s][0], expected[s][0]) and math.isclose(got[s][1], expected[s][1])
            for s in expected
        )
    )


def _say_pass(case: Any, expected: dict[str, tuple[float, float]], got: Any) -> str:
    missing = sorted(set(expected) - set(got))
    if missing:
        return f"yours has no entry for {', '.join(missing)}"
    extra = sorted(set(got) - set(expected))
    if extra:
        return f"yours has entries for steps the plan does not have: {', '.join(extra)}"
    sid = next(
        s
        for s in sorted(expected)
        if not (math.isclose(got[s][0], expected[s][0]) and math.isclose(got[s][1], expected[s][1]))
    )
    which = "earliest" if not math.isclose(got[sid][0], expected[sid][0]) else "latest"
    return (
        f"for {sid}, planviz says (earliest {expected[sid][0]:g}, latest {expected[sid][1]:g}); yours says "
        f"(earliest {got[sid][0]:g}, latest {got[sid][1]:g}): the {which} start differs"
    )


def _pass_hint(case: Any, expected: Any, got: Any) -> str:
    if isinstance(got, dict) and set(got) == set(expected):
        wrong_es = any(not math.isclose(got[s][0], expected[s][0]) for s in expected)
        if wrong_es:
            return (
                "forward pass: a step starts when its LAST dependency finishes (the max of their earliest "
                "finishes), in an order where dependencies come first"
            )
        return (
            "backward pass: a step must finish by the EARLIEST latest start of the steps that depend on it "
            "(the makespan for a step nothing depends on); its latest start is that minus its duration"
        )
    return "return {step id: (earliest start, latest start)} for every step"


def check_critical_path(passes: Any) -> Feedback:
    """Your ``passes(plan)``: ``{step id: (earliest start, latest start)}`` for every step, by a forward pass
    (earliest starts) and a backward pass (latest starts), against :func:`planviz.critical_path`.

    The slack of a step is latest minus earliest; the critical steps have none.
    """
    cases = [(plan,) for plan in timed_plans()]
    return agreement(
        "03 critical path",
        passes,
        _pass_oracle,
        cases,
        fresh=lambda count, seed: [(plan,) for plan in timed_plans(count, seed=seed)],
        name="passes",
        build="critical_path",
        question=lambda plan: (
            "passes(plan) (durations: "
            + ", ".join(f"{s.id} {s.duration:g}" for s in sorted(plan.steps, key=lambda s: s.id))
            + ")"
        ),
        hint=_pass_hint,
        read=_read_pass,
        judge=_same_pass,
        say=_say_pass,
        returns="a dict {step id: (earliest start, latest start)}",
    )


def _read_waves(value: Any) -> Any:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return Unreadable(
            f"{type(value).__name__} {short(value)}; return a list of sets of step ids, "
            "first wave first"
        )
    if isinstance(value, (set, frozenset)):
        return Unreadable("a set has no order: return the waves as a list, first wave first")
    waves = []
    for wave in value:
        got = read_ids([wave] if isinstance(wave, str) else wave)
        if isinstance(got, Unreadable):
            return Unreadable(f"a wave {short(wave)}: {got.why}")
        waves.append(got)
    return tuple(waves)


def _say_waves(case: Any, expected: tuple[frozenset[str], ...], got: Any) -> str:
    def show(waves: Any) -> str:
        return " | ".join("{" + ", ".join(sorted(w)) + "}" for w in waves) or "no waves"

    return f"planviz says {show(expected)}; yours says {show(got)}"


def check_ready_waves(waves: Any) -> Feedback:
    """Your ``waves(plan)``: the ready waves, a list of sets of step ids: the steps with no dependency first,
    then each step in the wave after the last of its dependencies; against :func:`planviz.ready_waves`."""
    cases = [(plan,) for plan in timed_plans(seed=2035)]
    return agreement(
        "03 ready waves",
        waves,
        lambda plan: tuple(ready_waves(plan)),
        cases,
        fresh=lambda count, seed: [(plan,) for plan in timed_plans(count, seed=seed)],
        name="waves",
        build="ready_waves",
        question=lambda plan: "waves(plan)",
        hint=lambda case, expected, got: (
            "a step's wave is one more than the latest wave among its dependencies (0 with none); "
            "group the steps by wave"
        ),
        read=_read_waves,
        say=_say_waves,
        returns="a list of sets of step ids",
    )
