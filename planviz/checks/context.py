"""What every validation check shares: the plan's structural index plus validation-only caches and helpers.

A :class:`Context` is made once per :func:`planviz.validate` call. It holds the
plan's one :class:`~planviz.structure.index.StructureIndex` (shared with
analysis) and what only the checks need: a fast fact-to-producer map, shared
producer groups for batched ancestor queries, and a bounded budget of "did you
mean" hints. Findings are built with :func:`finding`.

>>> from planviz import Plan, Step
>>> cx = Context(Plan("g", [Step("fetch", "a", produces="x"), Step("parse", "b", produces="x")]))
>>> cx.producers("x"), cx.close_id("fetchh")
(['fetch', 'parse'], " (did you mean 'fetch'?)")
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Iterable, Mapping, Sequence

from planviz.errors import did_you_mean
from planviz.plan.importers import format_title
from planviz.plan.model import Contract, Finding, Plan, natural_key
from planviz.structure.index import structure_index

__all__ = [
    "Context",
    "finding",
    "names",
    "known",
    "matches",
    "given_facts",
    "unstated_note",
    "NAMED",
    "SUGGEST_BUDGET",
]

NAMED = 8  # a finding names (and lists in .steps) at most this many other steps
SUGGEST_BUDGET = (
    100_000  # id comparisons spent on "did you mean" hints per check (difflib is O(steps) per name)
)


_produces = attrgetter("produces")


class Context:
    """The plan, its structural index (``ix``; its fields are mirrored here for the checks) and check caches.

    ``producer_of`` maps each fact to one step producing it (the last);
    ``one_producer_each`` is true when no fact has two producers, so that step is all of them.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        ix = self.ix = structure_index(plan)
        self.steps, self.duplicated, self.unknown, self.self_deps = (
            ix.steps,
            ix.duplicated,
            ix.unknown,
            ix.self_deps,
        )
        self.parents, self.order, self.pos, self.cyclic_nodes = (
            ix.parents,
            ix.order,
            ix.pos,
            ix.cyclic_nodes,
        )
        self.producer_of = {f: sid for sid, s in ix.steps.items() for f in s.produces}
        self.producers, self.by_kind, self.levels = ix.producers, ix.by_kind, ix.levels
        self._groups: dict[str, frozenset[str]] = {}
        self._close: dict[str, str] = {}
        self._budget = SUGGEST_BUDGET

    @functools.cached_property
    def one_producer_each(self) -> bool:
        """True when no fact has two producers (so ``producer_of`` names all of them)."""
        return len(self.producer_of) == sum(map(len, map(_produces, self.steps.values())))

    def producer_group(self, fact: str) -> frozenset[str]:
        """The producers of ``fact`` as one shared frozenset (batched queries group by it)."""
        group = self._groups.get(fact)
        if group is None:
            if self.one_producer_each:  # no need for the full producer index
                one = self.producer_of.get(fact)
                group = frozenset() if one is None else frozenset((one,))
            else:
                group = frozenset(self.producers(fact))
            self._groups[fact] = group
        return group

    def close_id(self, name: str) -> str:
        """The "did you mean" hint naming the step id most like ``name`` (or ''); memoized per name.

        Each new name costs one comparison per step, so hints stop (None) once
        ``SUGGEST_BUDGET`` comparisons are spent: thousands of dangling ids in
        a big plan must not make validation quadratic.
        """
        if name in self._close:
            return self._close[name]
        if self._budget < len(self.steps):
            return ""
        self._budget -= len(self.steps)
        hint = self._close[name] = did_you_mean(name, self.steps, limit=len(self.steps))
        return hint


def finding(
    code: str,
    layer: str,
    message: str,
    steps: Iterable[str] = (),
    *,
    severity: str = "error",
    edges: Iterable[tuple[str, str]] = (),
    where: str = "",
) -> Finding:
    """A validation finding."""
    return Finding(code, layer, severity, message, tuple(steps), tuple(edges), where)


def known(cx: Context, name: str) -> str:
    """' (did you mean 'S3'?)' when a close id exists (and the hint budget is not spent)."""
    return cx.close_id(name)


def matches(cx: Context, name: str, by_kind: Mapping[str, list[str]]) -> list[str]:
    """The steps a contract entry names: the step with that id and every step of that kind, sorted."""
    found = set(by_kind.get(name, ()))
    if name in cx.steps:
        found.add(name)
    return sorted(found, key=natural_key)


def given_facts(plan: Plan, contract: Contract | None) -> set[str]:
    """Facts held before any step runs: the plan's premises and the contract's given facts."""
    return set(plan.premises) | (set(contract.given_facts) if contract else set())


def names(ids: Sequence[str], total: int | None = None) -> str:
    """Up to NAMED ids, quoted, and how many more of ``total`` there are."""
    shown = ", ".join(map(repr, ids[:NAMED]))
    extra = (len(ids) if total is None else total) - min(len(ids), NAMED)
    return f"{shown} and {extra} more" if extra > 0 else shown


def unstated_note(
    code: str, layer: str, fmt: str, what: str, ids: list[str], consequence: str, usual: str
) -> Finding:
    """One info note for a field the plan's source format has no place for, instead of ``usual`` per step.

    >>> unstated_note("no_evidence", "structure", "worfbench", "expected evidence", ["1", "2"],
    ...               "a run cannot check what their success shows", "an error").message
    "WorFBench plans have no field for expected evidence: 2 steps have none ('1', '2'), so a run cannot check what their success shows; reported once, as a note about the format, instead of an error per step"
    """
    return finding(
        code,
        layer,
        f"{format_title(fmt)} plans have no field for {what}: {len(ids)} step"
        f"{' has' if len(ids) == 1 else 's have'} none ({names(ids)}), so {consequence}; "
        f"reported once, as a note about the format, instead of {usual} per step",
        severity="info",
    )
