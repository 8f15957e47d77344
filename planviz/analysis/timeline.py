"""What can run at once: topological waves, and an event-driven schedule with durations and workers.

>>> from planviz import examples
>>> [sorted(w) for w in ready_waves(examples.load("cache_isolation"))]
[['S0'], ['S1', 'S2'], ['S3'], ['S4']]
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..errors import AnalysisError
from ..plan.model import Plan
from ..structure.dag import require_dag
from ..structure.index import paused_gc

__all__ = ["ready_waves", "ready_timeline", "TimelinePoint"]


@dataclass(frozen=True)
class TimelinePoint:
    """One event time of :func:`ready_timeline`: ready before anything starts, running just after."""

    time: float
    ready: frozenset[str]
    running: frozenset[str]
    done: frozenset[str]


def ready_waves(plan: Plan) -> tuple[frozenset[str], ...]:
    """Topological generations: the steps that could all run at once, wave after wave.

    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("C", "c", depends_on=["A", "B"]), Step("B", "b"), Step("A", "a")])
    >>> [sorted(w) for w in ready_waves(plan)]
    [['A', 'B'], ['C']]
    """
    with paused_gc():
        ix = require_dag(plan)
        levels = ix.int_levels()  # a step's generation is its longest-path depth
        waves: list[list[str]] = [[] for _ in range(max(levels, default=-1) + 1)]
        for v, k in zip(ix.ints()[0], levels):
            waves[k].append(v)
        return tuple(map(frozenset, waves))


def ready_timeline(plan: Plan, workers: int | None = None) -> tuple[TimelinePoint, ...]:
    """An event-driven schedule with durations and an optional worker limit.

    One point per event time (0 and each time a step finishes), up to the
    finish, whose point has every step done. ``ready`` is every step ready at
    that time before anything starts (including steps a zero-duration step
    releases at the same instant); ``running`` what runs just after. With
    more ready steps than free workers the lower id starts first.

    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", duration=2), Step("B", "b", duration=3),
    ...                   Step("C", "c", depends_on=["A", "B"])])
    >>> [(p.time, sorted(p.ready), sorted(p.running)) for p in ready_timeline(plan)]
    [(0.0, ['A', 'B'], ['A', 'B']), (2.0, [], ['B']), (3.0, ['C'], ['C']), (4.0, [], [])]
    >>> ready_timeline(plan, workers=1)[-1].time
    6.0
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise AnalysisError(f"workers must be a positive integer or None (unlimited), got {workers!r}")
    ix = require_dag(plan)  # a cycle would leave steps never ready: refused up front
    succ = ix.children()
    dur = {sid: s.duration for sid, s in ix.steps.items()}
    missing = {sid: len(ps) for sid, ps in ix.parents.items()}
    waiting = sorted(v for v, k in missing.items() if not k)  # a sorted list is a heap
    running: list[tuple[float, str]] = []
    running_set: set[str] = set()
    done: set[str] = set()
    points = []
    t = 0.0
    while True:
        ready_now = set(waiting)
        while True:
            while running and running[0][0] <= t:
                _, u = heapq.heappop(running)
                running_set.discard(u)
                done.add(u)
                for v in succ[u]:
                    missing[v] -= 1
                    if not missing[v]:
                        heapq.heappush(waiting, v)
                        ready_now.add(v)
            while waiting and (workers is None or len(running_set) < workers):
                u = heapq.heappop(waiting)
                heapq.heappush(running, (t + dur[u], u))
                running_set.add(u)
            if not running or running[0][0] > t:
                break
        points.append(TimelinePoint(t, frozenset(ready_now), frozenset(running_set), frozenset(done)))
        if not running:
            return tuple(points)
        t = running[0][0]
