"""Inputs that are not traces planviz reads: what they are, when planviz can tell, and what to read instead.

Valid JSON is never answered with a JSON syntax error and text that is not
UTF-8 never with a codec error: the registry hands an input no trace format
claims to :func:`refuse`, which names it (a plan, a planner output planviz
imports, a SWE-agent trajectory, a ToolBench answer tree, PlanBench results,
TravelPlanner itineraries, a SQLite database that is not a LangGraph
checkpointer, a binary file) and says what planviz reads.

>>> from planviz.traces import Sample
>>> print(refuse(Sample(data={"goal": "g", "steps": []}, parsed=True), "p.json").message)
... # doctest: +NORMALIZE_WHITESPACE
this is a planviz plan (goal and steps), not a trace: read it with planviz.load_plan (the CLI's validate,
render and simulate take it); a trace is a run of a plan
>>> refuse(Sample(data={"environment": "swe", "trajectory": [], "history": []}, parsed=True), "t.traj").message[:40]
'this is a SWE-agent trajectory (.traj), '
"""

from __future__ import annotations

from typing import Any

from planviz.errors import TraceFormatError
from planviz.io.syntax import show_value
from planviz.io.tracesniff import sqlite_tables
from planviz.plan.importers import notplans

__all__ = ["refuse", "READS", "sqlite_tables"]

READS = (
    "planviz reads traces as: its own JSON Lines (save_trace, Recorder), OpenTelemetry GenAI spans (SDK span "
    "JSON, OTLP/JSON or OTLP protobuf), OpenInference spans, Arize Phoenix span exports, MLflow traces, "
    "OpenTelemetry JS span objects, Langfuse trace exports, LangGraph histories (JSON) and LangGraph "
    "SqliteSaver databases"
)
_ELSEWHERE = "; planviz does not read it as a run. " + READS


def refuse(sample: Any, source: str, strict: bool = True) -> TraceFormatError | None:
    """The error for an input no trace format claims, naming what it is when that can be told. With
    ``strict`` False, None when nothing can be told (the caller's own reader then explains)."""
    what = _what(sample)
    if what is None and not strict:
        return None
    return TraceFormatError(
        what or f"not a trace planviz reads: {_shape(sample)}; {READS}", source=source
    )


def _what(sample: Any) -> str | None:
    if sample.is_sqlite:
        return _sqlite(sample.path)
    if not sample.parsed:
        return _text(sample)
    data = sample.data
    if isinstance(data, dict) and "steps" in data and "goal" in data:
        return (
            "this is a planviz plan (goal and steps), not a trace: read it with planviz.load_plan (the CLI's "
            "validate, render and simulate take it); a trace is a run of a plan"
        )
    named = notplans.named(data)
    if named is not None:
        return f"this is {named}" + _ELSEWHERE
    return _planner(sample.text if isinstance(sample.text, str) else "", data)


def _planner(text: str, data: Any) -> str | None:
    """A planner output planviz imports as a plan (TaskBench, ReWOO...), named by the plan importers."""
    from planviz.plan.importers import detect, format_title

    try:
        fmt = detect(text, data)
    except Exception:  # noqa: BLE001 - a detector's trouble with odd data only means "not that format"
        return None
    if fmt is None:
        return None
    return (
        f"this is a {format_title(fmt)} planner output, a plan, not a trace: read it with planviz.load_plan "
        f"(format={fmt!r}; the CLI's validate, render and simulate take it)"
    )


def _text(sample: Any) -> str | None:
    head = sample.head
    if b"\x00" in head[:4096]:
        return (
            "this is a binary file, not a trace (a trace is JSON or JSON Lines text)" + _ELSEWHERE
        )
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a character cut at the end of the head
            return (
                f"this is not UTF-8 text (byte {exc.start:,} is {head[exc.start : exc.start + 1]!r}): a trace is "
                "UTF-8 JSON or JSON Lines; re-encode it as UTF-8"
            )
    lines = [line.strip() for line in sample.text.splitlines()[:200]]
    if any(line.startswith("goal:") for line in lines) and any(
        line.startswith("steps:") for line in lines
    ):
        return (
            "this is a planviz plan in YAML (goal and steps), not a trace: read it with planviz.load_plan (the "
            "CLI's validate, render and simulate take it); a trace is a run of a plan"
        )
    if sample.text[:1] not in ("{", "[", ""):
        return _planner(sample.text, None)
    return None


def _sqlite(path: str | None) -> str:
    if path is None:
        return 'this is a SQLite database: pass its path (load_trace("checkpoints.db")), not an open file'
    tables = sqlite_tables(path)
    if tables is None:
        return "this is a SQLite database that cannot be opened (damaged or locked?)" + _ELSEWHERE
    if {"checkpoints", "writes"} <= set(tables):
        return (
            "this is a LangGraph checkpoint database (SqliteSaver: tables checkpoints and writes), but this "
            "planviz has no reader for it"
        )
    shown = ", ".join(tables[:12]) + (f" and {len(tables) - 12} more" if len(tables) > 12 else "")
    return (
        f"this is a SQLite database that is not a LangGraph checkpointer (tables: {shown or 'none'}; a "
        "SqliteSaver database has checkpoints and writes)" + _ELSEWHERE
    )


def _shape(sample: Any) -> str:
    data = sample.data if sample.parsed else None
    if isinstance(data, dict):
        keys = ", ".join(str(k) for k in list(data)[:8])
        return f"it is a JSON object with keys {keys}" if data else "it is an empty JSON object"
    if isinstance(data, list):
        return f"it is a JSON list of {len(data)} item(s)"
    return f"it begins {show_value(sample.text[:60])}" if sample.text else "it is empty"
