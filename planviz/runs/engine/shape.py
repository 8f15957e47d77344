"""What the run machine needs of one plan version: its index, the steps that wait on an id it lacks, who
requires each fact; grown from the last version's when they share most of their first steps (a LangGraph fork).

>>> from planviz import Plan, Step
>>> shape = Shape(Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="Z")]))
>>> sorted(shape.broken), shape.requirers, shape.children["A"]
(['C'], {}, ['B'])
>>> Shape(Plan("g", [Step("A", "a"), Step("B", "b", requires="x"), Step("C", "c", requires="x")])).requirers
{'x': ['B', 'C']}
"""

from __future__ import annotations

from itertools import compress, count
from operator import is_not
from typing import Any, Mapping, Sequence

from planviz.plan.bulk import paused_gc
from planviz.plan.grown import suffix
from planviz.plan.model import Plan, Step
from planviz.structure.growing import GrowingIndex
from planviz.structure.index import StructureIndex, structure_index

__all__ = ["Shape"]


class Shape:
    """What the machine needs of one plan version: its index, the steps that wait on an id it lacks, and
    who requires each fact (who produces one: the index's ``producers``). ``base``: the last version's
    Shape, consumed when this version shares most of its first steps with it (its tables changed in place)."""

    __slots__ = ("plan", "ix", "steps", "children", "requirers", "broken", "runnable", "grown")
    plan: Plan
    ix: StructureIndex | GrowingIndex
    steps: Mapping[str, Step]
    children: dict[str, list[str]]
    requirers: dict[str, Sequence[str]]
    broken: set[str]
    runnable: Plan
    # grown from the last version: the ids gone, the ids added
    grown: tuple[list[str], list[str]] | None

    def __init__(self, plan: Plan, base: Shape | None = None) -> None:
        self.plan = plan
        self.grown = None
        grown = None
        if base is not None and not base.broken:
            made = plan.__dict__.get("_grown")  # a version stored as what it changes (grown_plan)
            if made is not None and made[0] is base.plan:
                k = min((made[1], *made[3]))
                gone, tail = suffix(base.plan, k), suffix(plan, k)
            else:
                k = _prefix(plan, base.plan)
                gone, tail = base.plan.steps[k:], plan.steps[k:]
            if 2 * k > len(plan):
                grown = GrowingIndex.grow(plan, base.ix, gone, tail, k)
        # a version sharing most of its steps with the last (a fork):
        if grown is not None and base is not None:
            # made from the last one's shape, which it consumes
            self.ix, self.steps = (
                grown,
                grown.steps,
            )
            self.children = grown.children()
            self.requirers = _requirers_grown(base.requirers, gone, tail)
            self.broken, self.runnable = set(), plan  # in dependency order, every dependency known
            self.grown = [s.id for s in gone], [s.id for s in tail]
            return
        if base is not None and "_grown" in plan.__dict__:
            # a version stored as what it changes that could not grow from the last (a LangGraph fork onto an
            # earlier branch: the two paths part near the start): its own index, not kept on the plan, or every
            # such version would hold one after the read (n/6 versions of up to n/2 steps)
            with paused_gc():
                ix = self.ix = StructureIndex(plan)
        else:
            ix = self.ix = structure_index(plan)
        steps = self.steps = ix.steps
        self.children = ix.children()
        # fact -> the steps that require it. Most facts have one: the step's own (sid,), shared by all its
        # facts, stands for it, and a list is made only for a second one (issue 28)
        requirers: dict[str, Sequence[str]] = {}
        setdefault = requirers.setdefault
        for sid, s in steps.items():
            one = (sid,)
            for f in s.requires:
                have = setdefault(f, one)
                if have is not one:
                    if type(have) is tuple:
                        requirers[f] = [*have, sid]
                    else:
                        have.append(sid)  # type: ignore[attr-defined]
        self.requirers = requirers
        waiting = (
            ()
            if ix.clean
            else {sid for sid, s in steps.items() if any(d not in steps for d in s.depends_on)}
        )
        # they wait on a missing step
        self.broken: set[str] = ix.descendants(waiting) if waiting else set()
        self.runnable = (
            plan.replace(steps=tuple(st for st in plan.steps if st.id not in self.broken))
            if self.broken
            else plan
        )


def _prefix(plan: Plan, base: Plan) -> int:
    """How many first steps ``plan`` and ``base`` share (the same Step objects), compared in bulk."""
    return next(
        compress(count(), map(is_not, plan.steps, base.steps)),
        min(len(plan.steps), len(base.steps)),
    )


def _requirers_grown(
    table: dict[str, Sequence[str]], gone: Sequence[Any], added: Sequence[Any]
) -> dict[str, Sequence[str]]:
    """``Shape.requirers`` of a version: ``table`` (its base's, changed in place) without the steps ``gone`` and
    with the steps ``added`` after the shared prefix (a plan whose steps require nothing costs nothing)."""
    if not table and not any(s.requires for s in added):
        return table
    new = table  # the last version's, consumed
    for s in gone:
        for f in s.requires:
            have = new.get(f)
            if have is not None:
                rest = [r for r in have if r != s.id]
                if rest:
                    new[f] = tuple(rest) if len(rest) == 1 else rest
                else:
                    del new[f]
    for s in added:
        one = (s.id,)
        for f in s.requires:
            have = new.get(f)
            if have is None:
                new[f] = one
            elif type(have) is list:
                have.append(s.id)
            elif have is not one:
                new[f] = [*have, s.id]
    return new
