"""Private: one structural index per Plan value, shared by validation and analysis.

``validate``, ``critical_path`` and ``ready_waves`` all need the same
derived data (first step per id, cleaned dependency lists, successor lists, a
topological order); building it once per plan instead of once per call is
most of their cost on a 100k-step plan. The index is derived from the plan's
immutable fields, so it is cached on the plan instance itself (in its
``__dict__``, bypassing the frozen ``__setattr__`` as
``functools.cached_property`` does). It is not a field: equality, hashing and
repr ignore it, and it pickles as an empty holder (rebuilt on demand). The
first call on a fresh plan pays for it; nothing in it depends on the order of
steps in the file beyond which duplicate wins (the first, as in ``to_graph``).

>>> from planviz.model import Plan, Step
>>> plan = Plan("g", [Step("C", "c", depends_on="B"), Step("B", "b", depends_on="A"), Step("A", "a")])
>>> ix = plan_index(plan)
>>> ix is plan_index(plan), ix.cyclic_nodes, sorted(ix.pos, key=ix.pos.get)
(True, [], ['A', 'B', 'C'])
>>> ix.children()["A"], ix.levels()["C"], ix.clean, ix.ints()[0]
(['B'], 2, True, ['C', 'B', 'A'])
>>> plan == Plan("g", plan.steps)
True
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from itertools import chain
from operator import attrgetter
from typing import Iterator

from .errors import StructureError
from .model import Plan, Step

__all__ = ["PlanIndex", "plan_index", "paused_gc"]

_KEY = "_planviz_index"
_deps = attrgetter("depends_on")


class _Holder:
    """The per-plan cache slot; pickles empty, so a pickled plan carries no derived data."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index: PlanIndex | None = None

    def __reduce__(self):
        return (_Holder, ())

    def __repr__(self) -> str:
        return "<planviz index cache>"


def plan_index(plan: Plan) -> PlanIndex:
    """The plan's :class:`PlanIndex`, built on first use and kept on the plan instance."""
    d = plan.__dict__
    holder = d.get(_KEY)
    if holder is None:
        holder = d[_KEY] = _Holder()
    ix = holder.index
    if ix is None:
        with paused_gc():
            ix = holder.index = PlanIndex(plan)
    return ix


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a pass allocates many acyclic objects.

    A 100k-step pass creates hundreds of thousands of small containers, which
    triggers full collections over the whole heap; none of them form cycles.
    The collector's previous state is restored.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class PlanIndex:
    """First step per id, cleaned parents, a topological order and (lazily) successors and levels.

    ``parents`` drops unknown ids and self-dependencies (``unknown`` and
    ``self_deps`` list them, over every step including later duplicates);
    ``order``/``pos`` cover the acyclic part; ``cyclic_nodes`` the steps in or
    behind a cycle. ``clean`` is true when none of that applies, so ``parents``
    are the steps' own ``depends_on``. For clean plans :meth:`ints` gives the
    same graph over integers (a step's place among ``steps``), which linear
    passes index as lists. Treat everything as read-only.
    """

    __slots__ = ("steps", "duplicated", "parents", "unknown", "self_deps", "order", "pos", "cyclic_nodes",
                 "clean", "_children", "_levels", "_ilevels", "_ints")

    def __init__(self, plan: Plan) -> None:
        steps = plan.__dict__.get("_index")  # the model's own first-wins map, when present
        if not isinstance(steps, dict) or len(steps) > len(plan.steps):
            steps = {}
            for s in plan.steps:
                steps.setdefault(s.id, s)
        self.steps: dict[str, Step] = steps
        self.duplicated = len(steps) != len(plan.steps)
        self._children: dict[str, list[str]] | None = None
        self._levels: dict[str, int] | None = None
        self._ilevels: list[int] | None = None
        self._ints: tuple[list[str], list[list[int]], list[int], list[int]] | None = None
        self.unknown: set[str] = set()
        self.self_deps: list[str] = []
        if not self.duplicated and (self._in_order() or self._kahn_ints()):
            self.clean = True
            return
        everything = plan.steps if self.duplicated else steps.values()  # a later duplicate's defects count too
        self.unknown = set(chain.from_iterable(map(_deps, everything))).difference(steps)
        self.self_deps = [s.id for s in everything if s.id in s.depends_on]
        self.parents = {sid: tuple(d for d in s.depends_on if d in steps and d != sid)
                        for sid, s in steps.items()}
        self._sort()
        self.clean = not (self.unknown or self.self_deps or self.cyclic_nodes)

    def _in_order(self) -> bool:
        """The common case, checked cheaply: known ids, every dependency listed earlier in the file."""
        steps = self.steps
        pos = dict(zip(steps, range(len(steps))))
        try:
            for sid, s in steps.items():
                i = pos[sid]
                for p in s.depends_on:
                    if pos[p] >= i:
                        return False
        except KeyError:
            return False
        self.parents = dict(zip(steps, map(_deps, steps.values())))
        self.order, self.pos, self.cyclic_nodes = list(steps), pos, []
        return True

    def _kahn_ints(self) -> bool:
        """Kahn's algorithm over integers on the raw dependencies; False (nothing kept) on an unknown id or a cycle.

        A plan that sorts completely has no unknown id and no self-dependency,
        so the raw lists are already clean.
        """
        steps = self.steps
        keys = list(steps)
        n = len(keys)
        at = dict(zip(keys, range(n)))
        kids: list[list[int]] = [[] for _ in range(n)]
        deps = list(map(_deps, steps.values()))
        try:
            for i, ds in enumerate(deps):
                for p in ds:
                    kids[at[p]].append(i)
        except KeyError:
            return False
        indeg = list(map(len, deps))
        npred = indeg[:]
        order = [i for i in range(n) if not indeg[i]]
        for u in order:  # the list grows while we walk it
            for c in kids[u]:
                k = indeg[c] - 1
                indeg[c] = k
                if not k:
                    order.append(c)
        if len(order) != n:
            return False
        self.parents = dict(zip(keys, deps))
        self.order = ids = list(map(keys.__getitem__, order))
        self.pos, self.cyclic_nodes = dict(zip(ids, range(n))), []
        self._ints = (keys, kids, order, npred)
        return True

    def _sort(self) -> None:
        """A topological order of the acyclic part (Kahn's algorithm); the rest is ``cyclic_nodes``."""
        parents = self.parents
        children = self.children()
        indeg = {sid: len(ps) for sid, ps in parents.items()}
        order = [sid for sid, d in indeg.items() if not d]
        for u in order:
            for c in children[u]:
                k = indeg[c] - 1
                indeg[c] = k
                if not k:
                    order.append(c)
        self.order = order
        self.pos = dict(zip(order, range(len(order))))
        self.cyclic_nodes = [sid for sid in parents if sid not in self.pos] if len(order) < len(parents) else []

    def ints(self) -> tuple[list[str], list[list[int]], list[int], list[int]]:
        """A clean plan over integers: (ids, successors, topological order, dependency counts).

        Step ``i`` is ``ids[i]`` (the order of ``steps``); ``successors[i]``
        lists it once per dependency entry naming it.
        """
        if self._ints is None:
            if not self.clean:
                raise StructureError("the integer form needs a clean plan (no unknown id, self-dependency or "
                                     "cycle); run planviz.validate(plan) to see its structural findings")
            keys = list(self.steps)
            at = dict(zip(keys, range(len(keys))))
            kids: list[list[int]] = [[] for _ in keys]
            parents = self.parents
            for i, sid in enumerate(keys):
                for p in parents[sid]:
                    kids[at[p]].append(i)
            self._ints = (keys, kids, list(map(at.__getitem__, self.order)), [len(parents[k]) for k in keys])
        return self._ints

    def children(self) -> dict[str, list[str]]:
        """Successor lists over ``parents`` (a step once per dependency entry naming it)."""
        if self._children is None:
            children: dict[str, list[str]] = {sid: [] for sid in self.parents}
            for sid, ps in self.parents.items():
                for p in ps:
                    children[p].append(sid)
            self._children = children
        return self._children

    def int_levels(self) -> list[int]:
        """Longest-path depth of each step of a clean plan, by integer (see :meth:`ints`)."""
        if self._ilevels is None:
            keys, kids, order, _ = self.ints()
            lv = [0] * len(keys)
            for u in order:
                k = lv[u] + 1
                for v in kids[u]:
                    if lv[v] < k:
                        lv[v] = k
            self._ilevels = lv
        return self._ilevels

    def levels(self) -> dict[str, int]:
        """Longest-path depth of each acyclic step: its topological generation, independent of file order."""
        if self._levels is None:
            if self.clean:
                self._levels = dict(zip(self.ints()[0], self.int_levels()))
            else:
                parents = self.parents
                levels: dict[str, int] = {}
                for u in self.order:
                    n = 0
                    for p in parents[u]:
                        k = levels[p]
                        if k >= n:
                            n = k + 1
                    levels[u] = n
                self._levels = levels
        return self._levels
