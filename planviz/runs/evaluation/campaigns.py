"""Evaluation with a spread: strategies (or the planner without one mechanism at a time) over a set of plans,
each plan run on many sampled fault lists; goal success rates with Wilson intervals, the other outcome
classes counted, the metrics' means with Student-t intervals.

>>> from planviz import examples, FaultModel
>>> result = campaign([examples.load("cache_isolation")], faults=FaultModel({"side_effect": 0.2}, seed=1),
...                   samples=40)
>>> [(r.strategy, r.runs) for r in result.rows]
[('direct', 40), ('workflow', 40), ('planner', 40)]
>>> result.row("direct").success_rate > result.row("workflow").success_rate  # it redoes the spoiled patch
True
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

from planviz.errors import PlanvizTypeError, SimulationError, expect_names, expect_type, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.runs.engine.strategies import STRATEGIES
from planviz.runs.evaluation.campaigntable import Campaign, CampaignRow
from planviz.runs.evaluation.dispatch import (
    COUNTS,
    FIGURES,
    ExecutorLike,
    Result,
    chunks,
    execute,
    units,
)
from planviz.runs.evaluation.faultmodel import FaultModel, plan_key
from planviz.runs.evaluation.mechanisms import ABLATION, LADDER, Variant, variant
from planviz.runs.measures.intervals import Estimate, merge, wilson

__all__ = ["campaign", "ablation"]

Progress = Callable[[str, int, int], None]


def campaign(
    plans: Iterable[Plan],
    faults: FaultModel | None = None,
    strategies: Iterable[str] = STRATEGIES,
    samples: int = 100,
    executor: ExecutorLike | None = None,
    per_plan: bool = False,
    progress: Progress | None = None,
) -> Campaign:
    """Run every plan on ``samples`` fault lists drawn from ``faults`` under each strategy, and sum it up.

    Sample ``j`` of a plan is the same fault list for every strategy (a paired
    comparison), drawn by :meth:`FaultModel.sample`. Each run is simulated on
    the plan's own contract; only its figures are kept (:func:`planviz.metrics`).

    Parameters
    ----------
    plans : iterable of Plan
        The task set.
    faults : FaultModel, optional
        What goes wrong (default: nothing, ``FaultModel({})``).
    strategies : iterable of str
        Rows, among ``direct``, ``workflow``, ``planner``.
    samples : int
        Fault lists per plan.
    executor : None, concurrent.futures.Executor or dask.distributed.Client
        Where the simulations run (None: this process). The same seed gives the same result on any of them.
    per_plan : bool
        Also one row per (plan, strategy), after the overall rows.
    progress : callable, optional
        ``progress(what, done, total)`` after each chunk of work.

    Returns
    -------
    Campaign
        ``rows`` per strategy (``plan`` None), then per plan on request.

    Raises
    ------
    PlanvizTypeError
        For a non-Plan in ``plans`` or arguments of the wrong type.
    SimulationError
        For an unknown strategy, no plans, or ``samples`` < 1.

    Examples
    --------
    >>> from planviz import examples, FaultModel
    >>> c = campaign([examples.load("cache_isolation")], FaultModel({"transient": 0.1}, seed=3), samples=20,
    ...              strategies=["direct", "planner"])
    >>> row = c.row("planner")
    >>> row.success_interval[0] <= row.success_rate <= row.success_interval[1]
    True
    """
    rows = tuple(
        variant(s) for s in dict.fromkeys(expect_names(strategies, "campaign", "strategies"))
    )
    return _evaluate("campaign", plans, faults, rows, samples, executor, per_plan, progress)


def ablation(
    plans: Iterable[Plan],
    faults: FaultModel | None = None,
    samples: int = 100,
    executor: ExecutorLike | None = None,
    per_plan: bool = False,
    progress: Progress | None = None,
    ladder: bool = True,
) -> Campaign:
    """Seed 000's ablation: the full planner, then the planner without each one of its mechanisms, over the
    same plans and faults (each row differs from ``planner`` in one switch); then the cumulative ladder.

    Rows (:data:`planviz.runs.evaluation.mechanisms.ABLATION`): ``planner``, ``-validation_gate``, ``-premises_stop``,
    ``-scoped_recovery``, ``-replanning``, ``-replan_cap``, ``replan_cap=0``, ``replan_cap=1``,
    ``replan_cap=3``, ``-far_expansion``, ``-evidence_check``; with ``ladder``
    (:data:`planviz.runs.evaluation.mechanisms.LADDER`): ``direct``, ``+explicit_plan`` ... ``+replan_cap`` (the full
    planner). The planning model call is charged to the explicit plan. Arguments and result as
    :func:`campaign`.

    Parameters
    ----------
    plans : iterable of Plan
        The task set.
    faults : FaultModel, optional
        What goes wrong.
    samples : int
        Fault lists per plan.
    executor : None, concurrent.futures.Executor or dask.distributed.Client
        Where the simulations run.
    per_plan : bool
        Also one row per (plan, row).
    progress : callable, optional
        ``progress(what, done, total)`` after each chunk of work.
    ladder : bool
        Also the cumulative rows, from ``direct`` to the full planner.

    Returns
    -------
    Campaign
        One row per configuration (``kind`` ``"ablation"``).

    Raises
    ------
    PlanvizTypeError
        For arguments of the wrong type.
    SimulationError
        For no plans or ``samples`` < 1.

    Examples
    --------
    >>> from planviz import examples, FaultModel
    >>> a = ablation([examples.load("cache_isolation")], FaultModel({"side_effect": 0.2}, seed=1), samples=10,
    ...              ladder=False)
    >>> [r.strategy for r in a.rows][:3]
    ['planner', '-validation_gate', '-premises_stop']
    """
    expect_type(ladder, bool, "ablation", "ladder", "True or False")
    return _evaluate(
        "ablation",
        plans,
        faults,
        ABLATION + (LADDER if ladder else ()),
        samples,
        executor,
        per_plan,
        progress,
    )


def _evaluate(
    kind: str,
    plans: Iterable[Plan],
    faults: FaultModel | None,
    rows: tuple[Variant, ...],
    samples: int,
    executor: ExecutorLike | None,
    per_plan: bool,
    progress: Progress | None,
) -> Campaign:
    name = kind
    if isinstance(plans, Plan):
        raise PlanvizTypeError(
            f"{name}(plans=...) expects a list of plans, got one Plan; write {name}([plan], ...)"
        )
    if isinstance(plans, (str, bytes, os.PathLike)):
        raise PlanvizTypeError(
            f"{name}(plans=...) expects a list of plans, got {type(plans).__name__} "
            f"{show_value(plans)}; load them first with planviz.load_plans(path)"
        )
    expect_type(plans, Iterable, name, "plans", "a list of plans")
    if progress is not None and not callable(progress):
        raise PlanvizTypeError(
            f"{name}(progress=...) expects None or a callable (what, done, total), got "
            f"{type(progress).__name__} {show_value(progress)}"
        )
    plans = tuple(plans)
    for plan in plans:
        expect_plan(plan, name, "plans")
    if not plans:
        raise SimulationError(
            f"{name}: no plans to run; pass a list of plans (planviz.load_plans(path))"
        )
    model = (
        FaultModel({})
        if faults is None
        else expect_type(
            faults,
            FaultModel,
            name,
            "faults",
            "a planviz FaultModel",
            "e.g. FaultModel({'transient': 0.1}, seed=0)",
        )
    )
    expect_type(samples, int, name, "samples", "an integer")
    if samples < 1:
        raise SimulationError(f"{name}: samples must be >= 1, got {show_value(samples)}")
    if not rows:
        raise SimulationError(f"{name}: no strategies; choose among {', '.join(STRATEGIES)}")
    keys = [plan_key(p) for p in plans]
    tasks = chunks(units(plans, keys, samples), len(rows), model, rows)
    total = len(plans) * samples * len(rows)
    results: Result = []
    finished = [0]

    def done(result: Result) -> None:
        results.extend(result)
        finished[0] += int(sum(sum(part[0] for part in u[2]) for u in result))
        if progress is not None:
            progress(f"{kind}: simulations", finished[0], total)

    execute(tasks, executor, done, name)
    results.sort(key=lambda u: (u[0], u[1]))  # (plan, block): one order, whatever the executor did
    width = COUNTS + 3 * len(FIGURES)
    overall: list[list[float]] = [[0] * width for _ in rows]
    per: dict[int, list[list[float]]] = {}
    for index, _, partials in results:
        mine = per.setdefault(index, [[0] * width for _ in rows]) if per_plan else None
        for r, part in enumerate(partials):
            _add(overall[r], part)
            if mine is not None:
                _add(mine[r], part)
    out = [_row(row.name, None, "", acc) for row, acc in zip(rows, overall)]
    for index in sorted(per):
        out += [_row(row.name, index, plans[index].name, acc) for row, acc in zip(rows, per[index])]
    return Campaign(tuple(out), kind, samples, len(plans), model)


def _add(acc: list[float], part: tuple[float, ...]) -> None:
    for k in range(COUNTS):
        acc[k] += part[k]
    # Chan's merge of (count, mean, M2): no sum of squares to cancel
    for k in range(COUNTS, len(part), 3):
        acc[k : k + 3] = merge(
            (int(acc[k]), acc[k + 1], acc[k + 2]), (int(part[k]), part[k + 1], part[k + 2])
        )


def _row(name: str, plan: int | None, plan_name: str, acc: list[float]) -> CampaignRow:
    runs, successes, stops, silent = (int(v) for v in acc[:COUNTS])
    k = COUNTS
    estimates = {
        f: Estimate.from_moments(
            int(acc[k + 3 * j]), float(acc[k + 1 + 3 * j]), float(acc[k + 2 + 3 * j])
        )
        for j, f in enumerate(FIGURES)
    }
    return CampaignRow(
        name,
        plan,
        plan_name,
        runs,
        successes,
        successes / runs if runs else 0.0,
        wilson(successes, runs),
        stops,
        silent,
        **estimates,
    )
