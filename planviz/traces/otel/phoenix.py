"""Arize Phoenix span exports: OpenInference spans as Phoenix's REST API, client and span dataframe write them.

Phoenix keeps what the OpenTelemetry span JSON nests in its own places: the
span kind at top level (``span_kind``: ``LLM``, ``TOOL``, ``AGENT``,
``CHAIN``...), the ids as ``context.span_id``/``context.trace_id`` and
``parent_id``, the status as ``status_code``/``status_message``, times as ISO
text, and the OpenInference attributes (``input.value``, ``output.value``,
``tool.name``, ``llm.model_name``, ``llm.token_count.*``) in ``attributes``,
usually without ``openinference.span.kind``. Three shapes are read:

- the REST API's and ``phoenix.client``'s span objects (``get_spans``,
  ``/v1/projects/{project}/spans``): a JSON list, ``{"data": [...]}`` or one
  span per line (JSON Lines);
- the span dataframe written as records (``get_spans_dataframe().to_json(
  orient="records")``, or ``lines=True``): flat keys ``context.span_id``,
  ``attributes.llm.model_name``...; an integer time there is pandas'
  default, milliseconds since the epoch;
- attributes nested (``{"llm": {"model_name": ...}}``, as Phoenix stores
  them) are flattened to OpenInference's dotted names first.

Each span is turned into the OpenTelemetry Python SDK's shape (data, never
text), its kind written as ``openinference.span.kind``, and read by
:func:`~planviz.traces.otel.otelspans.span_of`, so the attributes mean what
they mean in :mod:`~planviz.traces.otel.openinference`. Phoenix does not
require hex ids (``"s01"`` is a valid span id there): an id that is not hex
stands for itself through a stable hex digest of its text, the same for a
span and for the parents that name it.

>>> from planviz.traces import Sample
>>> detect(Sample.of(b'[{"name": "agent", "context": {"span_id": "s1"}, "span_kind": "AGENT"}]')) > 0.9
True
>>> hex_id("s01") == hex_id("s01") != hex_id("s02"), hex_id("0xAB12")
(True, 'ab12')
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable

from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.jsonstream import records, walk
from planviz.traces.otel.genai import run_of_spans
from planviz.traces.otel.openinferencevalues import KIND
from planviz.traces.otel.otelspans import Span, span_of, span_record

__all__ = ["TITLE", "detect", "read", "python_shape", "hex_id"]

TITLE = "Arize Phoenix"
CONTAINERS = frozenset({"data", "spans"})
_KIND_KEY = re.compile(r'"span_kind"\s*:')
_CONTEXT_KEY = re.compile(r'"context(?:\.span_id)?"\s*:')
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]{1,32}")
_MS_BELOW = 10**14  # an integer time below this is milliseconds (pandas' to_json), not nanoseconds
_VALUES = frozenset(
    {"value", "metadata", "parameters", "invocation_parameters", "arguments", "json_schema"}
)
"""Attribute names whose value is one value even when it is an object (never flattened into dotted names)."""


def detect(sample: Sample) -> float:
    """Sure when span objects carry Phoenix's top-level ``span_kind`` and a ``context`` (or
    ``context.span_id``); 0 otherwise. Surer than OpenInference's 0.95: it is the same spans, in Phoenix's shape."""
    if sample.parsed:
        first = _first(sample.data)
        return (
            0.97
            if isinstance(first, dict)
            and "span_kind" in first
            and (isinstance(first.get("context"), dict) or "context.span_id" in first)
            else 0.0
        )
    text = sample.text
    kind = _KIND_KEY.search(text)
    return 0.97 if kind is not None and _CONTEXT_KEY.search(text) is not None else 0.0


def _first(data: Any) -> Any:
    if isinstance(data, dict):
        for key in CONTAINERS:
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            return data
    return data[0] if isinstance(data, list) and data else None


def read(doc: Document) -> Run:
    """The run of a Phoenix span export (a JSON list, ``{"data": [...]}`` or JSON Lines)."""
    found = (
        walk(doc.data(), CONTAINERS)
        if doc.parsed
        else records(doc.stream(), set(CONTAINERS), doc.name)
    )
    return run_of_spans(spans_of(found, doc.name), doc.name)


def spans_of(
    found: Iterable[tuple[Any, dict[str, Any], str, int | None]], source: str
) -> list[Span]:
    """The spans of the records found, each read by :func:`~planviz.traces.otel.otelspans.span_of`."""
    return [
        span_of(python_shape(raw, where, line, source), {}, where, line, source)
        for raw, _ctx, where, line in found
    ]


def hex_id(value: Any) -> Any:
    """An id as OpenTelemetry's hex text: hex as it is (lowercase, no ``0x``), other text as the first 16 hex
    digits of its SHA-256 (stable: a parent names its child's parent the same way); anything else unchanged
    (:func:`~planviz.traces.otel.otelspans.span_of` says what is wrong with it)."""
    if isinstance(value, str) and value:
        if _HEX.fullmatch(value):
            return value.lower().removeprefix("0x")
        return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return value


def _flatten(prefix: str, value: Any, out: dict[str, Any], depth: int = 0) -> None:
    """OpenInference's dotted attribute names from nested objects and lists of objects."""
    last = prefix.rsplit(".", 1)[-1]
    if (
        depth < 12
        and last not in _VALUES
        and isinstance(value, dict)
        and value
        and all(isinstance(k, str) for k in value)
    ):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, item, out, depth + 1)
    elif (
        depth < 12
        and prefix
        and last not in _VALUES
        and isinstance(value, list)
        and value
        and all(isinstance(item, dict) for item in value)
    ):
        for i, item in enumerate(value):
            _flatten(f"{prefix}.{i}", item, out, depth + 1)
    elif prefix:
        out[prefix] = value


def _time(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _MS_BELOW:
        return value * 1_000_000
    return value


def python_shape(raw: Any, where: str, line: int | None, source: str) -> dict[str, Any]:
    """A Phoenix span (object or dataframe record) as the Python SDK's span JSON (the fields ``span_of`` reads)."""
    raw, bad = span_record(raw, "a Phoenix span object", where, line, source)
    attrs_in = raw.get("attributes")
    if attrs_in is not None and not isinstance(attrs_in, dict):
        raise bad("attributes", f"expected an object of attribute values, got {str(attrs_in)[:60]}")
    attrs: dict[str, Any] = {}
    _flatten("", attrs_in or {}, attrs)
    for key, value in raw.items():  # the span dataframe's flat columns
        if isinstance(key, str) and key.startswith("attributes.") and value is not None:
            _flatten(key[len("attributes.") :], value, attrs)
    ctx = raw.get("context")
    if ctx is None and "context.span_id" in raw:
        ctx = {"span_id": raw.get("context.span_id"), "trace_id": raw.get("context.trace_id")}
    if not isinstance(ctx, dict):
        raise bad("context", f"expected an object with span_id and trace_id, got {str(ctx)[:60]}")
    kind = raw.get("span_kind")
    if isinstance(kind, str) and kind and not isinstance(attrs.get(KIND), str):
        attrs[KIND] = kind.upper()
    events = raw.get("events")
    if events is not None and not isinstance(events, list):
        raise bad("events", f"expected a list of event objects, got {str(events)[:60]}")
    return {
        "name": raw.get("name", ""),
        "context": {"span_id": hex_id(ctx.get("span_id")), "trace_id": hex_id(ctx.get("trace_id"))},
        "parent_id": hex_id(raw.get("parent_id")),
        "start_time": _time(raw.get("start_time")),
        "end_time": _time(raw.get("end_time")),
        "status": {
            "status_code": raw.get("status_code") or "UNSET",
            "description": raw.get("status_message"),
        },
        "attributes": attrs,
        "events": [e for e in events or [] if isinstance(e, dict)],
    }
