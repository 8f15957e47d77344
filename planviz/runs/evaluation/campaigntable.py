"""The result of a campaign or an ablation: rows with success rates, metric means and their 95% intervals.

>>> from planviz import examples, FaultModel, campaign
>>> c = campaign([examples.load("cache_isolation")], FaultModel({"side_effect": 0.2}, seed=1), samples=10,
...              strategies=["planner"])
>>> Campaign.from_dict(c.to_dict()) == c
True
>>> print(c.to_text().splitlines()[0])
campaign: 1 plan x 10 samples; faults side_effect=0.2 (times 1, seed 1)
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Any

from planviz.errors import SimulationError, show_value
from planviz.runs.evaluation.faultmodel import FaultModel
from planviz.runs.measures.intervals import Estimate

__all__ = ["Campaign", "CampaignRow", "METRIC_NAMES", "SUBSET_ONLY"]

#: The metrics of a row (seed 004's cost and failure figures, executability, the work voided), in column order.
METRIC_NAMES = (
    "executability",
    "tool_calls",
    "model_calls",
    "time",
    "recovery_distance",
    "work_voided",
    "replans",
    "precondition_errors",
    "duplicate_steps",
    "critical_path_delay",
)
#: Metrics averaged over some runs only, and which: shown with the label in every table.
SUBSET_ONLY = {"critical_path_delay": "completed runs only"}


@dataclass(frozen=True)
class CampaignRow:
    """One strategy (or ablation row) over every plan, or over one plan (``plan``: its index; ``plan_name``).

    ``success_rate`` is goal successes / runs (:func:`planviz.outcome_class`:
    completed with every premise true and every declared fact produced),
    ``success_interval`` its 95% Wilson interval; ``correct_stops`` (an
    infeasible contract refused, a false premise or a forbidden state found:
    results, not failures), ``silent_failures`` (completed past a false premise
    or missing evidence) and ``failures`` (the rest) count the other runs; each metric is an :class:`~planviz.runs.measures.intervals.Estimate`
    (mean, low, high, n; a 95% Student-t interval, never below 0), averaged
    over every run of the row, the same runs for every strategy; only
    ``critical_path_delay`` is averaged over the completed runs (it is defined
    for them alone), and tables label it so.
    """

    strategy: str
    plan: int | None
    plan_name: str
    runs: int
    successes: int
    success_rate: float
    success_interval: tuple[float, float]
    correct_stops: int
    silent_failures: int
    executability: Estimate
    tool_calls: Estimate
    model_calls: Estimate
    time: Estimate
    recovery_distance: Estimate
    work_voided: Estimate
    replans: Estimate
    precondition_errors: Estimate
    duplicate_steps: Estimate
    critical_path_delay: Estimate

    @property
    def failures(self) -> int:
        """Runs that neither reached the goal, nor stopped correctly, nor failed silently."""
        return self.runs - self.successes - self.correct_stops - self.silent_failures

    @property
    def correct_stop_rate(self) -> float:
        """Correct stops / runs (0.0 with no runs)."""
        return self.correct_stops / self.runs if self.runs else 0.0

    @property
    def silent_failure_rate(self) -> float:
        """Silent failures / runs (0.0 with no runs)."""
        return self.silent_failures / self.runs if self.runs else 0.0

    def to_record(self) -> dict[str, Any]:
        """The row as one flat record: ``tool_calls``, ``tool_calls_low``, ``tool_calls_high``..."""
        out: dict[str, Any] = {
            "strategy": self.strategy,
            "plan": self.plan,
            "plan_name": self.plan_name,
            "runs": self.runs,
            "successes": self.successes,
            "success_rate": self.success_rate,
            "success_low": self.success_interval[0],
            "success_high": self.success_interval[1],
            "correct_stops": self.correct_stops,
            "silent_failures": self.silent_failures,
            "failures": self.failures,
        }
        for name in METRIC_NAMES:
            e: Estimate = getattr(self, name)
            out.update(
                {name: e.mean, f"{name}_low": e.low, f"{name}_high": e.high, f"{name}_n": e.n}
            )
        return out

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CampaignRow:
        """The row a :meth:`to_record` record holds."""
        try:
            metrics = {
                n: Estimate(
                    record[n], record[f"{n}_low"], record[f"{n}_high"], int(record[f"{n}_n"])
                )
                for n in METRIC_NAMES
            }
            return cls(
                str(record["strategy"]),
                record["plan"],
                str(record["plan_name"]),
                int(record["runs"]),
                int(record["successes"]),
                float(record["success_rate"]),
                (float(record["success_low"]), float(record["success_high"])),
                int(record["correct_stops"]),
                int(record["silent_failures"]),
                **metrics,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SimulationError(
                f"not a campaign row record: {show_value(exc)} in {show_value(record, 120)}"
            ) from None


@dataclass(frozen=True)
class Campaign:
    """What :func:`planviz.campaign` and :func:`planviz.ablation` return.

    ``rows`` first per strategy over all plans (``plan`` None), then, with
    ``per_plan=True``, per (plan, strategy). ``kind`` is ``"campaign"`` or
    ``"ablation"``; ``samples`` fault lists per plan, ``plans`` plans, drawn
    from ``faults``. Shows as a table in a notebook; :meth:`to_text`,
    :meth:`to_records`, :meth:`to_frame` (pandas), :meth:`to_dict` (JSON) and
    :func:`planviz.render_campaign` (success against cost) show it elsewhere.
    """

    rows: tuple[CampaignRow, ...]
    kind: str
    samples: int
    plans: int
    faults: FaultModel

    def row(self, strategy: str, plan: int | None = None) -> CampaignRow:
        """The row of ``strategy`` (over all plans, or for plan index ``plan``)."""
        for r in self.rows:
            if r.strategy == strategy and r.plan == plan:
                return r
        names = ", ".join(dict.fromkeys(r.strategy for r in self.rows))
        raise SimulationError(
            f"no row {strategy!r}{'' if plan is None else f' for plan {plan}'} in this "
            f"{self.kind}; its rows are {names}"
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One flat dict per row (see :meth:`CampaignRow.to_record`)."""
        return [r.to_record() for r in self.rows]

    def to_frame(self) -> Any:
        """The records as a ``pandas.DataFrame`` (needs pandas; planviz does not depend on it)."""
        try:
            import pandas as pd
        except ImportError:
            raise SimulationError(
                "to_frame() needs pandas (pip install pandas); to_records() gives the same "
                "rows as plain dicts"
            ) from None
        return pd.DataFrame.from_records(self.to_records())

    def to_dict(self) -> dict[str, Any]:
        """The campaign as JSON-ready data; :meth:`from_dict` reads it back."""
        return {
            "kind": self.kind,
            "samples": self.samples,
            "plans": self.plans,
            "faults": {
                "rates": dict(self.faults.rates),
                "times": _times(self.faults),
                "seed": self.faults.seed,
            },
            "rows": self.to_records(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Campaign:
        """The campaign :meth:`to_dict` (or ``planviz campaign --json``) wrote."""
        try:
            spec = data["faults"]
            times = spec.get("times", 1)
            model = FaultModel(
                spec["rates"], times if isinstance(times, int) else dict(times), int(spec["seed"])
            )
            return cls(
                tuple(CampaignRow.from_record(r) for r in data["rows"]),
                str(data["kind"]),
                int(data["samples"]),
                int(data["plans"]),
                model,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise SimulationError(
                f"not a campaign: {show_value(exc)}; expected what Campaign.to_dict() writes"
            ) from None

    def _table(self) -> tuple[list[str], list[list[str]]]:
        by_plan = any(r.plan is not None for r in self.rows)
        head = (
            ["strategy"]
            + (["plan"] if by_plan else [])
            + ["runs", "goal success", "correct stop", "silent failure", "failure"]
        )
        head += [f"{n} ({SUBSET_ONLY[n]})" if n in SUBSET_ONLY else n for n in METRIC_NAMES]
        body = []
        for r in self.rows:
            lo, hi = r.success_interval
            cells = [r.strategy] + ([_plan(r)] if by_plan else [])
            cells += [
                str(r.runs),
                f"{r.success_rate:.2f} [{lo:.2f}, {hi:.2f}]",
                f"{r.correct_stop_rate:.2f}",
                f"{r.silent_failure_rate:.2f}",
                f"{r.failures / r.runs if r.runs else 0.0:.2f}",
            ]
            cells += [_estimate(getattr(r, n)) for n in METRIC_NAMES]
            body.append(cells)
        return head, body

    def _title(self) -> str:
        rates = ", ".join(f"{k}={p:g}" for k, p in self.faults.rates) or "no faults"
        return (
            f"{self.kind}: {self.plans} plan{'s' if self.plans != 1 else ''} x {self.samples} samples; "
            f"faults {rates} (times {_times(self.faults)}, seed {self.faults.seed})"
        )

    def to_text(self) -> str:
        """A plain-text table: goal success rate [95% interval], the other outcome classes' shares, then each
        metric's mean +- half its interval ([low, high] when the interval is cut at 0)."""
        head, body = self._table()
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *body]
        ]
        return "\n".join([self._title(), *lines])

    def _repr_html_(self) -> str:
        head, body = self._table()
        th = "".join(f"<th>{html.escape(h).replace('_', '_<wbr>')}</th>" for h in head)
        trs = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body
        )
        return (
            f"<table class='planviz-campaign' style='font-size:90%'><caption>{html.escape(self._title())}"
            f"</caption><tr>{th}</tr>{trs}</table>"
        )


def _estimate(e: Estimate) -> str:
    if e.mean is None:
        return "-"
    if e.low is None or e.high is None:
        return f"{e.mean:.2f}"
    if e.high - e.mean > e.mean - e.low + 1e-9:  # cut at 0: not symmetric any more
        return f"{e.mean:.2f} [{e.low:.2f}, {e.high:.2f}]"
    return f"{e.mean:.2f} \u00b1{(e.high - e.low) / 2:.2f}"


def _plan(row: CampaignRow) -> str:
    return (
        "all"
        if row.plan is None
        else f"{row.plan}" + (f" {row.plan_name[:30]}" if row.plan_name else "")
    )


def _times(model: FaultModel) -> Any:
    return dict(model.times) if isinstance(model.times, tuple) else model.times
