"""Run traces handed to a plan reader: which trace format a file is, told from its shape alone.

``load_plan`` and ``parse_plan`` read plans; a run trace given to them is named here, with the function that
reads it (``planviz.load_trace``), instead of "expected a mapping with goal and steps" or a UTF-8 complaint about
a database. The plan stage never imports the trace readers (``runs/`` is a later stage): this module tells the
formats apart by their telltale keys only, the same keys the readers' ``detect`` look for, and names each with
the registry's name (a test compares both on every real trace planviz is tested on). A SQLite database is named
by its tables (a LangGraph SqliteSaver has ``checkpoints`` and ``writes``).

>>> trace_named({"info": {}, "data": {"spans": []}})
('mlflow', 'MLflow')
>>> trace_named([{"name": "agent", "context": {"span_id": "s1"}, "span_kind": "AGENT"}])
('phoenix', 'Arize Phoenix')
>>> trace_named({"goal": "g", "steps": []}) is None
True
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

__all__ = [
    "trace_named",
    "trace_message",
    "sqlite_tables",
    "sqlite_message",
    "is_langgraph_history",
    "SQLITE_MAGIC",
]

SQLITE_MAGIC = b"SQLite format 3\x00"
_OI_KIND = "openinference.span.kind"


def _spans(data: Any) -> list[Any] | None:
    """The span list of a span file: a list, or the list under ``spans``/``data``."""
    if isinstance(data, dict):
        for key in ("spans", "data"):
            found = data.get(key)
            if isinstance(found, list):
                return found
        return None
    return data if isinstance(data, list) else None


def trace_named(data: Any) -> tuple[str, str] | None:
    """``(format, title)`` of the run trace ``data`` is (the trace registry's format name), or None."""
    first = data[0] if isinstance(data, list) and data else data
    if (
        isinstance(first, dict)
        and first.get("type") == "header"
        and first.get("schema") == "planviz-trace"
    ):
        return "planviz", "planviz JSON Lines"
    if (
        isinstance(data, dict)
        and isinstance(data.get("data"), dict)
        and isinstance(data["data"].get("spans"), list)
        and isinstance(data.get("info", {}), dict)
    ):
        return "mlflow", "MLflow"
    if isinstance(data, dict) and isinstance(data.get("observations"), list):
        return "langfuse", "Langfuse"
    if isinstance(data, dict) and any(k in data for k in ("resourceSpans", "resource_spans")):
        return _otel(data)
    spans = _spans(data)
    head = spans[0] if spans and isinstance(spans[0], dict) else None
    if head is not None:
        attrs = head.get("attributes")
        if isinstance(attrs, dict) and "mlflow.spanType" in attrs:
            return "mlflow", "MLflow"
        if "span_kind" in head and (
            isinstance(head.get("context"), dict) or "context.span_id" in head
        ):
            return "phoenix", "Arize Phoenix"
        if isinstance(head.get("spanContext"), dict):
            return "otel-js", "OpenTelemetry JS"
        if isinstance(head.get("context"), dict) or "spanId" in head or "scopeSpans" in head:
            return _otel(data)
    if is_langgraph_history(data):
        return "langgraph", "LangGraph"
    return None


def _otel(data: Any) -> tuple[str, str]:
    if _OI_KIND in repr(data)[: 1 << 20]:
        return "openinference", "OpenInference"
    return "otel", "OpenTelemetry"


def is_langgraph_history(data: Any) -> bool:
    """Whether parsed JSON is a LangGraph history: snapshots, checkpoint tuples or their lists."""
    items = data
    if isinstance(data, dict):
        items = next(
            (
                data[k]
                for k in ("history", "checkpoints", "snapshots", "states")
                if isinstance(data.get(k), list)
            ),
            [data],
        )
    first = items[0] if isinstance(items, list) and items else None
    if isinstance(first, dict):
        return "checkpoint" in first or (
            "config" in first and ("values" in first or "metadata" in first)
        )
    return (
        isinstance(first, list)
        and len(first) >= 4
        and isinstance(first[2], dict)
        and "configurable" in first[2]
    )


def trace_message(data: Any) -> str | None:
    """Why a plan reader refuses ``data``: the trace it is and how to read it; None when it is no trace."""
    named = trace_named(data)
    if named is None:
        return None
    fmt, title = named
    return (
        f"this is a run trace ({title}), not a plan: read it with planviz.load_trace(path) "
        f"(format={fmt!r}; planviz.parse_trace for its text; on the command line report, align, diff and "
        "hindsight take it)"
    )


def sqlite_tables(path: str) -> list[str] | None:
    """The tables of the SQLite database at ``path``, opened read-only (None when it cannot be opened)."""
    try:
        uri = Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
        with sqlite3.connect(uri, uri=True) as db:
            return sorted(
                r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            )
    except (sqlite3.Error, OSError, ValueError):
        return None


def sqlite_message(path: str | None) -> str:
    """Why a plan reader refuses a SQLite database: a LangGraph checkpointer (a trace) or another database."""
    tables = sqlite_tables(path) if path is not None else None
    if tables is not None and {"checkpoints", "writes"} <= set(tables):
        return (
            "this is a LangGraph checkpoint database (SqliteSaver: tables checkpoints and writes), a run trace, "
            "not a plan: read a thread with planviz.load_trace(path, thread=...) (planviz.load_traces for "
            "every thread; on the command line render, report, align, diff and hindsight take it)"
        )
    shown = (
        ", ".join(tables[:12]) + (f" and {len(tables) - 12} more" if len(tables) > 12 else "")
        if tables
        else ""
    )
    return (
        f"this is a SQLite database{f' (tables: {shown})' if shown else ''}, not a plan: a plan is JSON or "
        "YAML text (planviz reads a database only as a LangGraph SqliteSaver trace, with tables checkpoints "
        "and writes)"
    )
