"""The parts of a hindsight figure and its cost: tool time, model time and waits; tokens on the path and off it.

:func:`figure_parts` splits the actual makespan into the time some tool call
ran (``tool``), the time only a model call ran (``model``) and the rest
(``wait``: the agent's own overhead, or nothing running), and the ideal one
into the tool and model time along the ideal critical path (``wait``: the time
standing for a revision; 0 otherwise).

:func:`hindsight_cost` counts, for the ideal schedule of
:mod:`planviz.runs.hindsight.idealplan`, the time on its critical path and off it (work
that runs beside the path), the tokens of the run's model calls that led to
a step on that path (and the final answer's) against the others, and what
the ideal would spend: the planning call reads what the run's first call read
and writes what every call that issued a tool call wrote; each model call
between calls costs the run's median tokens per call; the answer costs what
the run's final calls cost. Each figure is None when the run does not record
what it needs (never 0 for unknown).
"""

from __future__ import annotations

import statistics
from operator import le
from typing import Any, Mapping

from planviz.runs.events import Run
from planviz.runs.hindsight.idealplan import ANSWER_STEP, IdealSchedule

__all__ = ["figure_parts", "hindsight_cost"]


def _union(parts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    kept = [p for p in parts if p[1] > p[0]]
    # sorted, unless already in order (calls recorded as they started, most runs): then sorting keeps that order
    if not all(map(le, kept, kept[1:])):
        kept.sort()
    for a, b in kept:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _length(parts: list[tuple[float, float]]) -> float:
    return sum(b - a for a, b in parts)


def _minus(parts: list[tuple[float, float]], cut: list[tuple[float, float]]) -> float:
    """The length of ``parts`` outside ``cut`` (both sorted unions of disjoint intervals, as :func:`_union` makes
    them): one pass over both, each part meeting only the cuts that overlap it."""
    total = _length(parts)
    first = 0
    for a, b in parts:
        # cuts ending before this part end before the next ones too
        while first < len(cut) and cut[first][1] <= a:
            first += 1
        k = first
        while k < len(cut) and cut[k][0] < b:
            total -= min(b, cut[k][1]) - max(a, cut[k][0])
            k += 1
    return total


def figure_parts(
    run: Run,
    t0: float,
    actual: float,
    times: Mapping[str, tuple[float, float]],
    sched: IdealSchedule,
    faster: bool,
) -> dict[str, dict[str, float | None]]:
    """``actual`` and ``ideal`` makespans each split into ``tool``, ``model`` and ``wait`` time (see the module)."""
    no_tools = any(f.code == "no_tool_calls" for p in run.plans for f in p.import_findings)
    models = [
        (t0 + c.start, t0 + c.start + c.duration) for c in run.model_calls if c.duration is not None
    ]
    unknown = any(c.duration is None for c in run.model_calls)
    if no_tools:
        models = _union(models + list(times.values()))
        tools: list[tuple[float, float]] = []
    else:
        tools = _union(list(times.values()))
        models = _union(models)
    tool = _length(tools)
    model = None if unknown else _minus(models, tools)
    wait = None if model is None else actual - tool - model
    out: dict[str, dict[str, float | None]] = {
        "actual": {
            "tool": tool,
            "model": model,
            "wait": None if wait is None else wait if wait > 1e-9 * max(1.0, actual) else 0.0,
        }
    }
    if sched.makespan is None:
        out["ideal"] = {"tool": None, "model": None, "wait": None}
    elif not faster:
        out["ideal"] = dict(out["actual"])
    else:
        on = [s for s in sched.path]
        m = sum(
            sched.durations.get(s, 0.0) for s in on if s in sched.model or (no_tools and s in times)
        )
        t = sum(sched.durations.get(s, 0.0) for s in on if s in times and not no_tools)
        wait = sched.makespan - t - m
        out["ideal"] = {
            "tool": t,
            "model": m,
            "wait": wait if wait > 1e-9 * max(1.0, sched.makespan) else 0.0,
        }
    return out


def _tokens(calls: list[Any]) -> int | None:
    values = [c.tokens for c in calls]
    return None if not values or any(v is None for v in values) else sum(values)


def hindsight_cost(
    run: Run, sched: IdealSchedule, ideal: float | None, actual: float
) -> dict[str, Any]:
    """Tokens and time on the ideal critical path and off it, and what the ideal would spend (see the module)."""
    calls = list(run.model_calls)
    on = set(sched.path)
    steps = sched.ids  # the plan's step ids (its steps are made only when read)
    work = sum(sched.durations.values())
    # summed in the path's order: a set's order varies with the hash seed, and so would the last digit
    path_time = sum(sched.durations.get(s, 0.0) for s in dict.fromkeys(sched.path))
    led = [c for c in calls if c.step is not None and c.step in steps]
    final = [c for c in calls if c.step is None or c.step not in steps]
    tokens_on = _tokens(
        [c for c in led if c.step in on]
        + (final if any(s in sched.model and s.startswith(ANSWER_STEP) for s in on) else [])
    )
    tokens_all = _tokens(calls)
    out: dict[str, Any] = {
        "time_on_path": path_time if sched.makespan is not None else None,
        "time_off_path": max(0.0, work - path_time) if sched.makespan is not None else None,
        "model_calls": len(calls) if calls else None,
        "tokens": tokens_all,
        "tokens_on_path": tokens_on if calls else None,
        "tokens_off_path": None
        if tokens_all is None or tokens_on is None
        else tokens_all - tokens_on,
        "ideal_time": ideal,
        "ideal_tokens": None,
        "ideal_model_calls": len(sched.model) if calls else None,
    }
    derive = len([s for s in sched.model if s.startswith("model for")])
    no_tools = any(f.code == "no_tool_calls" for p in run.plans for f in p.import_findings)
    if no_tools:  # the steps are the model calls: the ideal makes the same ones
        out["ideal_model_calls"], out["ideal_tokens"] = len(calls), tokens_all
    elif calls and all(c.input_tokens is not None and c.output_tokens is not None for c in calls):
        per_call = statistics.median((c.input_tokens or 0) + (c.output_tokens or 0) for c in calls)
        plan_tokens = (calls[0].input_tokens or 0) + sum(c.output_tokens or 0 for c in led)
        answer = sum((c.input_tokens or 0) + (c.output_tokens or 0) for c in final)
        out["ideal_tokens"] = int(plan_tokens + derive * per_call + answer)
    parts = [
        f"{len(calls)} model calls, {_show(tokens_all)} tokens"
        if calls
        else "no model call recorded"
    ]
    if calls:
        parts.append(f"{_show(tokens_on)} of them on the ideal critical path")
        parts.append(
            f"the ideal: {out['ideal_model_calls']} model calls, about {_show(out['ideal_tokens'])} tokens"
        )
    out["text"] = "; ".join(parts)
    return out


def _show(x: Any) -> str:
    return "unknown" if x is None else str(x)
