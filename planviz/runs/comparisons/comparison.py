"""Strategies side by side (``compare_strategies``): the same plan and faults under direct, workflow and planner
execution.

>>> from planviz import examples, Fault
>>> table = compare_strategies(examples.load("cache_isolation"), [Fault("S4", "side_effect")])
>>> [(r.strategy, r.outcome) for r in table.rows]
[('direct', 'plan_complete'), ('workflow', 'step_failed'), ('planner', 'plan_complete')]
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Any, Iterable

from planviz.errors import expect_names
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.model import Contract, Plan
from planviz.runs.engine.simulation import STRATEGIES, simulate
from planviz.runs.fault import Fault, expect_faults
from planviz.runs.measures.runmetrics import METRIC_DOCS, Metrics, attribution, metrics

__all__ = ["compare_strategies", "StrategyComparison", "StrategyRow"]


@dataclass(frozen=True)
class StrategyRow:
    """One strategy's run on the shared faults: its outcome, metrics and ``attribution``, the party blamed
    (``planviz.attribution(run).party``; None: nothing to blame)."""

    strategy: str
    outcome: str | None
    metrics: Metrics
    attribution: str | None


@dataclass(frozen=True)
class StrategyComparison:
    """Strategies run on the same plan and faults, side by side; renders as a table in a notebook."""

    rows: tuple[StrategyRow, ...]
    faults: tuple[Fault, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "faults": [str(f) for f in self.faults],
            "rows": [
                {
                    "strategy": r.strategy,
                    "outcome": r.outcome,
                    "attribution": r.attribution,
                    **r.metrics.to_dict(),
                }
                for r in self.rows
            ],
        }

    def _table(self) -> tuple[list[str], list[list[str]]]:
        head = ["strategy", "outcome"] + [f.name for f in fields(Metrics)] + ["attribution"]
        body = [
            [r.strategy, r.outcome or "-"]
            + [v for _, v in r.metrics.cells()]
            + [r.attribution or "-"]
            for r in self.rows
        ]
        return head, body

    def to_text(self) -> str:
        head, body = self._table()
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *body]
        ]
        title = f"faults: {', '.join(map(str, self.faults)) or '(none)'}"
        return "\n".join([title, *lines])

    def _repr_html_(self) -> str:
        head, body = self._table()
        # long names and values may wrap at '_', so the whole table fits a notebook's width
        th = "".join(
            f"<th title='{html.escape(METRIC_DOCS.get(h, h), quote=True)}'>{html.escape(h).replace('_', '_<wbr>')}"
            "</th>"
            for h in head
        )
        trs = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(c).replace('_', '_<wbr>')}</td>" for c in row)
            + "</tr>"
            for row in body
        )
        caption = html.escape(f"faults: {', '.join(map(str, self.faults)) or '(none)'}")
        return (
            f"<table class='planviz-comparison' style='font-size:90%'><caption>{caption}</caption>"
            f"<tr>{th}</tr>{trs}</table>"
        )


def compare_strategies(
    plan: Plan,
    faults: Iterable[Fault] = (),
    strategies: Iterable[str] = STRATEGIES,
    contract: Contract | None = None,
    workers: int | None = None,
) -> StrategyComparison:
    """Simulate ``plan`` under each strategy with the same ``faults`` and tabulate the metrics.

    ``model_calls`` shows what each strategy pays a model: the planner one call per proposal, replan and
    expansion, the direct agent one per step, a workflow none; so for a short linear task the planner's
    own call is visible as overhead.

    Parameters
    ----------
    plan : Plan
        The plan each strategy runs.
    faults : iterable of Fault
        The same faults for every strategy.
    strategies : iterable of str
        Among ``direct``, ``workflow``, ``planner``.
    contract : Contract, optional
        None uses ``plan.contract``.
    workers : int, optional
        At most this many steps at once.

    Returns
    -------
    StrategyComparison
        One row per strategy: outcome, the metrics and the attribution; prints and renders as a table.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).
    SimulationError
        When a fault names a step or fact the plan does not have (with the valid choices).

    Examples
    --------
    >>> from planviz import Step
    >>> tiny = Plan("know tomorrow's weather", [Step("W", "look up the forecast", expected_evidence="a forecast",
    ...                                               produces="forecast")])
    >>> [(r.strategy, r.metrics.model_calls) for r in compare_strategies(tiny).rows]
    [('direct', 1), ('workflow', 0), ('planner', 1)]
    """
    plan = expect_plan(plan, "compare_strategies")
    contract = expect_contract(contract, "compare_strategies")
    faults = expect_faults(faults, "compare_strategies")
    rows = []
    for strategy in expect_names(strategies, "compare_strategies", "strategies"):
        run = simulate(plan, contract, faults=faults, workers=workers, strategy=strategy)
        rows.append(
            StrategyRow(strategy, run.outcome, metrics(run), attribution(run, contract).party)
        )
    return StrategyComparison(tuple(rows), faults)
