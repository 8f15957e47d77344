"""Private helper of :mod:`planviz.analysis`: a plan as integer adjacency lists.

The analysis passes (forward/backward pass, timeline, reachability, scopes)
are linear loops; building a ``networkx.DiGraph`` with every step attribute
would cost more than the passes themselves on a 100k-step plan, so they run on
plain dicts keyed by step id: predecessors are each step's ``depends_on``,
successors are listed once here. No result depends on the order of steps in
the file.

>>> from planviz.model import Plan, Step
>>> plan = Plan("g", [Step("B", "b", depends_on="A"), Step("A", "a")])
>>> build_index(plan).generations()
[['A'], ['B']]
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any, Iterable

import networkx as nx

from ._index import paused_gc, plan_index
from .errors import AnalysisError, StructureError
from .model import Plan, Step

__all__ = ["AnalysisError", "StructureError", "DagIndex", "build_index", "dag_index", "sorted_dag",
           "unique_steps", "unknown_error", "paused_gc", "reach_pass", "state_of", "collection"]


class DagIndex:
    """A plan's steps by id (first wins on a duplicate id, as in ``to_graph``) and its successor lists.

    ``indeg[v]`` counts ``v``'s ``depends_on`` entries and ``succ[u]`` lists
    ``v`` once per entry, so a repeated dependency stays consistent.
    """

    __slots__ = ("steps", "succ", "indeg", "_by_id")

    def __init__(self, steps: list[Step] | tuple[Step, ...], succ: dict[str, list[str]],
                 indeg: dict[str, int]) -> None:
        self.steps = steps
        self.succ = succ
        self.indeg = indeg
        self._by_id: dict[str, Step] | None = None

    def __len__(self) -> int:
        return len(self.succ)

    def step(self, sid: str) -> Step:
        if self._by_id is None:
            self._by_id = {s.id: s for s in self.steps}
        return self._by_id[sid]

    def generations(self) -> list[list[str]]:
        """Kahn's algorithm by generations; raises :class:`StructureError` on a cycle."""
        succ = self.succ
        indeg = dict(self.indeg)
        wave = [v for v, k in indeg.items() if not k]
        waves = []
        seen = 0
        while wave:
            waves.append(wave)
            seen += len(wave)
            nxt = []
            for u in wave:
                for v in succ[u]:
                    k = indeg[v] - 1
                    indeg[v] = k
                    if not k:
                        nxt.append(v)
            wave = nxt
        if seen != len(indeg):
            raise self.cycle_error([v for v, k in indeg.items() if k])
        return waves

    def descendants(self, roots: Iterable[str]) -> set[str]:
        """The roots and everything downstream of them."""
        seen = set(roots)
        stack = list(seen)
        succ = self.succ
        while stack:
            for v in succ[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return seen

    def ancestor_distances(self, start: str) -> dict[str, int]:
        """Every ancestor of ``start`` with its distance (fewest edges) to it."""
        return self._bfs(start, directed=True)

    def undirected_distances(self, start: str) -> dict[str, int]:
        """Every step connected to ``start``, ignoring edge direction, with its distance."""
        return self._bfs(start, directed=False)

    def _bfs(self, start: str, directed: bool) -> dict[str, int]:
        dist = {start: 0}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            d = dist[u] + 1
            near = self.step(u).depends_on
            if not directed:
                near = (*near, *self.succ[u])
            for v in near:
                if v not in dist:
                    dist[v] = d
                    queue.append(v)
        del dist[start]
        return dist

    def cycle_error(self, stuck: list[str]) -> StructureError:
        """The error for a plan whose steps ``stuck`` never became ready (they lie on or after a cycle)."""
        g = nx.DiGraph()
        stuck_set = set(stuck)
        g.add_edges_from((u, v) for v in stuck for u in self.step(v).depends_on if u in stuck_set)
        try:
            edges = [tuple(e[:2]) for e in nx.find_cycle(g)]
        except nx.NetworkXNoCycle:  # pragma: no cover - Kahn left these steps, so a cycle exists
            edges = []
        if edges:  # start the cycle at its lowest id, so the message does not depend on file order
            k = min(range(len(edges)), key=lambda i: edges[i][0])
            edges = edges[k:] + edges[:k]
        names = " -> ".join(repr(u) for u, _ in edges) + (f" -> {edges[0][0]!r}" if edges else "")
        return StructureError(
            f"the plan has a cycle ({names}), so it has no schedule; "
            "run planviz.validate(plan) to see it and remove one of its dependencies",
            steps=sorted({u for u, _ in edges}), edges=edges)


def unique_steps(plan: Plan) -> tuple[list[Step] | tuple[Step, ...], dict[str, list[str]]]:
    """The plan's steps (first wins on a duplicate id) and an empty successor list per id."""
    steps = plan.steps
    succ: dict[str, list[str]] = {s.id: [] for s in steps}
    if len(succ) != len(steps):
        first: dict[str, Step] = {}
        for s in steps:
            first.setdefault(s.id, s)
        steps = list(first.values())
    return steps, succ


def build_index(plan: Plan) -> DagIndex:
    """Index ``plan``; raises :class:`StructureError` naming every unknown dependency."""
    steps, succ = unique_steps(plan)
    indeg: dict[str, int] = {}
    try:
        for s in steps:
            sid = s.id
            deps = s.depends_on
            indeg[sid] = len(deps)
            for d in deps:
                succ[d].append(sid)
    except KeyError:
        raise unknown_error(steps, succ) from None
    return DagIndex(steps, succ, indeg)


def dag_index(plan: Plan) -> DagIndex:
    """The plan's DAG, from its shared index when it is clean (no rebuild, already known acyclic).

    Raises :class:`StructureError` on an unknown dependency or a cycle.
    """
    ix = plan_index(plan)
    if not ix.clean:
        index = build_index(plan)
        index.generations()  # raises on the cycle
        return index
    parents = ix.parents
    return DagIndex(list(ix.steps.values()), ix.children(), {v: len(ps) for v, ps in parents.items()})


def sorted_dag(plan: Plan) -> tuple[list[Step], list[str], list[list[int]], list[int], list[int]]:
    """The plan over integers: (steps, ids, successors, a topological order, dependency counts).

    Step ``i`` is ``steps[i]`` with id ``ids[i]`` (first step per id);
    ``successors[i]`` lists ``i``'s successors once per dependency entry.
    Comes from the plan's shared index when it is clean; otherwise raises
    :class:`StructureError` as :func:`build_index` and ``generations`` do.
    """
    ix = plan_index(plan)
    if ix.clean:
        keys, kids, order, npred = ix.ints()
        return list(ix.steps.values()), keys, kids, order, npred
    index = build_index(plan)
    waves = index.generations()
    steps = list(index.steps)
    keys = [s.id for s in steps]
    at = dict(zip(keys, range(len(keys))))
    succ = index.succ
    return (steps, keys, [[at[v] for v in succ[k]] for k in keys], [at[v] for wave in waves for v in wave],
            [index.indeg[k] for k in keys])


def unknown_error(steps: Iterable[Step], known: dict[str, object]) -> StructureError:
    """The error naming every dependency on an id the plan does not have."""
    unknown = sorted((s.id, d) for s in steps for d in s.depends_on if d not in known)
    shown = "; ".join(f"step {sid!r} depends on unknown step {dep!r}" for sid, dep in unknown[:10])
    return StructureError(f"{shown}; run planviz.validate(plan) to see every structural finding, "
                          "then fix or remove those dependencies", steps=sorted({s for s, _ in unknown}))


def reach_pass(steps: Iterable[Step], succ: dict[str, list], completed: Iterable[str],
               held: Iterable[str]) -> tuple[set[str], list[str], set[str]]:
    """One worklist pass: (facts that could hold, reachable remaining steps, completed ids in the plan).

    Each remaining step counts its unmet dependencies plus unmet facts; a
    step is queued when its count reaches zero, and a fact is released once,
    when the first reachable step produces it. ``succ`` (an empty list per
    id) is filled with the edges between remaining steps.
    """
    done = {c for c in collection(completed, "completed", "step ids") if c in succ}
    facts = set(collection(held, "facts", "fact strings"))
    unmet: dict[str, int] = {}
    watchers: defaultdict[str, list[Step]] = defaultdict(list)
    queue: list[Step] = []
    try:
        for s in steps:
            sid = s.id
            if sid in done:
                continue
            k = 0
            for d in s.depends_on:
                if d not in done:
                    succ[d].append(s)
                    k += 1
            for f in s.requires:
                if f not in facts:
                    k += 1
                    watchers[f].append(s)
            if k:
                unmet[sid] = k
            else:
                queue.append(s)
    except KeyError:
        raise unknown_error(steps, succ) from None
    for v in queue:  # appends extend the loop: each step is queued once, when its count reaches zero
        for f in v.produces:
            if f not in facts:
                facts.add(f)
                for w in watchers.pop(f, ()):
                    wid = w.id
                    k = unmet[wid] - 1
                    unmet[wid] = k
                    if not k:
                        queue.append(w)
        for w in succ[v.id]:
            wid = w.id
            k = unmet[wid] - 1
            unmet[wid] = k
            if not k:
                queue.append(w)
    return facts, [s.id for s in queue], done


def collection(value: Any, what: str, of: str) -> Any:
    """``value`` itself, refusing a lone string (iterating it would give its characters)."""
    if isinstance(value, str):
        raise AnalysisError(f"{what} must be a collection of {of}, got the string {value!r}; wrap it in a list")
    return value


def state_of(state: Any) -> tuple[Iterable[str], set[str]]:
    """(completed, facts) from an execution state (``.completed``/``.facts``) or a pair."""
    if hasattr(state, "completed") and hasattr(state, "facts"):
        return state.completed, set(collection(state.facts, "facts", "fact strings"))
    if isinstance(state, (tuple, list)) and len(state) == 2:
        return state[0], set(collection(state[1], "facts", "fact strings"))
    raise AnalysisError(f"expected an execution state (with .completed and .facts) or a (completed, facts) "
                        f"pair, got {state!r}")
