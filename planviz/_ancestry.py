"""Private helper of :mod:`planviz.validate`: the plan as plain dicts, and ancestor queries.

Validation must stay near-linear on 100,000-step plans, so it builds no
NetworkX graph unless the plan has a cycle (then NetworkX finds it), and it
never stores per-step ancestor sets (O(V^2) memory). "Is some step of this
group a strict ancestor of that step?" is answered in three tiers:

1. the step's direct dependencies (where facts normally flow), then their
   dependencies (a fact that skips one step);
2. a short backward walk from the step (at most ``WALK_BUDGET`` steps, pruned
   below the group's first topological position), until ``GIVE_UP`` walks of
   the same group have run out of budget;
3. the rest together: one pass in topological order carrying a bitset (a
   Python int, one bit per asked group) per step, ``CHUNK_BITS`` groups per
   pass, over the window between the chunk's first member and last asker.
   Memory is O(steps x CHUNK_BITS / 8) bytes at most.

Answers never depend on which topological order is used, so nothing depends
on the order of steps in the file.

>>> from planviz.model import Step, Plan
>>> plan = Plan("g", [Step("C", "c", depends_on="B"), Step("B", "b", depends_on="A"), Step("A", "a")])
>>> ix = Index(plan)
>>> ix.cyclic_nodes, sorted(ix.pos, key=ix.pos.get)
([], ['A', 'B', 'C'])
>>> ancestor_queries(ix, [(frozenset({"A"}), "C"), (frozenset({"C"}), "A"), (frozenset({"B"}), "B")])
[True, False, False]
"""

from __future__ import annotations

from collections import defaultdict
from difflib import get_close_matches
from operator import attrgetter
from typing import Sequence

from ._index import plan_index
from .model import Plan, Step

CHUNK_BITS = 1024
WALK_BUDGET = 48
_produces = attrgetter("produces")
GIVE_UP = 4  # after this many walks of one group run out of budget, its queries go to the bitset pass
SUGGEST_BUDGET = 100_000  # id comparisons spent on "did you mean" hints per Index (difflib is O(steps) per name)


class Index:
    """First step per id, cleaned parents, a topological order and fact producers.

    ``parents`` drops unknown ids and self-dependencies (both reported as
    findings); ``pos`` covers the acyclic part; ``cyclic_nodes`` the steps in
    or behind a cycle; ``producer_of`` maps a fact to one producer and
    ``producers(fact)`` to all of them. The structural part comes from the
    plan's shared :class:`~planviz._index.PlanIndex` (built once per plan).
    """

    __slots__ = ("plan", "core", "steps", "duplicated", "parents", "unknown", "self_deps", "order", "pos",
                 "cyclic_nodes", "producer_of", "_multi", "_kinds", "_groups", "_close", "_budget")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        core = self.core = plan_index(plan)
        self.steps: dict[str, Step] = core.steps
        self.duplicated = core.duplicated
        self.unknown, self.self_deps, self.parents = core.unknown, core.self_deps, core.parents
        self.order, self.pos, self.cyclic_nodes = core.order, core.pos, core.cyclic_nodes
        steps = self.steps
        self.producer_of = {f: sid for sid, s in steps.items() for f in s.produces}
        self._multi: dict[str, list[str]] | None = None
        if len(self.producer_of) != sum(map(len, map(_produces, steps.values()))):
            multi: dict[str, list[str]] = defaultdict(list)
            for sid, s in steps.items():
                for f in dict.fromkeys(s.produces):
                    multi[f].append(sid)
            self._multi = {f: ps for f, ps in multi.items() if len(ps) > 1}
        self._kinds: dict[str, list[str]] | None = None
        self._groups: dict[str, frozenset[str]] = {}
        self._close: dict[str, str | None] = {}
        self._budget = SUGGEST_BUDGET

    def producers(self, fact: str) -> list[str]:
        """Every step producing ``fact`` (a step listing it twice counts once)."""
        if self._multi is not None and fact in self._multi:
            return self._multi[fact]
        one = self.producer_of.get(fact)
        return [one] if one is not None else []

    def producer_group(self, fact: str) -> frozenset[str]:
        """The producers of ``fact`` as one shared frozenset (groups are keyed by identity-equal sets)."""
        group = self._groups.get(fact)
        if group is None:
            group = self._groups[fact] = frozenset(self.producers(fact))
        return group

    def by_kind(self) -> dict[str, list[str]]:
        """Step ids by kind, for contract entries that name a kind instead of an id."""
        if self._kinds is None:
            kinds: dict[str, list[str]] = defaultdict(list)
            for sid, s in self.steps.items():
                if s.kind is not None:
                    kinds[s.kind].append(sid)
            self._kinds = kinds
        return self._kinds

    def levels(self) -> dict[str, int]:
        """Longest-path depth of each step: a topological key independent of file order."""
        return self.core.levels()

    def close_id(self, name: str) -> str | None:
        """The step id most like ``name``, for a "did you mean" hint; memoized per name.

        Each new name costs one comparison per step, so hints stop (None) once
        ``SUGGEST_BUDGET`` comparisons are spent: thousands of dangling ids in
        a big plan must not make validation quadratic.
        """
        if name in self._close:
            return self._close[name]
        if self._budget < len(self.steps):
            return None
        self._budget -= len(self.steps)
        close = get_close_matches(name, self.steps, n=1)
        found = self._close[name] = close[0] if close else None
        return found


def _walk(ix: Index, group: frozenset[str], node: str, lo: int) -> bool | None:
    """Search node's ancestors for a member of group, giving up (None) after WALK_BUDGET steps."""
    parents, pos = ix.parents, ix.pos
    stack = [p for p in parents[node] if pos[p] >= lo]
    seen = set(stack)
    budget = WALK_BUDGET
    while stack:
        u = stack.pop()
        if u in group:
            return True
        budget -= 1
        if not budget:
            return None
        for p in parents[u]:
            if p not in seen and pos[p] >= lo:
                seen.add(p)
                stack.append(p)
    return False


def ancestor_queries(ix: Index, queries: Sequence[tuple[frozenset[str], str]]) -> list[bool]:
    """For each ``(group, step)``: is some member of ``group`` a strict ancestor of ``step``?

    Needs an acyclic index (``ix.cyclic_nodes`` empty).
    """
    pos, parents = ix.pos, ix.parents
    answers = [False] * len(queries)
    gid: dict[frozenset[str], int] = {}
    lo: list[int] = []
    asked: dict[int, list[int]] = defaultdict(list)
    given_up: list[int] = []  # walks per group that ran out of budget
    for qi, (group, node) in enumerate(queries):
        ps = parents[node]
        if any(p in group for p in ps) if len(ps) <= len(group) else any(m in ps for m in group):
            answers[qi] = True
            continue
        if len(ps) < 8 and any(m in group for p in ps for m in parents[p]):  # two hops
            answers[qi] = True
            continue
        g = gid.get(group)
        if g is None:
            g = gid[group] = len(lo)
            lo.append(min((pos[m] for m in group), default=len(pos)))
        if pos[node] <= lo[g]:
            continue
        if len(given_up) > g and given_up[g] >= GIVE_UP:
            asked[g].append(qi)
            continue
        found = _walk(ix, group, node, lo[g])
        if found is None:
            asked[g].append(qi)
            given_up.extend([0] * (g + 1 - len(given_up)))
            given_up[g] += 1
        else:
            answers[qi] = found
    live = sorted(asked, key=lo.__getitem__)
    groups = list(gid)
    order = ix.order
    for start in range(0, len(live), CHUNK_BITS):
        chunk = live[start:start + CHUNK_BITS]
        own: dict[str, int] = defaultdict(int)
        for bit, g in enumerate(chunk):
            for m in groups[g]:
                own[m] |= 1 << bit
        first = lo[chunk[0]]
        last = max(pos[queries[qi][1]] for g in chunk for qi in asked[g])
        carried: dict[str, int] = {}
        strict: dict[str, int] = {}
        get = carried.get
        for u in order[first:last + 1]:
            a = 0
            for p in parents[u]:
                b = get(p)
                if b:
                    a |= b
            if a:
                strict[u] = a
            b = a | own.get(u, 0)
            if b:
                carried[u] = b
        for bit, g in enumerate(chunk):
            mask = 1 << bit
            for qi in asked[g]:
                if strict.get(queries[qi][1], 0) & mask:
                    answers[qi] = True
    return answers
