"""What a run cost, counted once: the one home of model calls, tokens, cost and time.

:func:`run_usage` is the figure every view shows: :func:`planviz.metrics`
(``model_calls``, ``tool_calls``, ``time``), :func:`planviz.diff_runs`, the
HTML report and the explorer read it, so they cannot disagree.

- ``model_calls``, ``input_tokens``, ``output_tokens``, ``cost``: from the model
  calls a recorded trace holds (:func:`model_calls`: each one once, with the
  step it led to); a planviz run that records none counts what its strategy
  pays a model: one call per plan proposal, replan and expansion (``planner``,
  and a run recorded with :class:`planviz.Recorder`), one per step started
  (``direct``: the agent decides each call), none (``workflow``: a fixed
  script). A run read from another tool's trace (``Run.trace_format``) that
  holds no model call says None: not recorded, not invented. Tokens and cost
  are None when the run does not say. ``reasoning_tokens`` (reasoning or
  thinking) and ``cached_tokens`` (input read from a cache) are what the calls
  state, counted apart and never added to the others (a provider may count
  them inside ``output_tokens``/``input_tokens`` or beside them);
  ``total_tokens`` adds each call's own stated total (else its input plus
  output), so a total larger than input plus output (thinking counted apart)
  is never lost.
- ``tool_calls``: step attempts started; 0 for another tool's trace that holds
  no tool call (its steps are its model calls: finding ``no_tool_calls``),
  which are counted once, as model calls; for a trace whose steps are a
  graph's node runs (finding ``node_steps``: LangGraph), the tool calls its
  steps' observations record (``data["tool_calls"]``: the ToolMessages a
  node run wrote), not the node runs.
- ``time``: the clock at the last event (for a recorded run, what happened).

>>> from planviz import examples, simulate
>>> u = run_usage(simulate(examples.load("cache_isolation")))
>>> u.time, u.tool_calls, u.model_calls, u.input_tokens
(29.0, 5, 1, None)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import add, attrgetter
from typing import Any, Mapping

from planviz.runs.events import Run, expect_run
from planviz.runs.lastruns import LastRuns
from planviz.runs.modelcall import FIGURES

__all__ = ["Usage", "run_usage", "model_calls", "UNITS"]

#: The unit of each :class:`Usage` figure (``time``: the run's plan's ``time_unit``).
UNITS = {
    "tool_calls": "calls",
    "model_calls": "calls",
    "input_tokens": "tokens",
    "output_tokens": "tokens",
    "cost": "USD",
    "reasoning_tokens": "tokens",
    "cached_tokens": "tokens",
    "total_tokens": "tokens",
}
_FIGURES = ("duration", *FIGURES, "ok")


@dataclass(frozen=True)
class Usage:
    """What a run cost: its ``time``, ``tool_calls`` (step attempts), and ``model_calls``,
    ``input_tokens``, ``output_tokens``, money ``cost``, and ``reasoning_tokens``, ``cached_tokens`` and
    ``total_tokens`` (None when the run does not say); see :func:`run_usage`."""

    time: float
    tool_calls: int
    model_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    total_tokens: int | None = None


def model_calls(run: Run) -> tuple[tuple[str | None, Mapping[str, Any]], ...]:
    """The model calls a recorded run holds, each once, as ``(step it led to, call)`` pairs in the order of the
    run (the step None when it led to none: a final answer); a call is a mapping with ``model`` and ``time``
    (clock of the run) and, when recorded, ``duration`` (absent when unknown; ``duration_inferred`` True when
    the trace did not measure it), ``input_tokens``, ``output_tokens``, ``reasoning_tokens``, ``cached_tokens``,
    ``total_tokens`` (the call's stated total), ``cost``, ``ok``, ``input`` and ``output`` (what the model was
    given, what it answered). Read from the run's ``model_calls`` records when it has them, else from the
    observations of the steps they led to (traces written before those records). Empty for a run that records
    none. Read once per run for the last runs asked about (a report reads them for its usage, hindsight, notes,
    details and timeline): the calls are shared, never to be changed (as an observation's own calls are)."""
    return _kept_calls(run)


def _model_calls(run: Run) -> tuple[tuple[str | None, Mapping[str, Any]], ...]:
    records = getattr(run, "model_calls", None)
    if records:
        return tuple(
            (
                c.step,
                {
                    "model": c.model,
                    "time": c.start,
                    **{
                        k: getattr(c, k)
                        for k in _FIGURES + ("input", "output")
                        if getattr(c, k, None) is not None
                    },
                    **(
                        {"duration_inferred": True}
                        if getattr(c, "duration_inferred", False)
                        else {}
                    ),
                },
            )
            for c in records
        )
    return tuple(
        (step, c)
        for step, o in run.state.observations
        for c in (o.data.get("model_calls") or ())
        if isinstance(c, Mapping)
    )


_kept_calls = LastRuns(_model_calls)  # read once per run for the last two runs asked about


def time_unit(run: Run) -> str:
    """The unit of the run's clock: its plan's ``time_unit``, else ``time units``."""
    return next((p.time_unit for p in reversed(run.plans) if p.time_unit), "") or "time units"


def run_usage(run: Run) -> Usage:
    """The :class:`Usage` of ``run``: the one count of its model calls, tokens, cost, tool calls and time.

    Parameters
    ----------
    run : Run
        A simulated run or a loaded trace.

    Returns
    -------
    Usage
        Recorded model calls, tokens and cost when the trace holds them, else the model calls the
        run's strategy pays (see the module; None for another tool's trace that records none);
        ``tool_calls`` the step attempts (0 for a trace whose steps are its model calls: it made no tool
        call); ``time`` the clock at the last event.

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a :class:`planviz.Run`.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> run_usage(simulate(examples.load("cache_isolation"), strategy="direct")).model_calls
    5
    """
    run = expect_run(run, "run_usage")
    kinds = Counter(map(attrgetter("kind"), run.events))  # (counted in C)
    starts = kinds["start"]
    proposals = kinds["propose"] + kinds["replan"] + kinds["expand"]
    codes = {f.code for plan in run.plans for f in plan.import_findings}
    if "no_tool_calls" in codes:
        starts = 0  # the steps of a trace without tool calls are its model calls, counted below
    # the steps are node runs: the tool calls are those their observations record
    elif "node_steps" in codes:
        starts = sum(
            n
            for _, o in run.state.observations
            if isinstance(n := o.data.get("tool_calls"), int) and not isinstance(n, bool) and n > 0
        )
    records = run.model_calls
    # a trace's model call records (model_calls' dicts are made of them) read as columns, in C, when every figure
    # is of the common types; the calls' dicts otherwise
    fast = _record_figures(records) if records else None
    if fast is not None:
        return Usage(run.time, starts, len(records), *fast)
    calls = [c for _, c in model_calls(run)]

    def total(key: str) -> Any:
        values = [
            c[key]
            for c in calls
            if isinstance(c.get(key), (int, float)) and not isinstance(c.get(key), bool)
        ]
        return sum(values) if values else None

    count: int | None
    if calls:
        count = len(calls)
    elif run.trace_format is not None:  # the other tool's trace would hold them: not recorded
        count = None
    else:
        count = (
            starts if run.strategy == "direct" else 0 if run.strategy == "workflow" else proposals
        )
    each = [
        c["total_tokens"]
        if _count(c.get("total_tokens"))
        else sum(c[k] for k in ("input_tokens", "output_tokens") if _count(c.get(k)))
        for c in calls
        if any(_count(c.get(k)) for k in ("total_tokens", "input_tokens", "output_tokens"))
    ]
    return Usage(
        run.time,
        starts,
        count,
        total("input_tokens"),
        total("output_tokens"),
        total("cost"),
        total("reasoning_tokens"),
        total("cached_tokens"),
        sum(each) if each else None,
    )


_NONE = type(None)
_SUMMED = ("input_tokens", "output_tokens", "cost", "reasoning_tokens", "cached_tokens")


def _record_figures(records: Any) -> tuple[Any, ...] | None:
    """The token and cost figures of :func:`run_usage` (its ``total`` of each, then the total tokens) from model
    call records, each read as a column: when every value is an int, a float or None and no call states a total
    (input plus output then, each an int: the common trace), the same sums in the same order; else None (the
    calls' dicts decide)."""
    columns = [list(map(attrgetter(key), records)) for key in _SUMMED]
    out: list[Any] = []
    for values in columns:
        kinds = set(map(type, values))
        if not kinds <= {int, float, _NONE}:  # (a bool, or another type: read as the dicts read it)
            return None
        if _NONE in kinds:
            values = [v for v in values if v is not None]
        out.append(sum(values) if values else None)
    # each call's tokens: its stated total, else the input and output counted (ints, not bools)
    if set(map(attrgetter("total_tokens"), records)) != {None}:
        return None
    ins, outs = columns[0], columns[1]
    if not set(map(type, ins)) | set(map(type, outs)) <= {int}:
        return None
    out.append(sum(map(add, ins, outs)) if ins else None)
    return tuple(out)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
