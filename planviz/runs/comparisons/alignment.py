"""Plan versus run: what became of each declared step, and what ran that nobody planned.

:func:`align` matches a declared plan's steps to the steps a run (recorded,
imported from a trace, or simulated) actually started, by step id, tool call
id, then tool name and argument similarity (:mod:`planviz.runs.comparisons.matching`), and
gives each planned step its **fate**:

==================  ==========================================================
``as_planned``      ran, with the planned arguments, and completed
``other_arguments`` ran and completed, with other arguments (``similarity`` < 1)
``failed``          ran and failed (``why`` says how)
``voided``          ran, then the run invalidated it
``unfinished``      started, and had not finished when the run ended
``not_run``         never ran; ``why`` says whether a failure upstream blocked
                    it (``blocked_by``), the run had not got there, or the
                    agent simply never called it
==================  ==========================================================

plus the **unplanned** calls, each placed after the planned step that ran just
before it. ``invalidated`` is the failure's invalidated subgraph: every
planned step downstream of a failed one.

>>> from planviz import Plan, Step, Fault, simulate
>>> plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="x"),
...                   Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y")])
>>> a = align(plan, simulate(plan, faults=[Fault("A", "tool_error", times=9)], strategy="workflow"))
>>> [(f.step, f.fate) for f in a.fates], a.fate("B").blocked_by, sorted(a.invalidated)
([('A', 'failed'), ('B', 'not_run')], ('A',), ['B'])
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Mapping

from planviz.errors import UnknownStepError, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.runs.comparisons.matching import Ran, match, steps_run, unmatched
from planviz.runs.events import Run, expect_run
from planviz.structure.index import structure_index

__all__ = ["align", "Alignment", "StepFate", "UnplannedCall", "FATES"]

FATES = ("as_planned", "other_arguments", "failed", "voided", "unfinished", "not_run")


@dataclass(frozen=True)
class StepFate:
    """What became of one planned step: its ``fate`` (see :data:`FATES`), the run step it ``ran_as`` and how it
    was ``matched_by`` (``id``, ``call_id``, ``tool``), the argument ``similarity``, ``why`` in words, and for a
    step that never ran, the failed planned steps that ``blocked_by`` it."""

    step: str
    fate: str
    ran_as: str | None = None
    matched_by: str | None = None
    similarity: float | None = None
    why: str = ""
    blocked_by: tuple[str, ...] = ()
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    ran_arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class UnplannedCall:
    """A step the run started that matches no planned step: its id, tool, arguments, final status, and the
    planned step that ran just before it (``after``, None when it came first)."""

    step: str
    tool: str | None
    status: str
    after: str | None
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Alignment:
    """A plan aligned with a run: one :class:`StepFate` per planned step (plan order), the unplanned calls,
    and the planned steps in the invalidated subgraph of the run's failures."""

    plan: Plan = field(repr=False)
    run: Run = field(repr=False)
    fates: tuple[StepFate, ...]
    unplanned: tuple[UnplannedCall, ...]
    invalidated: frozenset[str]

    def fate(self, step: str) -> StepFate:
        """The fate of planned step ``step``."""
        for f in self.fates:
            if f.step == step:
                return f
        raise UnknownStepError(
            f"no step {show_value(step)} in the plan; its steps are {', '.join(self.plan.ids)}"
        )

    def counts(self) -> dict[str, int]:
        """How many planned steps met each fate, plus ``unplanned``."""
        out = {fate: sum(1 for f in self.fates if f.fate == fate) for fate in FATES}
        out["unplanned"] = len(self.unplanned)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "fates": [
                {
                    "step": f.step,
                    "fate": f.fate,
                    "ran_as": f.ran_as,
                    "matched_by": f.matched_by,
                    "similarity": f.similarity,
                    "why": f.why,
                    "blocked_by": list(f.blocked_by),
                }
                for f in self.fates
            ],
            "unplanned": [
                {"step": u.step, "tool": u.tool, "status": u.status, "after": u.after}
                for u in self.unplanned
            ],
            "invalidated": sorted(self.invalidated),
            "counts": self.counts(),
        }

    def _rows(self) -> list[tuple[str, str, str, str]]:
        rows = [(f.step, f.fate.replace("_", " "), f.ran_as or "-", f.why) for f in self.fates]
        rows += [
            (
                u.step,
                "unplanned",
                u.status,
                f"after {u.after}" if u.after else "before any planned step",
            )
            for u in self.unplanned
        ]
        return rows

    def to_text(self) -> str:
        rows = [("step", "fate", "ran as", "why")] + self._rows()
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = [
            f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}".rstrip()
            for a, b, c, d in rows
        ]
        summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in self.counts().items() if n)
        return "\n".join(lines + [summary])

    def _repr_html_(self) -> str:
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self._rows()
        )
        return (
            "<table class='planviz-alignment'><tr><th>step</th><th>fate</th><th>ran as</th><th>why</th></tr>"
            f"{body}</table>"
        )


def align(plan: Plan, run: Run) -> Alignment:
    """Each of ``plan``'s steps matched to what ``run`` did (see the module docs), and the calls nobody planned.

    Parameters
    ----------
    plan : Plan
        The plan the agent declared.
    run : Run
        What the agent did (recorded or simulated).

    Returns
    -------
    Alignment
        ``fates`` (one StepFate per planned step, see ``FATES``), ``unplanned`` calls, and
        a text/HTML table.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).
    PlanvizTypeError
        When ``run`` is not a :class:`Run` (a path: load it first with :func:`load_trace`).

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> plan = examples.load("cache_isolation")
    >>> sorted({f.fate for f in align(plan, simulate(plan)).fates})
    ['as_planned']
    """
    plan = expect_plan(plan, "align")
    run = expect_run(run, "align")
    ran = steps_run(run)
    by_id = {r.id: r for r in ran}
    pairs = match(plan.steps, ran)
    ix = structure_index(plan)
    failed = [s for s in plan.ids if s in pairs and by_id[pairs[s][0]].status == "failed"]
    known = [s for s in failed if s in ix.steps]
    invalidated = frozenset(ix.descendants(set(known)) - set(known)) if known else frozenset()
    fates = []
    for step in plan.steps:
        if step.id in pairs:
            rid, how, score = pairs[step.id]
            r = by_id[rid]
            fate, why = _ran_fate(r, score)
            fates.append(
                StepFate(
                    step.id, fate, rid, how, round(score, 3), why, (), step.arguments, r.arguments
                )
            )
            continue
        blockers = tuple(f for f in known if step.id in ix.descendants({f}))
        if blockers:
            why = f"blocked by the failure of {', '.join(blockers)}"
        elif run.outcome is None:
            why = "the run had not got there when the trace ended"
        else:
            why = "never called: the run went another way"
        fates.append(
            StepFate(step.id, "not_run", why=why, blocked_by=blockers, arguments=step.arguments)
        )
    return Alignment(plan, run, tuple(fates), tuple(_unplanned(run, ran, pairs)), invalidated)


def _ran_fate(r: Ran, score: float) -> tuple[str, str]:
    if r.status == "failed":
        return "failed", r.message or "it failed"
    if r.status == "invalidated":
        return "voided", "it ran, then the run voided it"
    if r.status != "done":
        return "unfinished", "it started and had not finished when the run ended"
    if score < 1.0:
        return "other_arguments", f"ran with other arguments (similarity {score:.2f})"
    return "as_planned", ""


def _unplanned(
    run: Run, ran: list[Ran], pairs: Mapping[str, tuple[str, str, float]]
) -> list[UnplannedCall]:
    planned_of = {rid: pid for pid, (rid, _, _) in pairs.items()}
    extra = {r.id: r for r in unmatched(ran, pairs)}
    last_planned: str | None = None
    out = []
    for e in run.events:
        if e.kind == "complete" and e.step in planned_of:
            last_planned = planned_of[e.step]
        elif e.kind == "start" and e.step in extra:
            r = extra.pop(e.step)
            out.append(UnplannedCall(r.id, r.tool, r.status, last_planned, r.arguments))
    return out
