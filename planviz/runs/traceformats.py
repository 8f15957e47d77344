"""Which trace format a file is in, and reading the formats of other tools into runs.

planviz reads three trace formats: its own JSON Lines (``planviz``,
:mod:`planviz.runs.tracefile`), OpenTelemetry GenAI spans (``otel``: SDK span
JSON or the OTLP/JSON envelope, :mod:`planviz.runs.otel`) and LangGraph state
histories or checkpoint tuples (``langgraph``, :mod:`planviz.runs.langgraph`).
:func:`sniff` tells them apart by shape from the first bytes of a file, and
:func:`data_format` from parsed data; ``format=`` forces one.
:func:`load_foreign` and :func:`parse_foreign` are what ``load_trace`` and
``parse_trace`` call: they return the run of an ``otel`` or ``langgraph``
trace, or None for planviz's own format (read by ``tracefile`` as before).
OpenTelemetry files are read as a stream, record by record, so a 50 MB trace
never sits in memory as one parsed document.

>>> sniff(b'{"type": "header", "schema": "planviz-trace", "version": 1}')
'planviz'
>>> sniff(b'{"resourceSpans": [{"scopeSpans": []}]}')
'otel'
>>> sniff(b'[{"values": {}, "next": [], "config": {"configurable": {"thread_id": "1"}}}]')
'langgraph'
"""

from __future__ import annotations

import io
import json
import os
import re
from typing import Any, BinaryIO

from ..errors import PlanvizTypeError, TraceFormatError
from ..plan.syntax import show_value
from .events import Run
from .jsonstream import records, values
from .langgraph import run_of_history
from .otel import CONTAINERS, run_of_spans
from .otelspans import span_of

__all__ = ["TRACE_FORMATS", "sniff", "data_format", "load_foreign", "parse_foreign"]

TRACE_FORMATS = ("planviz", "otel", "langgraph")
_HEAD = 64 * 1024
_KEY = r'"{}"\s*:'
_MARKS = (  # (format, keys: any of them shows the shape); the first format whose key appears first wins
    ("langgraph", ("channel_values", "versions_seen", "pending_writes", "parent_config", "checkpoint_ns",
                   "configurable", "checkpoint_id")),
    ("otel", ("resourceSpans", "scopeSpans", "spanId", "span_id", "traceId", "startTimeUnixNano", "start_time")),
)
_PATTERNS = [(fmt, re.compile("|".join(_KEY.format(k) for k in keys))) for fmt, keys in _MARKS]


def sniff(head: bytes) -> str:
    """The format of a trace file from its first bytes (``planviz`` when nothing else matches)."""
    text = head[:_HEAD].decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith("{") and re.match(r'\{\s*"type"\s*:\s*"header"', text):
        return "planviz"
    found = [(m.start(), fmt) for fmt, pattern in _PATTERNS if (m := pattern.search(text))]
    return min(found)[1] if found else "planviz"


def data_format(data: Any) -> str | None:
    """The format of parsed trace data (a mapping or a list), or None when it is neither OTel nor LangGraph."""
    items = data
    if isinstance(data, dict):
        if any(k in data for k in ("resourceSpans", "resource_spans")):
            return "otel"
        items = next((data[k] for k in ("spans", "history", "checkpoints", "snapshots", "states")
                      if isinstance(data.get(k), list)), [data])
        if "spans" in data and isinstance(data["spans"], list):
            return "otel"
    if not isinstance(items, list) or not items:
        return None
    first = items[0]
    if isinstance(first, dict):
        if "checkpoint" in first or ("config" in first and ("values" in first or "metadata" in first)):
            return "langgraph"
        if any(k in first for k in ("spanId", "context", "resourceSpans", "scopeSpans")):
            return "otel"
    if isinstance(first, list) and len(first) >= 4 and isinstance(first[2], dict) and "configurable" in first[2]:
        return "langgraph"  # StateSnapshot tuples dumped as JSON arrays
    return None


def _check_format(format: str | None, function: str) -> None:
    if format is not None and format not in TRACE_FORMATS:
        raise TraceFormatError(f"unknown trace format {format!r}; choose one of {', '.join(TRACE_FORMATS)} "
                               f"(or leave format=None to detect it) in {function}")


def load_foreign(source: Any, format: str | None = None) -> Run | None:
    """The run of an OTel or LangGraph trace at ``source`` (path, open binary file or parsed data); None for
    planviz's own JSON Lines (the caller reads those)."""
    _check_format(format, "load_trace")
    if format == "planviz":
        return None
    if isinstance(source, (dict, list)):
        fmt = format or data_format(source)
        if fmt is None:
            raise TraceFormatError("this data is neither OpenTelemetry spans nor a LangGraph history; pass the "
                                   "path of a planviz trace, or format='otel' / 'langgraph' to say which it is",
                                   source="<data>")
        return _from_data(source, fmt, "<data>")
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        if not os.path.isfile(name):  # missing, a directory, a FIFO...: the JSON Lines reader says which
            return None
        try:
            fh = open(source, "rb")
        except OSError as exc:
            raise TraceFormatError(f"cannot read the trace: {exc.strerror or exc}", source=name) from None
        with fh:
            return _from_stream(fh, format, name, rewind=True)
    if hasattr(source, "read"):
        return _from_stream(source, format, str(getattr(source, "name", "<stream>")), rewind=False)
    raise PlanvizTypeError(f"load_trace(source=...) expects a path, an open file or parsed trace data (a dict "
                           f"or list), got {type(source).__name__} {show_value(source)}; for the text of a trace "
                           "use planviz.parse_trace")


def parse_foreign(text: str | bytes, format: str | None = None, source: str = "<string>") -> Run | None:
    """The run of an OTel or LangGraph trace given as text; None for planviz's own JSON Lines."""
    _check_format(format, "parse_trace")
    if format == "planviz":
        return None
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    fmt = format or sniff(raw[:_HEAD])
    return None if fmt == "planviz" else _read(io.BytesIO(raw), fmt, source)


def _from_stream(fh: Any, format: str | None, name: str, rewind: bool) -> Run | None:
    """Sniff an open binary file without consuming it (seek back, or peek); a stream that can do neither
    is read as planviz JSON Lines unless ``format`` names another format."""
    if format is None:
        if rewind or (getattr(fh, "seekable", lambda: False)()):
            at = fh.tell()
            head = fh.read(_HEAD)
            fh.seek(at)
        elif hasattr(fh, "peek"):
            head = fh.peek(_HEAD)[:_HEAD]
        else:
            return None
        format = sniff(head.encode("utf-8", "surrogatepass") if isinstance(head, str) else head)
        if format == "planviz":
            return None
    return _read(fh, format, name)


def _read(stream: BinaryIO, fmt: str, name: str) -> Run:
    if fmt == "otel":
        return run_of_spans((span_of(raw, ctx, where, line, name)
                             for raw, ctx, where, line in records(stream, set(CONTAINERS), name)), name)
    items = values(stream, name)
    data = items[0] if len(items) == 1 else items
    return _from_data(data, fmt, name)


def _from_data(data: Any, fmt: str, name: str) -> Run:
    if fmt == "otel":
        stream = io.BytesIO(json.dumps(data).encode("utf-8"))
        return _read(stream, "otel", name)
    return run_of_history(data, name)
