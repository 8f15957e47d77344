"""What can run at once: topological waves, and an event-driven schedule with durations, workers and resources.

>>> from planviz import examples
>>> [sorted(w) for w in ready_waves(examples.load("cache_isolation"))]
[['S0'], ['S1', 'S2'], ['S3'], ['S4']]
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from planviz.errors import AnalysisError, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.model import Plan, natural_key
from planviz.structure.dag import require_dag

__all__ = ["ready_waves", "ready_timeline", "TimelinePoint"]


@dataclass(frozen=True)
class TimelinePoint:
    """One event time of :func:`ready_timeline`, as what changed then.

    ``finished`` are the steps that finished at ``time``, ``released`` the
    steps that became ready (their last dependency finished; at time 0, the
    steps with none), ``started`` the steps that started: each step appears
    once in each over a whole timeline, so a timeline takes space linear in
    the plan. The whole sets are properties computed from the points up to
    this one (O(steps) each): ``ready`` (every step ready at ``time`` before
    anything starts, including steps a zero-duration step releases at the
    same instant, and steps waiting for a worker or a resource), ``running``
    (what runs just after) and ``done``.
    """

    time: float
    finished: frozenset[str]
    released: frozenset[str]
    started: frozenset[str]
    index: int = field(default=0, repr=False)
    _line: list[TimelinePoint] = field(default_factory=list, repr=False, compare=False, hash=False)

    def _union(self, name: str, upto: int) -> frozenset[str]:
        return frozenset().union(*(getattr(p, name) for p in self._line[:upto]))

    @property
    def done(self) -> frozenset[str]:
        return self._union("finished", self.index + 1)

    @property
    def running(self) -> frozenset[str]:
        return self._union("started", self.index + 1) - self.done

    @property
    def ready(self) -> frozenset[str]:
        return self._union("released", self.index + 1) - self._union("started", self.index)


def ready_waves(plan: Plan) -> tuple[frozenset[str], ...]:
    """Topological generations: the steps that could all run at once, wave after wave.

    Parameters
    ----------
    plan : Plan
        The plan (any version).

    Returns
    -------
    tuple of frozenset
        The waves, first to last.

    Raises
    ------
    StructureError
        When the plan has a cycle or an unknown dependency; :func:`validate` names it.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("C", "c", depends_on=["A", "B"]), Step("B", "b"), Step("A", "a")])
    >>> [sorted(w) for w in ready_waves(plan)]
    [['A', 'B'], ['C']]
    """
    plan = expect_plan(plan, "ready_waves")
    with paused_gc():
        ix = require_dag(plan)
        levels = ix.int_levels()  # a step's generation is its longest-path depth
        waves: list[list[str]] = [[] for _ in range(max(levels, default=-1) + 1)]
        for v, k in zip(ix.ints()[0], levels):
            waves[k].append(v)
        return tuple(map(frozenset, waves))


def ready_timeline(plan: Plan, workers: int | None = None) -> tuple[TimelinePoint, ...]:
    """An event-driven schedule with durations, an optional worker limit and exclusive resources.

    One point per event time (0 and each time a step finishes), up to the
    finish. At each time, steps that finish release their successors and
    resources; then the ready steps start, lowest id first, while a worker is
    free, skipping a step while a running step holds any of its exclusive
    resources (a resource two or more steps hold: :meth:`StructureIndex.holders
    <planviz.structure.index.StructureIndex.holders>`), the rule
    :func:`planviz.simulate` runs by. :func:`critical_path` stays the
    resource-free lower bound. O((V + E) log V) time and linear memory for any
    durations and workers; a step waiting for a resource is examined again
    only when a holder releases it (steps holding several contended resources
    can be examined once per release of each).

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    workers : int, optional
        At most this many steps at once; None: no limit.

    Returns
    -------
    tuple of TimelinePoint
        ``(time, ready, running, done)`` per event time, from 0 to the finish.

    Raises
    ------
    StructureError
        When the plan has a cycle or an unknown dependency; :func:`validate` names it.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", duration=2), Step("B", "b", duration=3),
    ...                   Step("C", "c", depends_on=["A", "B"])])
    >>> [(p.time, sorted(p.ready), sorted(p.running)) for p in ready_timeline(plan)]
    [(0.0, ['A', 'B'], ['A', 'B']), (2.0, [], ['B']), (3.0, ['C'], ['C']), (4.0, [], [])]
    >>> ready_timeline(plan, workers=1)[-1].time
    6.0
    >>> shared = Plan("g", [Step("A", "a", duration=2, resources="db"), Step("B", "b", duration=3, resources="db")])
    >>> [(p.time, sorted(p.started)) for p in ready_timeline(shared)]
    [(0.0, ['A']), (2.0, ['B']), (5.0, [])]
    """
    plan = expect_plan(plan, "ready_timeline")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise AnalysisError(
            f"workers must be a positive integer or None (unlimited), got {show_value(workers)}"
        )
    with paused_gc():
        return _Schedule(plan, workers).run()


class _Schedule:
    """One timeline being played: steps as integers, heaps ordered by id, resources as integers."""

    def __init__(self, plan: Plan, workers: int | None) -> None:
        ix = require_dag(plan)  # a cycle would leave steps never ready: refused up front
        self.ids, self.kids, _, npred = ix.ints()
        steps = ix.steps
        self.duration = [steps[sid].duration for sid in self.ids]
        self.rank = [0] * len(self.ids)  # position in id order: the heaps' key
        for r, u in enumerate(sorted(range(len(self.ids)), key=lambda i: natural_key(self.ids[i]))):
            self.rank[u] = r
        at = dict(zip(self.ids, range(len(self.ids))))
        holders = ix.holders()
        self.needs: list[list[int]] = [[] for _ in self.ids]  # contended resources of each step
        for k, (_, held_by) in enumerate(sorted(holders.items())):
            for sid in held_by:
                self.needs[at[sid]].append(k)
        self.holder: list[int | None] = [None] * len(holders)
        # per resource: steps waiting for it
        self.parked: list[list[tuple[int, int]]] = [[] for _ in holders]
        self.pulled: dict[int, int] = {}  # a step taken out of a resource's queue -> that resource
        self.missing = list(npred)
        # ready, not started, not parked
        self.candidates = [(self.rank[u], u) for u, k in enumerate(npred) if not k]
        heapq.heapify(self.candidates)
        self.workers = workers

    def _park(self, u: int, resource: int) -> None:
        heapq.heappush(self.parked[resource], (self.rank[u], u))
        came_from = self.pulled.pop(u, None)
        if came_from is not None and self.holder[came_from] is None:
            # it was its queue's first: the next one may take that resource now
            self._pull(came_from)

    def _pull(self, resource: int) -> None:
        """A free resource's first waiting step goes back to the candidates (the others wait behind it)."""
        if self.parked[resource]:
            item = heapq.heappop(self.parked[resource])
            self.pulled[item[1]] = resource
            heapq.heappush(self.candidates, item)

    def run(self) -> tuple[TimelinePoint, ...]:
        ids, kids, duration, needs, holder = (
            self.ids,
            self.kids,
            self.duration,
            self.needs,
            self.holder,
        )
        candidates, missing, workers = self.candidates, self.missing, self.workers
        line: list[TimelinePoint] = []
        running: list[tuple[float, int, int]] = []
        t = 0.0
        released = [u for _, u in candidates]
        while True:
            finished, started = [], []
            while True:
                while running and running[0][0] <= t:
                    _, _, u = heapq.heappop(running)
                    finished.append(u)
                    for r in needs[u]:
                        holder[r] = None
                        self._pull(r)
                    for v in kids[u]:
                        missing[v] -= 1
                        if not missing[v]:
                            heapq.heappush(candidates, (self.rank[v], v))
                            released.append(v)
                while candidates and (workers is None or len(running) < workers):
                    _, u = heapq.heappop(candidates)
                    busy = next((r for r in needs[u] if holder[r] is not None), None)
                    if busy is not None:
                        self._park(u, busy)
                        continue
                    self.pulled.pop(u, None)
                    for r in needs[u]:
                        holder[r] = u
                    heapq.heappush(running, (t + duration[u], self.rank[u], u))
                    started.append(u)
                if not running or running[0][0] > t:
                    break
            line.append(
                TimelinePoint(
                    t,
                    frozenset(map(ids.__getitem__, finished)),
                    frozenset(map(ids.__getitem__, released)),
                    frozenset(map(ids.__getitem__, started)),
                    len(line),
                    line,
                )
            )
            released = []
            if not running:
                return tuple(line)
            t = running[0][0]
