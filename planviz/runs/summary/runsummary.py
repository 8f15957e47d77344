"""One run summary: the analyses a view of a run needs, each computed once per run.

A report, the explorer, the two-run report, the flipbook, the command line
and the pictures all show the same run with its critical path (per plan
version), its ready waves, its usage, its metrics, its hindsight and its
alignment with a declared plan. :func:`run_summary` gives the run's one
:class:`RunSummary`; every view reads these figures from it, so each is computed
once however many views, frames and captions show it (a report of a 5-step run
with two plan versions computed ``critical_path`` 8 times and now once per
version). A figure is computed when first asked for and kept; the computations
are deterministic, so a figure is the same whoever asks first. An analysis that
refuses (a plan with a cycle has no critical path) refuses again, with the same
error, each time it is asked.

``run_summary(run)`` gives the same summary for the same run while a view
holds it, and for the last two runs summarised (a caller drawing a run's frames
one by one shares one summary without holding it).

>>> from planviz import Fault, examples, simulate
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> s = run_summary(run)
>>> s is run_summary(run), [c.makespan for c in s.critical_paths]
(True, [29.0, 29.0])
>>> s.usage.tool_calls, s.metrics.replans, s.hindsight.actual_makespan
(7, 1, 45.0)
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar, cast

from planviz.analysis.schedule import Schedule, critical_path
from planviz.analysis.timeline import ready_waves
from planviz.errors import PlanvizError
from planviz.plan.model import Plan
from planviz.runs.comparisons.alignment import Alignment, align
from planviz.runs.comparisons.rundiff import RunDiff, diff_from
from planviz.runs.events import Run, expect_run
from planviz.runs.hindsight.retrospect import Hindsight, hindsight
from planviz.runs.measures.runmetrics import Metrics, metrics_from
from planviz.runs.usage import Usage, run_usage

__all__ = ["RunSummary", "run_summary", "pair_diff"]

T = TypeVar("T")
_KEEP = 2  # summaries kept for the runs summarised last, held or not
_LOCK = threading.RLock()  # reentrant: a summary let go may be forgotten while one is made
_HELD: dict[
    int, weakref.ref[RunSummary]
] = {}  # id(run) -> its summary while anyone holds it (the summary holds the run)
_LAST: list[RunSummary] = []


@dataclass(frozen=True, eq=False)
class RunSummary:
    """The analyses of one run a view shows, each computed the first time it is asked for, then kept.

    ``critical_paths`` (one per plan version, None where a version has none), ``usage``
    (:func:`planviz.run_usage`), ``metrics`` (:func:`planviz.metrics`, sharing this summary's critical
    path and usage), ``hindsight`` (:func:`planviz.hindsight`); per plan: ``schedule(plan)``
    (:func:`planviz.critical_path`), ``waves(plan)`` (:func:`planviz.ready_waves`), ``alignment(plan)``
    (:func:`planviz.align`). Get it with :func:`run_summary`. A copy or a pickle is a new summary of the same
    run, with nothing computed yet.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> s = run_summary(simulate(examples.load("cache_isolation")))
    >>> s.usage.tool_calls, s.hindsight.summary()
    (5, '29 min ran, 29 min possible: nothing waited that did not need to')
    >>> s
    <RunSummary of a run of 12 events, 1 plan version; computed: hindsight, usage>
    """

    run: Run
    _memo: dict[Any, tuple[Any, PlanvizError | None, Any]] = field(
        default_factory=dict, init=False, repr=False
    )
    _lock: Any = field(default_factory=threading.RLock, init=False, repr=False)

    def __post_init__(self) -> None:
        expect_run(self.run, "RunSummary")

    def __repr__(self) -> str:
        with self._lock:
            done = sorted({key if isinstance(key, str) else key[0] for key in self._memo})
        versions = len(self.run.plans)
        return (
            f"<RunSummary of a run of {len(self.run.events)} events, {versions} plan version"
            f"{'s' * (versions != 1)}; computed: {', '.join(done) or 'nothing yet'}>"
        )

    def __reduce__(self) -> tuple[type, tuple[Run]]:
        # the run travels; the figures are computed again where they are read
        return (
            RunSummary,
            (self.run,),
        )

    def _once(self, key: Any, compute: Callable[[], T], keep: Any = None) -> T:
        """``compute()`` the first time ``key`` is asked for, then what it gave (or the error it raised).
        ``keep`` is held with the entry (a plan keyed by its id keeps its id)."""
        with self._lock:  # one computation even when two threads ask at once (a live explorer)
            if key not in self._memo:
                try:
                    self._memo[key] = (compute(), None, keep)
                except PlanvizError as exc:
                    self._memo[key] = (None, exc, keep)
            value, error, _ = self._memo[key]
        if error is not None:
            raise error
        return cast(T, value)

    def schedule(self, plan: Plan) -> Schedule:
        """:func:`planviz.critical_path` of ``plan`` (a version of the run, or the plan a view was given),
        computed once; raises what it raises (a cycle, an unknown dependency)."""
        return self._once(("schedule", id(plan)), lambda: critical_path(plan), plan)

    def schedule_or_why(self, plan: Plan) -> tuple[Schedule | None, str]:
        """``(schedule, "")``, or ``(None, why)`` when ``plan`` has no critical path (what pictures draw)."""
        try:
            return self.schedule(plan), ""
        except (
            PlanvizError
        ) as exc:  # a cycle or an unknown dependency: still draw the plan, say why
            return None, str(exc)

    @property
    def critical_paths(self) -> tuple[Schedule | None, ...]:
        """The critical path of each plan version of the run, in order; None for a version without one."""
        return tuple(self.schedule_or_why(plan)[0] for plan in self.run.plans)

    def waves(self, plan: Plan) -> tuple[frozenset[str], ...]:
        """:func:`planviz.ready_waves` of ``plan``, computed once."""
        return self._once(("waves", id(plan)), lambda: ready_waves(plan), plan)

    @property
    def usage(self) -> Usage:
        """:func:`planviz.run_usage` of the run."""
        return self._once("usage", lambda: run_usage(self.run))

    @property
    def metrics(self) -> Metrics:
        """:func:`planviz.metrics` of the run (with this summary's critical path and usage)."""
        return self._once(
            "metrics", lambda: metrics_from(self.run, self.schedule, lambda _run: self.usage)
        )

    @property
    def hindsight(self) -> Hindsight:
        """:func:`planviz.hindsight` of the run."""
        return self._once("hindsight", lambda: hindsight(self.run))

    def alignment(self, plan: Plan) -> Alignment:
        """:func:`planviz.align` of ``plan`` (the plan the agent declared) with the run, computed once."""
        return self._once(("alignment", id(plan)), lambda: align(plan, self.run), plan)


def run_summary(run: Run) -> RunSummary:
    """The one :class:`RunSummary` of ``run``: the same one while anyone holds it, and for the last two runs.

    Parameters
    ----------
    run : Run
        A simulated or recorded run.

    Returns
    -------
    RunSummary
        Its critical paths, usage, metrics, hindsight; per plan its schedule, waves and alignment.

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a :class:`planviz.Run` (load a trace first with :func:`planviz.load_trace`).

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> s = run_summary(simulate(examples.load("cache_isolation")))
    >>> s.critical_paths[0].path, s.metrics.success
    (('S0', 'S1', 'S3', 'S4'), True)
    """
    run = expect_run(run, "run_summary")
    with _LOCK:
        ref = _HELD.get(id(run))
        found = ref() if ref is not None else None
        if found is None or found.run is not run:
            found = RunSummary(run)
            _HELD[id(run)] = weakref.ref(found, functools.partial(_forget, id(run)))
        _LAST[:] = [s for s in _LAST if s is not found][-(_KEEP - 1) :] + [found]
    return found


def _forget(key: int, ref: weakref.ref[RunSummary]) -> None:
    """A summary nobody holds any more: its entry goes (unless a newer summary took the id)."""
    with _LOCK:
        if _HELD.get(key) is ref:
            del _HELD[key]


def pair_diff(a: RunSummary, b: RunSummary) -> RunDiff:
    """:func:`planviz.diff_runs` of the runs of two summaries, each run's usage read from its summary (what the
    two-run report and ``compare_runs`` show beside the runs' own snapshots)."""
    summaries = {id(a.run): a, id(b.run): b}

    def usage(run: Run) -> Usage:
        return summaries[id(run)].usage

    return diff_from(a.run, b.run, usage)
