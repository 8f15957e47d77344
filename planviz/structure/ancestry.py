"""Ancestor queries: "is some step of this group a strict ancestor of that step?", asked in batches.

The ancestor rule of validation (facts, placeholders, tool preconditions,
must_precede, shared resources) asks this thousands of times on big plans.
It must stay near-linear on 100,000-step plans and never store per-step
ancestor sets (O(V^2) memory). "Is some step of this
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

>>> from planviz import Step, Plan
>>> from planviz.structure.index import structure_index
>>> plan = Plan("g", [Step("C", "c", depends_on="B"), Step("B", "b", depends_on="A"), Step("A", "a")])
>>> ix = structure_index(plan)
>>> ancestor_queries(ix, [(frozenset({"A"}), "C"), (frozenset({"C"}), "A"), (frozenset({"B"}), "B")])
[True, False, False]
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from .index import StructureIndex

__all__ = ["ancestor_queries", "CHUNK_BITS", "WALK_BUDGET", "GIVE_UP"]

CHUNK_BITS = 1024
WALK_BUDGET = 48
GIVE_UP = 4  # after this many walks of one group run out of budget, its queries go to the bitset pass


def _walk(ix: StructureIndex, group: frozenset[str], node: str, lo: int) -> bool | None:
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


def ancestor_queries(ix: StructureIndex, queries: Sequence[tuple[frozenset[str], str]]) -> list[bool]:
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
