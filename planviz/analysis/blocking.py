"""Why a step can no longer run: the chain of missing dependencies and facts back to its root cause.

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x"),
...                   Step("C", "c", depends_on="B")])
>>> [(r.step, r.kind, r.missing) for r in why_blocked(plan, ({"A"}, set()), "C")]
[('C', 'dependency', 'B'), ('B', 'fact', 'x')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planviz.analysis.reach import StateLike, reach_pass, state_of
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.structure.index import structure_index

__all__ = ["why_blocked", "BlockReason"]


@dataclass(frozen=True)
class BlockReason:
    """One link of :func:`why_blocked`'s chain.

    ``kind`` is ``dependency`` (``missing`` is a step that will not complete),
    ``fact`` (``missing`` is a fact nothing left can establish) or ``unknown``
    (no root cause outside the chain: ``missing``, a fact or a step, waits
    on a step already in the chain, a circular wait). ``producers`` lists the
    steps that produce a missing fact.
    """

    step: str
    kind: str
    missing: str
    producers: tuple[str, ...] = ()
    message: str = ""


def why_blocked(plan: Plan, state: StateLike, step: str) -> tuple[BlockReason, ...]:
    """The chain of missing dependencies and facts that keeps ``step`` from ever running.

    From ``step`` back to the root cause; empty when the step is completed or
    still reachable. At each link a blocked dependency (lowest id) is
    followed first, then a missing fact (lowest name) through its
    lowest-id blocked producer.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    state : ExecutionState or (completed, facts)
        What has run: anything with ``.completed`` and ``.facts``, or a pair of id and fact collections.
    step : str
        The step to explain.

    Returns
    -------
    tuple of BlockReason
        From ``step`` back to the root cause; empty when it can still run.

    Raises
    ------
    UnknownStepError
        When ``step`` is not in the plan.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x"),
    ...                   Step("C", "c", depends_on="B")])
    >>> [(r.step, r.kind, r.missing) for r in why_blocked(plan, ({"A"}, set()), "C")]
    [('C', 'dependency', 'B'), ('B', 'fact', 'x')]
    """
    plan = expect_plan(plan, "why_blocked")
    completed, facts = state_of(state)
    plan.step(step)
    held, found, done = reach_pass(plan, completed, facts)
    by_id = plan.by_id
    producers = structure_index(plan).producers
    blocked = set(by_id) - done - set(found)
    chain: list[BlockReason] = []
    seen: set[str] = set()
    current: str | None = step if step in blocked else None
    while current is not None:
        seen.add(current)
        s = by_id[current]
        deps = sorted(d for d in s.depends_on if d in blocked)
        fresh = [d for d in deps if d not in seen]
        if fresh:
            chain.append(
                BlockReason(
                    current,
                    "dependency",
                    fresh[0],
                    message=(f"{current!r} depends on {fresh[0]!r}, which can no longer complete"),
                )
            )
            current = fresh[0]
            continue
        if deps:
            chain.append(
                BlockReason(
                    current,
                    "unknown",
                    deps[0],
                    message=(
                        f"{current!r} depends on {deps[0]!r}, which itself waits on {current!r}: a circular requirement"
                    ),
                )
            )
            break
        fact = min(f for f in s.requires if f not in held)
        makers = tuple(sorted(producers(fact)))
        open_makers = [p for p in makers if p in blocked]
        if open_makers and all(p in seen for p in open_makers):
            chain.append(
                BlockReason(
                    current,
                    "unknown",
                    fact,
                    makers,
                    (
                        f"{current!r} requires {fact!r}, which only steps waiting on this chain produce "
                        f"({', '.join(map(repr, open_makers))}): a circular requirement"
                    ),
                )
            )
            break
        if open_makers:
            nxt = next(p for p in open_makers if p not in seen)
            chain.append(
                BlockReason(
                    current,
                    "fact",
                    fact,
                    makers,
                    f"{current!r} requires {fact!r}, which only {nxt!r} can still produce",
                )
            )
            current = nxt
            continue
        chain.append(
            BlockReason(current, "fact", fact, makers, _lost_fact(current, fact, makers, done))
        )
        break
    return tuple(chain)


def _lost_fact(step: str, fact: str, makers: tuple[str, ...], done: set[str]) -> str:
    finished = [p for p in makers if p in done]
    if finished:
        return (
            f"{step!r} requires {fact!r}, which is no longer held; {', '.join(map(repr, finished))} "
            "established it and completed steps are not re-run: replan or return to that producer"
        )
    return (
        f"{step!r} requires {fact!r}, which is not held and no step of the plan produces: "
        "add a step that establishes it, or make it a given fact"
    )
