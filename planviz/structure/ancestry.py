"""Ancestor queries: "is some step of this group a strict ancestor of that step?", asked in batches.

The ancestor rule of validation (facts, placeholders, tool preconditions,
must_precede, shared resources) asks this thousands of times on big plans,
whatever their shape: facts from the step before, or from 20 levels up. It
must stay near-linear on 100,000-step plans and never store per-step
ancestor sets (O(V^2) memory). A query is answered in two tiers:

1. the step's direct dependencies (where facts normally flow), then their
   dependencies (a fact that skips one step);
2. every other query at once, in one sweep of the steps in topological
   order. Each asked group owns one bit (of a Python int) while it is live:
   from its first member's position to its last asker's. A step ORs the
   bits its dependencies carry (a list read each, by position: the
   dependencies are turned into positions for the steps swept only, so
   plans whose questions never get here never pay for it), adds its own
   groups' bits and keeps the result; an asker reads the bit of its group
   in what its dependencies carry. A group's bit is freed once its last
   asker has read it and is given to a group that starts later, so an int
   holds about as many bits as there are groups live at one point of the
   order, not as many as were asked. Freed bits are cleared from the steps
   still to be read (those from the lowest position any later step reads
   on; the ones below are dropped), at most once per ``EPOCH`` steps or per
   as many steps as are kept, so that work stays linear. At most
   ``MAX_BITS`` groups are live in one sweep; the rest wait for another
   sweep. Up to ``FEW`` groups, the sweep is simpler: each step keeps its
   few bits in a dict by id (no positions needed).

Time is O(V + E) per sweep plus the int operations (each O(live groups / 64)
machine words); memory is the kept steps' ints, at most
O(kept steps x MAX_BITS / 8) bytes. Answers never depend on which
topological order is used, so nothing depends on the order of steps in the file.

>>> from planviz import Step, Plan
>>> from planviz.structure.index import structure_index
>>> plan = Plan("g", [Step("C", "c", depends_on="B"), Step("B", "b", depends_on="A"), Step("A", "a")])
>>> ix = structure_index(plan)
>>> ancestor_queries(ix, [(frozenset({"A"}), "C"), (frozenset({"C"}), "A"), (frozenset({"B"}), "B")])
[True, False, False]
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate, compress, count, repeat
from operator import not_
from typing import Sequence

from planviz.structure.index import StructureIndex

__all__ = ["ancestor_queries", "ancestor_pairs", "MAX_BITS", "EPOCH", "FEW"]

MAX_BITS = 1 << 14
"""Most groups one sweep follows at once (a waiting step's int is at most MAX_BITS / 8 bytes)."""
EPOCH = 1024
"""Fewest steps between two reuses of freed bits (each reuse clears them from every waiting step)."""
FEW = 64
"""Up to this many groups, a sweep keeps one small int per step instead of reusing bits (and needs no
positions)."""


def ancestor_queries(
    ix: StructureIndex, queries: Sequence[tuple[frozenset[str] | str, str]], *, near: bool = True
) -> list[bool]:
    """For each ``(group, step)``: is some member of ``group`` a strict ancestor of ``step``?

    A group is a frozenset of step ids, or one step id. Needs an acyclic index
    (``ix.cyclic_nodes`` empty). ``near=False`` skips tier 1, for callers that
    have already looked at the step's dependencies and theirs (the answers are
    the same either way).
    """
    pos, parents = ix.pos, ix.parents
    n = len(pos)
    answers = [False] * len(queries)
    sets: dict[frozenset[str], int] = {}  # a group of several steps -> n + its number
    first: list[int] = []  # each such group's first position in the order
    asked: list[tuple[int, int, int]] = []  # (asker's position, group, query) still open
    for qi, (group, node) in enumerate(queries):
        if near and _near(parents, group, node):
            answers[qi] = True
            continue
        if isinstance(group, str):  # a one-step group is known by its step's position
            g = lo = pos[group]
        else:
            g = sets.get(group, -1)
            if g < 0:
                g = sets[group] = n + len(first)
                first.append(min(map(pos.__getitem__, group), default=n))
            lo = first[g - n]
        at = pos[node]
        if at > lo:  # an ancestor comes earlier in every topological order
            asked.append((at, g, qi))
    members = [tuple(map(pos.__getitem__, group)) for group in sets]
    while asked:
        asked = _sweep(ix, asked, first, members, answers)
    return answers


def ancestor_pairs(
    ix: StructureIndex, ancestors: Sequence[str], steps: Sequence[str]
) -> list[bool]:
    """For each ``i``: is ``ancestors[i]`` a strict ancestor of ``steps[i]``?

    :func:`ancestor_queries` of one-step groups with ``near=False`` (the caller
    has looked at the dependencies), taken as two lists in one pass: the
    ancestor rule asks this for every fact its dependencies do not produce.

    >>> from planviz import Step, Plan
    >>> from planviz.structure.index import structure_index
    >>> ix = structure_index(Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"),
    ...                                 Step("C", "c", depends_on="B")]))
    >>> ancestor_pairs(ix, ["A", "C", "B"], ["C", "A", "B"])
    [True, False, False]
    """
    at = ix.pos.__getitem__
    answers = [False] * len(steps)
    asked = [(t, g, qi) for qi, g, t in zip(count(), map(at, ancestors), map(at, steps)) if t > g]
    while asked:
        asked = _sweep(ix, asked, [], [], answers)
    return answers


def _near(parents: dict[str, tuple[str, ...]], group: frozenset[str] | str, node: str) -> bool:
    """Tier 1: is a member of ``group`` a dependency of ``node``, or a dependency of one?"""
    ps = parents[node]
    if isinstance(group, str):
        if group in ps:
            return True
        if len(ps) < 8:
            for p in ps:
                if group in parents[p]:
                    return True
        return False
    if len(ps) <= len(group):
        for p in ps:
            if p in group:
                return True
    elif not group.isdisjoint(ps):
        return True
    if len(ps) < 8:
        for p in ps:
            if not group.isdisjoint(parents[p]):
                return True
    return False


def _sweep(
    ix: StructureIndex,
    asked: list[tuple[int, int, int]],
    first: list[int],
    members: list[tuple[int, ...]],
    answers: list[bool],
) -> list[tuple[int, int, int]]:
    """Answer the ``(position, group, query)`` asked in one pass; returns those left for another.

    A group ``g`` below ``n`` (the number of steps) is the one step at position ``g``; group ``n + k``
    has members at the positions ``members[k]``, the first at ``first[k]``.
    """
    n = len(ix.order)
    asked.sort()
    last = {g: at for at, g, _ in asked}  # group -> its last asker's position
    if first:  # some groups have several steps: each starts at its first member
        lo = {g: g if g < n else first[g - n] for g in last}
        groups = sorted(last, key=lo.__getitem__)
        starts = list(map(lo.__getitem__, groups))
    else:  # every group is one step, starting at its own position
        groups = starts = sorted(last)
    # (a member's position, group), for members up to the last asker
    owners = list(zip(starts, groups))
    if first:
        extra = [
            (at, g)
            for g, s in zip(groups, starts)
            if g >= n
            for at in members[g - n]
            if s < at <= last[g]
        ]
        if extra:
            owners += extra
            owners.sort()
    if len(groups) <= FEW:
        _few(ix, asked, groups, owners, answers)
        return []
    return _pull(ix, asked, groups, starts, owners, last, n + len(first), answers)


def _pull(
    ix: StructureIndex,
    asked: list[tuple[int, int, int]],
    groups: list[int],
    starts: list[int],
    owners: list[tuple[int, int]],
    last: dict[int, int],
    size: int,
    answers: list[bool],
) -> list[tuple[int, int, int]]:
    """The sweep over positions: each step ORs its dependencies' bits (a list read each); returns what waits."""
    pos = ix.pos
    hi = [0] * size  # as lists, by group: quicker to read in the loop below
    bit = [-1] * size  # group -> its bit while live
    for g, at in last.items():
        hi[g] = at
    end = asked[-1][0]
    t = t0 = starts[0]
    # the dependencies of the steps swept, as positions (made here: only far questions need them)
    listed = ix.listed_parents()[t0 : end + 1]
    deps: list[tuple[int, ...]] = list(map(tuple, map(map, repeat(pos.__getitem__), listed)))
    # reach[k]: the lowest position read by the k-th step with dependencies (at reader[k]) or a later one:
    # what lies below is never read again
    reader = list(compress(range(t0, end + 1), deps))
    reach = list(accumulate(map(min, reversed(list(filter(None, deps)))), min))
    reach.reverse()
    owners.append((end + 1, -1))
    asked.append((end + 1, -1, -1))
    free: list[int] = []  # bits free to reuse; steps still to be read may carry them
    freed: list[int] = []  # bits of groups whose last asker has just read them
    used, nxt, ai, oi = 0, 0, 0, 0
    later: list[tuple[int, int, int]] = []
    # position -> the bits of the live groups among the step and its ancestors
    carry: list[int] = [0] * (end + 1)
    low = t0  # entries below this have been dropped
    while t <= end:
        k = bisect_left(reader, t)
        lo = reach[k] if k < len(reach) else t  # what the steps from t on read starts there
        if lo > low:  # never read again: drop them
            carry[low:lo] = repeat(0, lo - low)
            low = lo
        stop = min(t + max(EPOCH, t - low), end + 1)
        if freed:
            free += set(freed)  # a group asked twice at its last position frees its bit once
            freed.clear()
        reused = 0
        while nxt < len(groups) and starts[nxt] < stop:
            g = groups[nxt]
            nxt += 1
            if free:
                b = free.pop()
                reused |= 1 << b
            elif used < MAX_BITS:
                b, used = used, used + 1
            else:
                continue
            bit[g] = b
        if reused:  # clear the reused bits from the steps still to be read
            keep = ~reused
            for v in range(low, t):
                a = carry[v]
                if a:
                    carry[v] = a & keep
        ask_at, own_at = asked[ai][0], owners[oi][0]
        for t, ps in zip(range(t, stop), deps[t - t0 : stop - t0]):  # noqa: B020 (t goes on from where it is)
            a = 0
            for p in ps:
                a |= carry[p]
            while ask_at == t:
                _, g, qi = query = asked[ai]
                b = bit[g]
                if b < 0:
                    later.append(query)
                else:
                    if a >> b & 1:
                        answers[qi] = True
                    if hi[g] == t:
                        freed.append(b)
                ai += 1
                ask_at = asked[ai][0]
            while own_at == t:
                b = bit[owners[oi][1]]
                if b >= 0:
                    a |= 1 << b
                oi += 1
                own_at = owners[oi][0]
            carry[t] = a
        t = stop
    return later


def _few(
    ix: StructureIndex,
    asked: list[tuple[int, int, int]],
    groups: list[int],
    owners: list[tuple[int, int]],
    answers: list[bool],
) -> None:
    """The sweep for a handful of groups, one bit each, pulled from the dependencies (no successor lists).

    Every step from the first member to the last asker keeps its few bits, a small int each.
    """
    order, parents = ix.order, ix.parents
    # one group (one must_precede pair, a small plan's facts): a set, tested in C per step
    if len(groups) == 1:
        _one(order, parents, asked, owners, answers)
        return
    bit = {g: 1 << i for i, g in enumerate(groups)}
    own: dict[int, int] = {}
    for at, g in owners:
        own[at] = own.get(at, 0) | bit[g]
    asks: dict[int, list[tuple[int, int]]] = {}
    for at, g, qi in asked:
        asks.setdefault(at, []).append((qi, bit[g]))
    carried: dict[str, int] = {}
    get = carried.get
    for t in range(owners[0][0], asked[-1][0] + 1):
        u = order[t]
        a = 0
        for p in parents[u]:
            b = get(p)
            if b:
                a |= b
        if t in asks:
            for qi, mask in asks[t]:
                if a & mask:
                    answers[qi] = True
        a |= own.get(t, 0)
        if a:
            carried[u] = a


def _one(
    order: list[str],
    parents: dict[str, tuple[str, ...]],
    asked: list[tuple[int, int, int]],
    owners: list[tuple[int, int]],
    answers: list[bool],
) -> None:
    """:func:`_few` for a single group: the set of its members and the steps below them, grown in one pass in C.

    A step joins the set when one of its dependencies is in it (tested against the set as grown so far,
    since the steps come in topological order); an asker's answer is whether one of its dependencies is.
    Members join at the start: only steps after a member in the order can list it or a step below it.
    """
    reached = {order[at] for at, _ in owners}
    steps = order[owners[0][0] : asked[-1][0] + 1]
    reached.update(
        compress(steps, map(not_, map(reached.isdisjoint, map(parents.__getitem__, steps))))
    )
    for at, _, qi in asked:
        if not reached.isdisjoint(parents[order[at]]):
            answers[qi] = True
