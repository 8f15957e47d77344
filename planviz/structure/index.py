"""The structural index: one per plan, shared by validation, analysis and runs.

Everything that asks about a plan's shape (dependencies cleaned of unknown
and self references, successors, a topological order, levels, who produces
a fact) reads it from this one index, built once per plan value and cached
on the plan instance (in its ``__dict__``, bypassing the frozen
``__setattr__`` as ``functools.cached_property`` does). It is not a field:
equality, hashing and repr ignore it, and it pickles as an empty holder.

The topological order comes from one pass, :func:`topological_order`
(Kahn's algorithm over integers); a plan whose steps are already listed in
dependency order skips even that. Nothing depends on the order of steps in
the file beyond which duplicate id wins (the first, :attr:`Plan.by_id`).

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step("C", "c", depends_on="B"), Step("B", "b", depends_on="A"), Step("A", "a")])
>>> ix = structure_index(plan)
>>> ix is structure_index(plan), ix.cyclic_nodes, ix.order
(True, [], ['A', 'B', 'C'])
>>> ix.children()["A"], ix.levels()["C"], ix.clean, ix.ints()[0]
(['B'], 2, True, ['C', 'B', 'A'])
>>> structure_index(Plan("g", [Step("A", "a", resources="db"), Step("B", "b", resources=["db", "log"])])).holders()
{'db': ['A', 'B']}
>>> plan == Plan("g", plan.steps)
True
"""

from __future__ import annotations

from collections import defaultdict, deque
from itertools import chain
from operator import attrgetter
from typing import Iterable, Mapping

from planviz.plan.bulk import paused_gc
from planviz.plan.model import Plan, Step

__all__ = ["StructureIndex", "structure_index", "topological_order"]

_KEY = "_planviz_index"
_deps = attrgetter("depends_on")


class _Holder:
    """The per-plan cache slot; pickles empty, so a pickled plan carries no derived data."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index: StructureIndex | None = None

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (_Holder, ())

    def __repr__(self) -> str:
        return "<planviz index cache>"


def structure_index(plan: Plan) -> StructureIndex:
    """The plan's :class:`StructureIndex`, built on first use and kept on the plan instance."""
    d = plan.__dict__
    holder = d.get(_KEY)
    if holder is None:
        holder = d[_KEY] = _Holder()
    ix = holder.index
    if ix is None:
        with paused_gc():
            ix = holder.index = StructureIndex(plan)
    return ix


def topological_order(kids: list[list[int]], indeg: list[int]) -> list[int]:
    """Kahn's algorithm over integers: every node not on or behind a cycle, each after its predecessors.

    ``kids[u]`` lists u's successors (once per edge), ``indeg[v]`` counts v's
    incoming edges. Nodes missing from the result lie on a cycle or after one.

    >>> topological_order([[1, 2], [2], []], [0, 1, 2]), topological_order([[1], [0], []], [1, 1, 0])
    ([0, 1, 2], [2])
    """
    indeg = indeg[:]
    order = [i for i, k in enumerate(indeg) if not k]
    for u in order:  # the list grows while we walk it
        for c in kids[u]:
            k = indeg[c] - 1
            indeg[c] = k
            if not k:
                order.append(c)
    return order


class StructureIndex:
    """A plan's structure: steps by id, cleaned dependencies, a topological order, and derived lookups.

    ``steps`` is the plan's first step per id (:attr:`Plan.by_id`);
    ``parents`` its dependencies without unknown ids and self-dependencies
    (``unknown`` and ``self_deps`` list those, over every step including
    later duplicates); ``order``/``pos`` cover the acyclic part,
    ``cyclic_nodes`` the steps on or behind a cycle. ``clean`` is true when
    none of that applies. Successors, levels, the integer form, fact
    producers and kinds are computed on first use. Treat everything as
    read-only.
    """

    __slots__ = (
        "steps",
        "duplicated",
        "parents",
        "unknown",
        "self_deps",
        "order",
        "pos",
        "cyclic_nodes",
        "clean",
        "file_ordered",
        "_listed",
        "_children",
        "_levels",
        "_ilevels",
        "_ints",
        "_producers",
        "_kinds",
        "_holders",
    )

    def __init__(self, plan: Plan) -> None:
        steps = self.steps = plan.by_id
        self.duplicated = len(steps) != len(plan.steps)
        self._listed: list[tuple[str, ...]] | None = None
        self._children: dict[str, list[str]] | None = None
        self._levels: dict[str, int] | None = None
        self._ilevels: list[int] | None = None
        self._ints: tuple[list[str], list[list[int]], list[int], list[int]] | None = None
        self._producers: dict[str, list[str]] | None = None
        self._kinds: dict[str, list[str]] | None = None
        self._holders: dict[str, list[str]] | None = None
        self.unknown: set[str] = set()
        self.self_deps: list[str] = []
        self.file_ordered = False  # every dependency listed earlier in the file (no repeated id)
        if not self.duplicated and (self._in_file_order() or self._sort_raw()):
            self.clean = True
            return
        # a later duplicate's defects count too
        everything = plan.steps if self.duplicated else steps.values()
        self.unknown = set(chain.from_iterable(map(_deps, everything))).difference(steps)
        self.self_deps = [s.id for s in everything if s.id in s.depends_on]
        self.parents = {
            sid: tuple(d for d in s.depends_on if d in steps and d != sid)
            for sid, s in steps.items()
        }
        keys = list(steps)
        at = dict(zip(keys, range(len(keys))))
        kids: list[list[int]] = [[] for _ in keys]
        for i, ps in enumerate(self.parents.values()):
            for p in ps:
                kids[at[p]].append(i)
        self._set_order(keys, topological_order(kids, [len(ps) for ps in self.parents.values()]))
        self.clean = not (self.unknown or self.self_deps or self.cyclic_nodes)
        if self.clean:
            self._ints = (
                keys,
                kids,
                [at[k] for k in self.order],
                [len(ps) for ps in self.parents.values()],
            )

    def _in_file_order(self) -> bool:
        """The common case, checked cheaply: known ids, every dependency listed earlier in the file."""
        steps = self.steps
        # read from the steps once: they lie all over the heap
        listed = list(map(_deps, steps.values()))
        seen: set[str] = set()
        earlier, add = seen.issuperset, seen.add
        for sid, deps in zip(steps, listed):
            # an unknown id, the step itself or one listed later (tested in C)
            if deps and not earlier(deps):
                return False
            add(sid)
        self.parents = dict(zip(steps, listed))
        self._listed = listed  # the file order is the topological order
        self.order, self.cyclic_nodes = list(steps), list[str]()
        self.file_ordered = True
        self.pos = dict(zip(steps, range(len(steps))))
        return True

    def _sort_raw(self) -> bool:
        """The raw dependencies sorted; False (nothing kept) on an unknown id or a cycle.

        A plan that sorts completely has no unknown id and no self-dependency,
        so its raw dependency lists are already clean.
        """
        steps = self.steps
        keys = list(steps)
        at = dict(zip(keys, range(len(keys))))
        kids: list[list[int]] = [[] for _ in keys]
        deps = list(map(_deps, steps.values()))
        try:
            for i, ds in enumerate(deps):
                for p in ds:
                    kids[at[p]].append(i)
        except KeyError:
            return False
        npred = list(map(len, deps))
        order = topological_order(kids, npred)
        if len(order) != len(keys):
            return False
        self.parents = dict(zip(keys, deps))
        self._set_order(keys, order)
        self._ints = (keys, kids, order, npred)
        return True

    def _set_order(self, keys: list[str], order: list[int]) -> None:
        self.order = ids = list(map(keys.__getitem__, order))
        self.pos = dict(zip(ids, range(len(ids))))
        self.cyclic_nodes = [k for k in keys if k not in self.pos] if len(ids) < len(keys) else []

    # -- derived, on first use --------------------------------------------------------------------

    def listed_parents(self) -> list[tuple[str, ...]]:
        """The ``parents`` of each step of ``order``, in that order (a plan listed in dependency order has them
        from the file-order test, without a lookup per step)."""
        if self._listed is None:
            self._listed = list(map(self.parents.__getitem__, self.order))
        return self._listed

    def ints(self) -> tuple[list[str], list[list[int]], list[int], list[int]]:
        """An acyclic plan over integers: (ids, successors, topological order, dependency counts).

        Step ``i`` is ``ids[i]`` (the order of ``steps``); ``successors[i]``
        lists it once per (cleaned) dependency entry naming it. Analyses take it
        from clean plans only (see :func:`planviz.structure.dag.require_dag`).
        """
        if self._ints is None:
            if self.cyclic_nodes:
                raise ValueError(
                    "the integer form needs an acyclic plan; call require_dag(plan) first"
                )
            keys = list(self.steps)
            same = self.order == keys  # the file lists every step after its dependencies
            at = self.pos if same else dict(zip(keys, range(len(keys))))
            kids: list[list[int]] = [[] for _ in keys]
            # parents lists the steps in the order of ``steps``
            parents = list(self.parents.values())
            index = at.__getitem__
            for i, ps in enumerate(parents):
                for j in map(index, ps):
                    kids[j].append(i)
            order = list(range(len(keys))) if same else list(map(index, self.order))
            self._ints = (keys, kids, order, list(map(len, parents)))
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

    def producers(self, fact: str) -> list[str]:
        """Every step producing ``fact``, in file order (a step listing it twice counts once)."""
        if self._producers is None:
            producers: dict[str, list[str]] = defaultdict(list)
            for sid, s in self.steps.items():
                for f in dict.fromkeys(s.produces):
                    producers[f].append(sid)
            self._producers = producers
        return self._producers.get(fact, [])

    def by_kind(self) -> dict[str, list[str]]:
        """Step ids by kind, for contract entries that name a kind instead of an id."""
        if self._kinds is None:
            kinds: dict[str, list[str]] = defaultdict(list)
            for sid, s in self.steps.items():
                if s.kind is not None:
                    kinds[s.kind].append(sid)
            self._kinds = kinds
        return self._kinds

    def holders(self) -> dict[str, list[str]]:
        """Resource -> the steps that write or hold it exclusively (in file order), for resources held by two or more.

        The exclusive-resource rule reads it: two of these steps never run at the same time.
        """
        if self._holders is None:
            holders: dict[str, list[str]] = defaultdict(list)
            for sid, s in self.steps.items():
                if s.resources:  # most steps hold none
                    for r in dict.fromkeys(s.resources):
                        holders[r].append(sid)
            self._holders = {r: ids for r, ids in holders.items() if len(ids) > 1}
        return self._holders

    def descendants(self, roots: Iterable[str]) -> set[str]:
        """The roots and everything downstream of them."""
        return _closure(roots, self.children())

    def ancestors(self, roots: Iterable[str]) -> set[str]:
        """The roots and everything upstream of them (every step whose work leads to one of them)."""
        return _closure(roots, self.parents)

    def ancestor_distances(self, start: str) -> dict[str, int]:
        """Every ancestor of ``start`` with its distance (fewest edges) to it."""
        return self._bfs(start, directed=True)

    def undirected_distances(self, start: str) -> dict[str, int]:
        """Every step connected to ``start``, ignoring edge direction, with its distance."""
        return self._bfs(start, directed=False)

    def _bfs(self, start: str, directed: bool) -> dict[str, int]:
        dist = {start: 0}
        queue = deque([start])
        parents, children = self.parents, self.children()
        while queue:
            u = queue.popleft()
            d = dist[u] + 1
            near: Iterable[str] = parents[u] if directed else (*parents[u], *children[u])
            for v in near:
                if v not in dist:
                    dist[v] = d
                    queue.append(v)
        del dist[start]
        return dist

    def step(self, sid: str) -> Step:
        return self.steps[sid]


def _closure(roots: Iterable[str], near: Mapping[str, Iterable[str]]) -> set[str]:
    """The roots and every step reached from them through ``near`` (children: downstream; parents: upstream)."""
    seen = set(roots)
    stack = list(seen)
    while stack:
        for v in near.get(stack.pop(), ()):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen
