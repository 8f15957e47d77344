"""Two runs of the same plan or task, side by side: where they part, and what differs.

:func:`diff_runs` compares two runs (two traces, or a trace and a
simulation): steps are paired with the matching rule of :func:`planviz.align`
(step id, tool call id, tool name and arguments), then

- ``first_divergence``: the index of the first event where the two runs do
  something different (a different kind of event, on a different step, a
  call of the same step with different arguments (at its start), a different
  failure class or outcome), or None when neither does;
- ``only_a`` / ``only_b``: steps that ran in one run only;
- ``changes``: paired steps whose outcome (final status) or arguments differ;
- ``usage``: time and cost of each run (:class:`Usage`), and their difference.

>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> d = diff_runs(simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")]))
>>> d.first_divergence, d.only_b, [(c.step, c.a_status, c.b_status) for c in d.changes]
(10, ('S3.v2', 'S4.v2'), [('S3', 'done', 'invalidated'), ('S4', 'done', 'invalidated')])
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping

from planviz.runs.comparisons.matching import match, steps_run, unmatched
from planviz.runs.events import Event, Run, expect_run
from planviz.runs.usage import UNITS, Usage, run_usage, time_unit

__all__ = ["diff_runs", "diff_from", "RunDiff", "StepChange"]


@dataclass(frozen=True)
class StepChange:
    """A step both runs ran, differently: ``step`` (run a's id) and ``other`` (run b's), their final statuses,
    and their arguments when those differ (``what``: ``outcome``, ``arguments`` or both)."""

    step: str
    other: str
    what: tuple[str, ...]
    a_status: str
    b_status: str
    a_arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    b_arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class RunDiff:
    """What differs between run ``a`` and run ``b`` (see :func:`diff_runs`)."""

    a: Run = field(repr=False)
    b: Run = field(repr=False)
    first_divergence: int | None
    pairs: tuple[tuple[str, str], ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    changes: tuple[StepChange, ...]
    outcomes: tuple[str | None, str | None]
    usage: tuple[Usage, Usage]

    @property
    def same(self) -> bool:
        """True when the runs did the same things with the same results (what they cost may still differ:
        :attr:`same_usage`)."""
        return self.first_divergence is None and not (self.only_a or self.only_b or self.changes)

    @property
    def same_usage(self) -> bool:
        """True when the runs cost the same: every :class:`Usage` figure equal (time, calls, tokens, cost)."""
        return self.usage[0] == self.usage[1]

    @property
    def units(self) -> dict[str, str]:
        """The unit of each :class:`Usage` figure (``time``: run a's ``time_unit``)."""
        return {"time": time_unit(self.a), **UNITS}

    def deltas(self) -> dict[str, Any]:
        """b minus a, for each :class:`Usage` figure both runs have."""
        a, b = self.usage
        return {
            f.name: getattr(b, f.name) - getattr(a, f.name)
            for f in fields(Usage)
            if getattr(a, f.name) is not None and getattr(b, f.name) is not None
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "first_divergence": self.first_divergence,
            "outcomes": list(self.outcomes),
            "pairs": [list(p) for p in self.pairs],
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "changes": [
                {
                    "step": c.step,
                    "other": c.other,
                    "what": list(c.what),
                    "a_status": c.a_status,
                    "b_status": c.b_status,
                }
                for c in self.changes
            ],
            "usage": {"a": _usage_dict(self.usage[0]), "b": _usage_dict(self.usage[1])},
            "deltas": self.deltas(),
            "units": self.units,
            "same": self.same,
            "same_usage": self.same_usage,
        }

    def _lines(self) -> list[str]:
        fd = self.first_divergence
        lines = [
            f"outcome: a {self.outcomes[0]}, b {self.outcomes[1]}",
            "first divergence: none, the runs agree event by event"
            if fd is None
            else f"first divergence: event {fd}: a {_event_text(self.a, fd)}; b {_event_text(self.b, fd)}",
        ]
        if self.only_a:
            lines.append(f"only in a: {', '.join(self.only_a)}")
        if self.only_b:
            lines.append(f"only in b: {', '.join(self.only_b)}")
        for c in self.changes:
            name = c.step if c.step == c.other else f"{c.step} / {c.other}"
            what = []
            if "outcome" in c.what:
                what.append(f"{c.a_status} -> {c.b_status}")
            if "arguments" in c.what:
                what.append(f"arguments {_short(c.a_arguments)} -> {_short(c.b_arguments)}")
            lines.append(f"changed: {name}: {'; '.join(what)}")
        a, b = self.usage
        units = self.units
        if time_unit(self.a) != time_unit(self.b):
            lines.append(
                f"clocks: a in {time_unit(self.a)}, b in {time_unit(self.b)}: times are not comparable"
            )
        for f in fields(Usage):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if x is not None or y is not None:
                unit = units[f.name]
                delta = f" ({y - x:+.6g} {unit})" if x is not None and y is not None else ""
                lines.append(
                    f"{f.name.replace('_', ' ')}: a {_num(x, unit)}, b {_num(y, unit)}{delta}"
                )
        return lines

    def to_text(self) -> str:
        return "\n".join(self._lines())

    def _repr_html_(self) -> str:
        return "<pre class='planviz-rundiff'>" + html.escape(self.to_text()) + "</pre>"


def _num(x: Any, unit: str) -> str:
    return (
        "not recorded"
        if x is None
        else f"{x:.6g} {unit}"
        if isinstance(x, float)
        else f"{x} {unit}"
    )


def _short(args: Mapping[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return "{" + (text if len(text) <= 60 else text[:59] + "…") + "}"


def _usage_dict(u: Usage) -> dict[str, Any]:
    return {f.name: getattr(u, f.name) for f in fields(Usage)}


def _event_text(run: Run, i: int) -> str:
    if i >= len(run.events):
        return "had ended"
    e = run.events[i]
    return (
        f"{e.kind}" + (f" {e.step}" if e.step else "") + (f" ({e.category})" if e.category else "")
    )


def diff_runs(a: Run, b: Run) -> RunDiff:
    """What differs between runs ``a`` and ``b``: first divergence, steps in one only, changed steps, usage.

    Parameters
    ----------
    a, b : Run
        The two runs (recorded or simulated), usually of the same task.

    Returns
    -------
    RunDiff
        ``first_divergence`` (an event index or None), steps only in one, changed steps (outcome, arguments,
        time), usage of each, ``same_usage`` and ``units``; ``to_text()`` prints it.

    Raises
    ------
    PlanvizTypeError
        When ``a`` or ``b`` is not a :class:`Run` (load a trace first with :func:`load_trace`).

    Examples
    --------
    >>> from planviz import Fault, examples, simulate
    >>> plan = examples.load("cache_isolation")
    >>> d = diff_runs(simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")]))
    >>> d.first_divergence is not None
    True
    """
    a, b = expect_run(a, "diff_runs", "a"), expect_run(b, "diff_runs", "b")
    return diff_from(a, b, run_usage)


def diff_from(a: Run, b: Run, usage: Callable[[Run], Usage]) -> RunDiff:
    """:func:`diff_runs` of two checked runs with each run's usage asked of ``usage`` (the run summaries', so a
    view of two runs counts each run's usage once: :func:`~planviz.runs.summary.runsummary.pair_diff`)."""
    ran_a, ran_b = steps_run(a), steps_run(b)
    pairs = match(ran_a, ran_b)
    by_b = {r.id: r for r in ran_b}
    changes = []
    for r in ran_a:
        if r.id not in pairs:
            continue
        other = by_b[pairs[r.id][0]]
        what = tuple(
            w
            for w, differs in (
                ("outcome", r.status != other.status),
                ("arguments", dict(r.arguments) != dict(other.arguments)),
            )
            if differs
        )
        if what:
            changes.append(
                StepChange(
                    r.id, other.id, what, r.status, other.status, r.arguments, other.arguments
                )
            )
    a_of_b = {rid: aid for aid, (rid, _, _) in pairs.items()}
    called_otherwise = {c.step for c in changes if "arguments" in c.what}
    return RunDiff(
        a,
        b,
        _divergence(a, b, a_of_b, called_otherwise),
        tuple((k, v[0]) for k, v in pairs.items()),
        tuple(r.id for r in ran_a if r.id not in pairs),
        tuple(r.id for r in unmatched(ran_b, pairs)),
        tuple(changes),
        (a.outcome, b.outcome),
        (usage(a), usage(b)),
    )


def _divergence(
    a: Run, b: Run, a_of_b: Mapping[str, str], called_otherwise: set[str]
) -> int | None:
    """The first event where the runs differ; a paired step called with other arguments differs at its start."""

    def key(e: Event, names: Mapping[str, str]) -> tuple[str, str | None, str | None, str | None]:
        return (e.kind, names.get(e.step, e.step) if e.step else None, e.category, e.outcome)

    for i, (x, y) in enumerate(zip(a.events, b.events)):
        if key(x, {}) != key(y, a_of_b) or (x.kind == "start" and x.step in called_otherwise):
            return i
    return None if len(a.events) == len(b.events) else min(len(a.events), len(b.events))
