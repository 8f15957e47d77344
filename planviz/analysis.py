"""What a plan promises, and what a failure costs.

A plan promises an earliest finish (its critical path), work that can run in
parallel (its ready sets) and slack where a step may slip. A failure costs the
part of the graph it voids; everything outside that part is verified work
that is kept. All functions take a :class:`~planviz.model.Plan`, ignore the
order of its steps in the file, and return frozen values.

The worked example of the spec (durations in minutes):

>>> from planviz.model import Plan, Step
>>> plan = Plan("fix the cache", [
...     Step("S0", "reproduce", duration=5, produces="leak_reproduced", kind="reproduce"),
...     Step("S1", "locate", duration=8, depends_on="S0", produces="key_builder_located"),
...     Step("S2", "contract", duration=3, depends_on="S0"),
...     Step("S3", "patch", duration=6, depends_on=["S1", "S2"], requires="key_builder_located",
...          kind="patch"),
...     Step("S4", "verify", duration=10, depends_on="S3", kind="verify")])
>>> schedule = critical_path(plan)
>>> schedule.makespan, schedule.serial_time, schedule.path, schedule.steps["S2"].slack
(29.0, 32.0, ('S0', 'S1', 'S3', 'S4'), 5.0)
>>> [sorted(wave) for wave in ready_waves(plan)]
[['S0'], ['S1', 'S2'], ['S3'], ['S4']]
>>> scope = failure_scope(plan, "S4", "side_effect")
>>> scope.action, scope.restart, sorted(scope.voided), sorted(scope.kept)
('invalidate_subgraph', 'S3', ['S3', 'S4'], ['S0', 'S1', 'S2'])
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Iterable, Iterator, Mapping

from ._dagindex import (
    AnalysisError,
    StructureError,
    build_index,
    dag_index,
    paused_gc,
    reach_pass,
    sorted_dag,
    state_of,
    unique_steps,
)
from ._index import plan_index
from ._scopes import ACTIONS, CATEGORIES, BlockReason, Scope, failure_scope, why_blocked
from .errors import UnknownStepError
from .model import Plan, as_duration

__all__ = [
    "critical_path",
    "ready_waves",
    "ready_timeline",
    "reachable",
    "invalidated",
    "why_blocked",
    "failure_scope",
    "Schedule",
    "StepTiming",
    "TimelinePoint",
    "Reach",
    "BlockReason",
    "Scope",
    "AnalysisError",
    "StructureError",
    "CATEGORIES",
    "ACTIONS",
]

_EPS = 1e-9


class _FrozenMap(Mapping):
    """A read-only mapping (picklable, unlike ``types.MappingProxyType``)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self):
        return (_FrozenMap, (self._data,))


@dataclass(frozen=True, slots=True)
class StepTiming:
    """Earliest/latest start and finish of one step, and its slack (``ls - es``, 0 on the critical path)."""

    es: float
    ef: float
    ls: float
    lf: float
    slack: float


@dataclass(frozen=True)
class Schedule:
    """The result of :func:`critical_path`.

    ``steps`` maps each id to its :class:`StepTiming` (read-only, in id order);
    ``path`` is one critical path, ties broken by id; ``critical`` holds every
    step with zero slack.
    """

    steps: Mapping[str, StepTiming] = field(hash=False)
    makespan: float
    serial_time: float
    path: tuple[str, ...]
    critical: frozenset[str]


@dataclass(frozen=True)
class TimelinePoint:
    """One event time of :func:`ready_timeline`: ready before anything starts, running just after."""

    time: float
    ready: frozenset[str]
    running: frozenset[str]
    done: frozenset[str]


@dataclass(frozen=True)
class Reach:
    """The result of :func:`reachable`; unpacks as ``facts, steps``."""

    facts: frozenset[str]
    steps: frozenset[str]

    def __iter__(self) -> Iterator[frozenset[str]]:
        return iter((self.facts, self.steps))


_duration = attrgetter("duration")
_TIMING_SLOTS = tuple(StepTiming.__dict__[k].__set__ for k in ("es", "ef", "ls", "lf", "slack"))


# --------------------------------------------------------------------------- schedule

def critical_path(plan: Plan, durations: Mapping[str, float] | None = None) -> Schedule:
    """Forward and backward pass over a topological order: timings, makespan, critical path.

    ``durations`` (id -> duration) overrides ``step.duration`` for some steps.
    ``steps`` of the result is in id order. Slack within 1e-9 (relative to the
    makespan) of zero counts as zero, so float durations do not hide critical
    steps. Raises :class:`StructureError` when the plan has a cycle or an
    unknown dependency (run :func:`planviz.validate` to see it).

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("B", "b", depends_on="A", duration=2), Step("A", "a", duration=3),
    ...                   Step("C", "c", duration=1)])
    >>> s = critical_path(plan)
    >>> s.makespan, s.path, sorted(s.critical), s.steps["C"]
    (5.0, ('A', 'B'), ['A', 'B'], StepTiming(es=0.0, ef=1.0, ls=4.0, lf=5.0, slack=4.0))
    >>> critical_path(plan, durations={"C": 9}).path
    ('C',)
    """
    with paused_gc():
        dur_of = None
        if durations:  # checked after unknown dependencies and before cycles, as they are found
            ix = plan_index(plan)
            if not ix.clean:
                build_index(plan)
            dur_of = {sid: s.duration for sid, s in ix.steps.items()}
            _override(dur_of, durations)
        steps, ids, out, order, npred = sorted_dag(plan)
        dur = list(map(dur_of.__getitem__, ids)) if dur_of else list(map(_duration, steps))
        n = len(ids)
        es = [0.0] * n
        ef = [0.0] * n
        for u in order:  # forward pass; steps are integers, see sorted_dag
            f = es[u] + dur[u]
            ef[u] = f
            for v in out[u]:
                if f > es[v]:
                    es[v] = f
        makespan = max(ef, default=0.0)
        eps = _EPS * max(1.0, makespan)
        ls = [0.0] * n
        made: list[Any] = [None] * n
        critical_at = []
        new = object.__new__
        set_es, set_ef, set_ls, set_lf, set_slack = _TIMING_SLOTS
        for u in reversed(order):  # backward pass, building each StepTiming without the frozen __setattr__
            finish = makespan
            for v in out[u]:
                late = ls[v]
                if late < finish:
                    finish = late
            start = es[u]
            late = ls[u] = finish - dur[u]
            slack = late - start
            if -eps < slack < eps:
                slack = 0.0
                critical_at.append(u)
            t = made[u] = new(StepTiming)
            set_es(t, start)
            set_ef(t, ef[u])
            set_ls(t, late)
            set_lf(t, finish)
            set_slack(t, slack)
        by_id = sorted(range(n), key=ids.__getitem__)
        timings = dict(zip(map(ids.__getitem__, by_id), map(made.__getitem__, by_id)))
        critical = frozenset(map(ids.__getitem__, critical_at))
        crit = set(critical_at)
        path: list[str] = []
        starts = [u for u in critical_at if not npred[u]]
        if starts:
            u = min(starts, key=ids.__getitem__)
            while True:
                path.append(ids[u])
                finish = ef[u]
                tight = [v for v in out[u] if v in crit and abs(es[v] - finish) < eps]
                if not tight:
                    break
                u = min(tight, key=ids.__getitem__)
        return Schedule(_FrozenMap(timings), makespan, math.fsum(dur), tuple(path), critical)


def ready_waves(plan: Plan) -> tuple[frozenset[str], ...]:
    """Topological generations: the steps that could all run at once, wave after wave.

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("C", "c", depends_on=["A", "B"]), Step("B", "b"), Step("A", "a")])
    >>> [sorted(w) for w in ready_waves(plan)]
    [['A', 'B'], ['C']]
    """
    with paused_gc():
        ix = plan_index(plan)
        if not ix.clean:
            return tuple(frozenset(wave) for wave in build_index(plan).generations())
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

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", duration=2), Step("B", "b", duration=3),
    ...                   Step("C", "c", depends_on=["A", "B"])])
    >>> [(p.time, sorted(p.ready), sorted(p.running)) for p in ready_timeline(plan)]
    [(0.0, ['A', 'B'], ['A', 'B']), (2.0, [], ['B']), (3.0, ['C'], ['C']), (4.0, [], [])]
    >>> ready_timeline(plan, workers=1)[-1].time
    6.0
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise AnalysisError(f"workers must be a positive integer or None (unlimited), got {workers!r}")
    index = dag_index(plan)  # a cycle would leave steps never ready: refused up front
    succ = index.succ
    dur = {s.id: s.duration for s in index.steps}
    missing = dict(index.indeg)
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


# --------------------------------------------------------------------------- reachability

def reachable(plan: Plan, completed: Iterable[str], facts: Iterable[str]) -> Reach:
    """Which remaining steps could still become ready if every future step succeeded.

    A step is reachable when each dependency is completed or reachable and
    each required fact is held or produced by a reachable step: the least
    fixed point, found in one worklist pass (linear in the plan's size).
    Completed steps are not re-run, so a fact they produced that is no
    longer held stays lost; steps on a dependency cycle are never reachable.
    Returns ``Reach(facts, steps)``: the facts that could hold and the
    reachable remaining steps. Ids in ``completed`` that the plan does not
    have are ignored (a state may outlive a plan version).

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x"),
    ...                   Step("C", "c", requires="y")])
    >>> facts, steps = reachable(plan, completed={"A"}, facts=set())
    >>> sorted(steps), sorted(facts)
    ([], [])
    >>> sorted(reachable(plan, completed=(), facts={"y"}).steps)
    ['A', 'B', 'C']
    """
    with paused_gc():
        steps, succ = unique_steps(plan)
        held, found, _ = reach_pass(steps, succ, completed, facts)
        return Reach(frozenset(held), frozenset(found))


def invalidated(plan: Plan, state: Any) -> frozenset[str]:
    """Remaining steps that are no longer reachable from ``state`` (see :func:`reachable`).

    ``state`` is anything with ``.completed`` and ``.facts`` (an
    ``ExecutionState``) or a ``(completed, facts)`` pair.

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x")])
    >>> sorted(invalidated(plan, ({"A"}, set())))
    ['B']
    """
    completed, facts = state_of(state)
    with paused_gc():
        steps, succ = unique_steps(plan)
        _, found, done = reach_pass(steps, succ, completed, facts)
        ok = done.union(found)
        return frozenset([v for v in succ if v not in ok])


# --------------------------------------------------------------------------- helpers

def _override(dur: dict[str, float], durations: Mapping[str, float]) -> None:
    for sid, d in durations.items():
        if sid not in dur:
            shown = ", ".join(map(repr, sorted(dur)[:20]))
            raise UnknownStepError(f"durations names {sid!r}, which is not a step of this plan; "
                                   f"its steps are {shown}")
        number = as_duration(d)
        if number is None:
            raise AnalysisError(f"durations[{sid!r}] must be a finite number >= 0, got {d!r}")
        dur[sid] = number
