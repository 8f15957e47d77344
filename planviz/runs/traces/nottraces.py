"""Inputs that are not traces planviz reads: what they are, when planviz can tell, and what to read instead.

>>> from planviz.runs.traces import Sample
>>> refuse(Sample(data={"goal": "g", "steps": []}, parsed=True), "p.json").message
'this is a planviz plan (goal and steps), not a trace: load it with planviz.load_plan (planviz render/validate take it); a trace is a run of it'
"""

from __future__ import annotations

from typing import Any

from ...errors import TraceFormatError

__all__ = ["refuse", "READS"]

READS = ("planviz reads traces as: its own JSON Lines (save_trace), OpenTelemetry GenAI spans (SDK span JSON or "
         "OTLP/JSON), OpenInference spans, OpenTelemetry JS span objects, Langfuse trace exports, LangGraph "
         "histories (JSON) and LangGraph SqliteSaver databases")


def refuse(sample: Any, source: str, strict: bool = True) -> TraceFormatError | None:
    """The error for an input no trace format claims: naming what it is when that can be told. With
    ``strict`` False, None when nothing can be told (the caller's own reader then explains)."""
    what = _what(sample)
    if what is None and not strict:
        return None
    message = what or _shape(sample)
    return TraceFormatError(message if what else f"not a trace planviz reads: {message}; {READS}", source=source)


def _what(sample: Any) -> str | None:
    data = sample.data if sample.parsed else None
    if isinstance(data, dict) and ("steps" in data and "goal" in data):
        return ("this is a planviz plan (goal and steps), not a trace: load it with planviz.load_plan "
                "(planviz render/validate take it); a trace is a run of it")
    return None


def _shape(sample: Any) -> str:
    data = sample.data if sample.parsed else None
    if isinstance(data, dict):
        keys = ", ".join(str(k) for k in list(data)[:8])
        return f"it is a JSON object with keys {keys}" if data else "it is an empty JSON object"
    if isinstance(data, list):
        return f"it is a JSON list of {len(data)} item(s)"
    if sample.is_sqlite:
        return "it is a SQLite database"
    return "its format is not recognised"
