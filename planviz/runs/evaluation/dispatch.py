"""Where a campaign's simulations run: in this process, on a ``concurrent.futures`` executor, or on Dask.

The work is cut into units (one plan, one block of :data:`BLOCK` samples) and
units into chunks of about :data:`CHUNK_RUNS` simulations. A chunk comes back
as figures only: per unit and row, the run count, the successes and the
count, mean and sum of squared deviations of each metric (:data:`FIGURES`, Welford's update); never runs.
Unit boundaries do not depend on the executor and units are added up in
(plan, block) order, so the same seed gives the same floats in-process, on
processes and on a Dask cluster.

An executor is duck-typed: ``None`` (this process), any
:class:`concurrent.futures.Executor`, an object with ``submit`` and
``gather`` (a ``dask.distributed.Client``: Dask is never imported here), or
one with ``map``.

>>> from planviz import examples
>>> from planviz.runs.evaluation.faultmodel import FaultModel, plan_key
>>> from planviz.runs.evaluation.mechanisms import variant
>>> plan = examples.load("cache_isolation")
>>> unit = Unit(0, plan, plan_key(plan), 0, 4)
>>> [(i, start, rows[0][:2]) for i, start, rows in run_chunk((FaultModel({}), (variant("planner"),), (unit,)))]
[(0, 0, (4, 4))]
"""

from __future__ import annotations

import concurrent.futures
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Protocol, Sequence, Union

from planviz.errors import PlanvizTypeError, show_value
from planviz.plan.model import Plan
from planviz.runs.evaluation.campaigntable import METRIC_NAMES
from planviz.runs.evaluation.faultmodel import FaultModel
from planviz.runs.evaluation.mechanisms import Variant, run_variant
from planviz.runs.measures.intervals import welford
from planviz.runs.measures.runmetrics import metrics

__all__ = [
    "Unit",
    "FIGURES",
    "COUNTS",
    "BLOCK",
    "CHUNK_RUNS",
    "units",
    "chunks",
    "run_chunk",
    "execute",
    "Submits",
    "Maps",
    "ExecutorLike",
]


class Submits(Protocol):
    """A Dask ``distributed.Client``'s shape: ``submit`` (with ``pure=False``) and ``gather``."""

    def submit(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any: ...

    def gather(self, futures: Any) -> Any: ...


class Maps(Protocol):
    """Anything with an ordered ``map`` (``multiprocessing.Pool``, ``concurrent.futures`` executors)."""

    def map(self, func: Callable[..., Any], iterable: Iterable[Any], /) -> Iterable[Any]: ...


ExecutorLike = Union[concurrent.futures.Executor, Submits, Maps]  # noqa: UP007 (a runtime alias)
"""What ``campaign(executor=...)`` takes besides None."""

#: The metrics a campaign row estimates, in the order of a run's figures (the campaign table's columns); each is
#: averaged over every run but ``critical_path_delay`` (completed runs only).
FIGURES = METRIC_NAMES
BLOCK = 50  #: samples per unit
CHUNK_RUNS = 600  #: simulations per chunk (about)

#: Counts before the figures: runs, then one per outcome class but failure (runs minus the others).
COUNTS = 4
# (runs, successes, correct_stops, silent_failures, n_1, mean_1, m2_1, ...)
Partial = tuple[float, ...]
Task = tuple[FaultModel, tuple[Variant, ...], tuple["Unit", ...]]
Result = list[tuple[int, int, tuple[Partial, ...]]]


class Unit(NamedTuple):
    """One plan (its ``position`` in the campaign and its sample key) and the samples ``start``..``stop``."""

    position: int
    plan: Plan
    key: str
    start: int
    stop: int


def units(plans: Sequence[Plan], keys: Sequence[str], samples: int) -> list[Unit]:
    """Every (plan, block of samples) of a campaign, plan by plan."""
    return [
        Unit(i, plan, key, start, min(start + BLOCK, samples))
        for i, (plan, key) in enumerate(zip(plans, keys))
        for start in range(0, samples, BLOCK)
    ]


def chunks(
    work: list[Unit], rows: int, model: FaultModel, variants: tuple[Variant, ...]
) -> list[Task]:
    """The units grouped into chunks of about :data:`CHUNK_RUNS` simulations (steps weigh in: long plans
    take longer), each a task for :func:`run_chunk`."""
    out: list[Task] = []
    current: list[Unit] = []
    size = 0.0
    for unit in work:
        current.append(unit)
        size += (unit.stop - unit.start) * rows * max(1, len(unit.plan.steps)) / 30
        if size >= CHUNK_RUNS:
            out.append((model, variants, tuple(current)))
            current, size = [], 0.0
    if current:
        out.append((model, variants, tuple(current)))
    return out


def run_chunk(task: Task) -> Result:
    """Simulate one chunk: for each unit, each sample's faults under each row; return the units' figures."""
    model, variants, work = task
    out: Result = []
    for unit in work:
        acc: list[list[float]] = [[0] * (COUNTS + 3 * len(FIGURES)) for _ in variants]
        for index in range(unit.start, unit.stop):
            faults = model.draw(unit.plan, unit.key, index)
            for row, a in zip(variants, acc):
                m = metrics(run_variant(unit.plan, faults, row))
                a[0] += 1
                a[1] += m.outcome_class == "goal_success"
                a[2] += m.outcome_class == "correct_stop"
                a[3] += m.outcome_class == "silent_failure"
                for j, name in enumerate(FIGURES):
                    value = getattr(m, name)
                    # Welford's update: count, mean, sum of squared deviations
                    if value is not None:
                        k = COUNTS + 3 * j
                        a[k : k + 3] = welford((int(a[k]), a[k + 1], a[k + 2]), float(value))
        out.append((unit.position, unit.start, tuple(tuple(a) for a in acc)))
    return out


def execute(
    tasks: list[Task],
    executor: ExecutorLike | None,
    done: Callable[[Result], None],
    function: str = "campaign",
) -> None:
    """Run every task through ``executor``, calling ``done(result)`` for each in task order; on any error
    (Ctrl-C included) the tasks not started are cancelled."""
    if executor is None:
        for task in tasks:
            done(run_chunk(task))
        return
    if isinstance(executor, concurrent.futures.Executor) or (
        hasattr(executor, "submit") and hasattr(executor, "gather")
    ):
        dask = type(executor).__module__.split(".")[0] == "distributed"
        futures = [
            executor.submit(run_chunk, task, pure=False)
            if dask
            else executor.submit(run_chunk, task)
            for task in tasks
        ]
        try:
            for future in futures:
                done(future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return
    if hasattr(executor, "map"):
        for result in _mapped(executor, tasks):
            done(result)
        return
    raise PlanvizTypeError(
        f"{function}(executor=...) expects None, a concurrent.futures.Executor or a "
        f"dask.distributed.Client, got {type(executor).__name__} {show_value(executor, 60)}; e.g. "
        "concurrent.futures.ProcessPoolExecutor(2)"
    )


def _mapped(executor: Any, tasks: Iterable[Task]) -> Iterator[Result]:
    return iter(executor.map(run_chunk, tasks))
