"""Plan versions stored as what they change: a version whose first steps are another's.

A LangGraph history that forks every few checkpoints is read as one plan version per branch, each the path
to its fork point (the last version's first steps) and then its own branch. Held whole, every version copies
its prefix: n checkpoints forking every ten hold about n²/40 step places. :func:`grown_plan` makes the
version from its base, the length of the shared prefix and its own steps; the :class:`~planviz.plan.model.Plan`
it returns makes its ``steps`` (and their table) when first read, walking down its chain of bases, and reads
the same as a plan made whole. :func:`suffix` reads the steps a version added without making the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import reduce
from operator import add, attrgetter
from typing import Any

from planviz.plan.model import MAX_TOTAL_DURATION, Plan, Step

__all__ = ["grown_plan", "suffix"]


def grown_plan(
    base: Plan,
    k: int,
    tail: Iterable[Step],
    patches: Mapping[int, Step] | None = None,
    **fields: Any,
) -> Plan:
    """The plan whose steps are ``base``'s first ``k`` (those at the positions of ``patches`` replaced) and then
    ``tail``, with the other ``fields`` given: a version stored as what it changes, its steps and their table
    made when first read. A LangGraph fork's version costs its own branch, not the path to its fork point; a
    step id repeated or durations past the limit make the steps at once (the same checks as ``Plan``).

    >>> a, b, c = Step("A", "a"), Step("B", "b"), Step("C", "c")
    >>> one = Plan("g", [a, b])
    >>> two = grown_plan(one, 1, [c], version=2)
    >>> len(two), two.version, "steps" in vars(two), two.ids, "steps" in vars(two)
    (2, 2, False, ('A', 'C'), True)
    """
    tail = tuple(tail)
    patches = dict(patches or {})
    if not 0 <= k <= len(base) or any(not 0 <= i < k for i in patches):
        raise ValueError(f"grown_plan: k={k} or a patch outside the base's {len(base)} steps")
    plan = Plan(fields.pop("goal", base.goal), (), **fields)
    d = plan.__dict__
    added = (*tail, *patches.values())
    bound = base.__dict__.get("_bound")
    if bound is None and set(map(type, added)) <= {Step}:
        bound = reduce(add, map(attrgetter("duration"), base.steps), 0.0)
    if bound is not None and set(map(type, added)) <= {Step}:
        bound += reduce(add, map(attrgetter("duration"), added), 0.0)
    if bound is None or bound > MAX_TOTAL_DURATION:  # checked step by step, as Plan does
        steps = list(base.steps[:k])
        for i, s in patches.items():
            steps[i] = s
        return replace(plan, steps=(*steps, *tail))
    del d["steps"], d["_by_id"]
    d["_grown"], d["_length"], d["_bound"] = (base, k, tail, patches), k + len(tail), bound
    return plan


def suffix(plan: Plan, k: int) -> tuple[Step, ...]:
    """``plan.steps[k:]`` without making a grown plan's steps when they all lie in what it added (its tail)."""
    d = plan.__dict__
    if "steps" in d:
        return tuple(d["steps"][k:])
    _, kb, tail, patches = d["_grown"]
    if k >= kb:
        return tuple(tail[k - kb :])
    return tuple(plan.steps[k:])
