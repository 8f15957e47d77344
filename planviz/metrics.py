"""How a run went, in numbers; strategies side by side; who is to blame.

Every figure is computed from the run's frames alone, so it works for a
simulated run and for one recorded from a real agent.

>>> from planviz import examples
>>> from planviz.runtime import Fault, simulate
>>> m = metrics(simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")]))
>>> m.success, m.duplicate_steps, m.replans, m.recovery_distance, m.critical_path_delay
(True, 2, 1, 1, 16.0)
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Any, Iterable

from .analysis import critical_path
from .errors import StructureError
from .model import Contract, Plan
from .runtime import STRATEGIES, Fault, Run, simulate
from .validate import validate

__all__ = ["metrics", "compare", "attribute", "Metrics", "Comparison", "ComparisonRow", "ATTRIBUTIONS"]

ATTRIBUTIONS = ("planner", "executor", "environment", "contract")
_EXECUTOR = frozenset({"evidence", "tool_error", "unmet_precondition"})
_ENVIRONMENT = frozenset({"transient", "precondition", "side_effect", "goal_change", "premise_false"})

_DOC = {
    "success": "the run ended plan_complete",
    "executability": "planned steps (of the first version) completed, directly or through a revision, / planned",
    "precondition_errors": "steps started while not ready (a dependency not done or a required fact not held)",
    "duplicate_steps": "starts of steps not in the plan, plus starts repeating a step or its revisions",
    "replans": "plan revisions",
    "recovery_distance": "completed steps voided by recoveries: verified work execution went back over",
    "critical_path_delay": "finish time minus the first plan's makespan (only for a completed run of a plan with one)",
    "tool_calls": "step attempts started",
    "time": "clock at the last event",
}


@dataclass(frozen=True)
class Metrics:
    """The figures of one run; see ``Metrics.describe()`` for each definition."""

    success: bool
    executability: float
    precondition_errors: int
    duplicate_steps: int
    replans: int
    recovery_distance: int
    critical_path_delay: float | None
    tool_calls: int
    time: float

    @staticmethod
    def describe() -> dict[str, str]:
        """Each field and what it counts."""
        return dict(_DOC)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def _cells(self) -> list[tuple[str, str]]:
        return [(name, f"{value:.2f}" if name == "executability" else _fmt(value))
                for name, value in self.to_dict().items()]

    def to_text(self) -> str:
        cells = self._cells()
        width = max(len(n) for n, _ in cells)
        return "\n".join(f"{n:<{width}}  {v}" for n, v in cells)

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th title='{html.escape(_DOC[n], quote=True)}'>{html.escape(n)}</th>"
                       f"<td>{html.escape(v)}</td></tr>" for n, v in self._cells())
        return f"<table class='planviz-metrics'>{rows}</table>"


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}" if value != int(value) else f"{value:g}"
    return str(value)


def _roots(run: Run) -> dict[str, str]:
    """Step id -> the id of the original step it revises, over every plan version of the run."""
    revises = {s.id: s.revises for p in run.plans for s in p.steps if s.revises}
    out = {}
    for p in run.plans:
        for s in p.steps:
            root, seen = s.id, {s.id}
            while root in revises and revises[root] not in seen:
                root = revises[root]
                seen.add(root)
            out[s.id] = root
    return out


def metrics(run: Run) -> Metrics:
    """The figures of ``run`` (see :data:`Metrics.describe`)."""
    roots = _roots(run)
    planned = set(run.plans[0].ids) if run.plans else set()
    done_roots = {roots.get(s, s) for s in run.state.completed}
    executability = len(done_roots & planned) / len(planned) if planned else 0.0
    precondition_errors = starts = recovery = replans = 0
    started_roots: set[str] = set()
    versions = {p.version: p for p in run.plans}
    for i, e in enumerate(run.events):
        if e.kind == "start" and e.step is not None:
            starts += 1
            if e.step not in e.statuses:  # not a step of its plan version: invalid
                continue
            started_roots.add(roots.get(e.step, e.step))
            if i > 0 and e.plan_version in versions:
                before, step = run.events[i - 1], versions[e.plan_version].step(e.step)
                if (any(before.statuses.get(d) != "done" for d in step.depends_on)
                        or not set(step.requires) <= before.facts):
                    precondition_errors += 1
        elif e.kind == "invalidate" and i > 0:
            before = run.events[i - 1].statuses
            recovery += sum(1 for s in e.voided if before.get(s) == "done")
        elif e.kind == "replan":
            replans += 1
    success = run.outcome == "plan_complete"
    delay = None
    if success and run.plans:
        try:
            delay = run.time - critical_path(run.plans[0]).makespan
        except StructureError:  # a recorded plan with a cycle or a missing step has no makespan
            delay = None
    return Metrics(success, executability, precondition_errors, starts - len(started_roots),  # invalid + repeats
                   replans, recovery, delay, starts, run.time)


@dataclass(frozen=True)
class ComparisonRow:
    """One strategy's run on the shared faults: its outcome, metrics and attribution."""

    strategy: str
    outcome: str | None
    metrics: Metrics
    attribution: str


@dataclass(frozen=True)
class Comparison:
    """Strategies run on the same plan and faults, side by side; renders as a table in a notebook."""

    rows: tuple[ComparisonRow, ...]
    faults: tuple[Fault, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"faults": [str(f) for f in self.faults],
                "rows": [{"strategy": r.strategy, "outcome": r.outcome, "attribution": r.attribution,
                          **r.metrics.to_dict()} for r in self.rows]}

    def _table(self) -> tuple[list[str], list[list[str]]]:
        head = ["strategy", "outcome"] + [f.name for f in fields(Metrics)] + ["attribution"]
        body = [[r.strategy, r.outcome or "-"] + [v for _, v in r.metrics._cells()] + [r.attribution]
                for r in self.rows]
        return head, body

    def to_text(self) -> str:
        head, body = self._table()
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *body]]
        title = f"faults: {', '.join(map(str, self.faults)) or '(none)'}"
        return "\n".join([title, *lines])

    def _repr_html_(self) -> str:
        head, body = self._table()
        # long names and values may wrap at '_', so the whole table fits a notebook's width
        th = "".join(f"<th title='{html.escape(_DOC.get(h, h), quote=True)}'>{html.escape(h).replace('_', '_<wbr>')}"
                     "</th>" for h in head)
        trs = "".join("<tr>" + "".join(f"<td>{html.escape(c).replace('_', '_<wbr>')}</td>" for c in row) + "</tr>"
                      for row in body)
        caption = html.escape(f"faults: {', '.join(map(str, self.faults)) or '(none)'}")
        return (f"<table class='planviz-comparison' style='font-size:90%'><caption>{caption}</caption>"
                f"<tr>{th}</tr>{trs}</table>")


def compare(plan: Plan, faults: Iterable[Fault] = (), strategies: Iterable[str] = STRATEGIES,
            contract: Contract | None = None, workers: int | None = None) -> Comparison:
    """Simulate ``plan`` under each strategy with the same ``faults`` and tabulate the metrics.

    >>> from planviz import examples
    >>> table = compare(examples.load("cache_isolation"), [Fault("S4", "side_effect")])
    >>> [(r.strategy, r.outcome) for r in table.rows]
    [('direct', 'step_failed'), ('workflow', 'step_failed'), ('planner', 'plan_complete')]
    """
    faults = tuple(faults)
    rows = []
    for strategy in strategies:
        run = simulate(plan, contract, faults=faults, workers=workers, strategy=strategy)
        rows.append(ComparisonRow(strategy, run.outcome, metrics(run), attribute(run, contract)))
    return Comparison(tuple(rows), faults)


def attribute(run: Run, contract: Contract | None = None) -> str:
    """Who the outcome of ``run`` is down to: ``planner``, ``executor``, ``environment`` or ``contract``.

    In order: the planner, when the first plan does not pass ``validate``
    against the contract (or was refused); the executor, when a step started
    unready or off-plan, did not produce its evidence, its tool errored, or it
    established a forbidden state;
    the environment, when a fact was withdrawn, an observation conflicted, a
    premise failed, or a failure was transient, a side effect or a goal
    change; else the contract, which missed a requirement (a run that
    completes its milestones yet misses the user's goal lands here).

    ``contract`` defaults to the run's own.
    """
    contract = contract if contract is not None else run.contract
    if run.outcome == "refused" or (run.plans and not validate(run.plans[0], contract).ok):
        return "planner"
    m = metrics(run)
    categories = {e.category for e in run.events if e.kind == "fail"}
    if (m.precondition_errors or categories & _EXECUTOR
            or run.outcome in ("expected_evidence_missing", "forbidden_state")
            or any(e.kind == "start" and e.step not in e.statuses for e in run.events)):
        return "executor"
    if (categories & _ENVIRONMENT or run.outcome == "premise_failed"
            or any(e.kind in ("withdraw", "conflict") for e in run.events)):
        return "environment"
    return "contract"
