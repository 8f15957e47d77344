"""OpenTelemetry JS SDK span objects, and the Vercel AI SDK's ``ai.*`` attributes on them.

The JS SDK's ``ReadableSpan`` serialised as JSON: ``spanContext`` with
``traceId``/``spanId`` (``_spanContext`` when the SDK's span object itself is
``JSON.stringify``'d, as in Copilot's JSON Lines exports), the parent as
``parentSpanContext.spanId`` (SDK 2) or ``parentSpanId`` (SDK 1), times as
``[seconds, nanoseconds]`` hrtime pairs (the end ``startTime`` + ``duration``
when no ``endTime`` is written; ``[0, 0]`` or ``_ended: false``: not ended),
``status.code`` 0/1/2, ``attributes`` a mapping. Each span is turned into the
Python SDK's shape (data, never text) and read by
:func:`~planviz.traces.otel.otelspans.span_of`, so GenAI attributes mean what
they mean in :mod:`~planviz.traces.otel.genai`. The Vercel AI SDK's own
attributes are read too:

- ``ai.operationId`` ending in ``.doGenerate``, ``.doStream`` (``.doEmbed``)
  is a model call; ``ai.toolCall`` is a tool call (``ai.toolCall.name``,
  ``.id``, ``.args``, ``.result``); the other ``ai.*`` operations
  (``ai.generateText``, ``ai.streamText``...) are the agent, their
  ``ai.prompt`` its goal;
- tokens from ``ai.usage.promptTokens``/``completionTokens`` (AI SDK 4) or
  ``ai.usage.inputTokens``/``outputTokens`` (5 and later), with
  ``totalTokens``, ``reasoningTokens`` and ``cachedInputTokens``
  (:mod:`~planviz.traces.tokens`); a call's input and reply from
  ``ai.prompt.messages`` and ``ai.response.text``/``.object``/``.toolCalls``
  (:mod:`~planviz.traces.messages`); the model from
  ``gen_ai.response.model`` (the one that answered), else ``ai.model.id``.

>>> from planviz.traces import Sample
>>> detect(Sample.of(b'[{"name": "ai.generateText", "spanContext": {"spanId": "1"}}]')) > 0.8
True
>>> hrtime([1770131992, 241000000], "startTime", lambda f, why: ValueError(why))
1770131992241000000
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Callable, Iterable

from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.jsonstream import records, walk
from planviz.traces.messages import task
from planviz.traces.otel.genai import run_of_spans
from planviz.traces.otel.otelspans import AGENT, MODEL, Span, span_of, span_record

__all__ = ["TITLE", "detect", "read", "hrtime", "python_shape"]

TITLE = "OpenTelemetry JS"
CONTAINERS = frozenset({"spans", "resourceSpans", "scopeSpans"})
_KEY = re.compile(r'"_?spanContext"\s*:')
_TRACE_ID = re.compile(r'"traceId"\s*:')
_JS_TIME = re.compile(r'"startTime"\s*:\s*[\[\d]|"timestamp"\s*:\s*\d')
_COPY = {  # AI SDK attribute -> the GenAI attribute it stands for (the first one present wins)
    "gen_ai.tool.name": ("ai.toolCall.name",),
    "gen_ai.tool.call.id": ("ai.toolCall.id",),
    "gen_ai.tool.call.arguments": ("ai.toolCall.args",),
    "gen_ai.tool.call.result": ("ai.toolCall.result",),
    "gen_ai.usage.input_tokens": (
        "ai.usage.inputTokens",
        "ai.usage.promptTokens",
        "ai.usage.tokens",
    ),
    "gen_ai.usage.output_tokens": ("ai.usage.outputTokens", "ai.usage.completionTokens"),
    "gen_ai.request.model": ("ai.model.id",),
}


def detect(sample: Sample) -> float:
    """Sure when spans have a ``spanContext`` (the JS SDK's own field name), or flat camelCase ids and JS times
    (``traceId`` with ``spanId`` or ``id``, and ``startTime`` or ``timestamp``; never OTLP's ``startTimeUnixNano``):
    the objects file and console exporters write from a ``ReadableSpan``."""
    if sample.parsed:
        items = sample.data.get("spans") if isinstance(sample.data, dict) else sample.data
        first = items[0] if isinstance(items, list) and items else None
        if isinstance(first, dict) and isinstance(_context(first), dict):
            return 0.9
        return 0.95 if isinstance(first, dict) and _flat(first) else 0.0
    if _KEY.search(sample.text):
        return 0.9
    text = sample.text
    return (
        0.9
        if _TRACE_ID.search(text)
        and _JS_TIME.search(text)
        and "startTimeUnixNano" not in text
        and '"observations"' not in text
        else 0.0
    )


def _context(raw: dict[str, Any]) -> Any:
    """A span's ``spanContext``: the field the exporters write, or the SDK span's own ``_spanContext`` that
    ``JSON.stringify(span)`` writes (its ``spanContext()`` is a method, which JSON leaves out)."""
    return raw.get("spanContext", raw.get("_spanContext"))


def _flat(raw: dict[str, Any]) -> bool:
    """A JS span object with its ids flat (no ``spanContext``): ``traceId``, ``spanId``/``id`` and a JS time."""
    return (
        "traceId" in raw
        and ("spanId" in raw or "id" in raw)
        and "startTimeUnixNano" not in raw
        and ("startTime" in raw or "timestamp" in raw)
    )


def read(doc: Document) -> Run:
    """The run of a file of OpenTelemetry JS span objects."""
    found = (
        walk(doc.data(), CONTAINERS)
        if doc.parsed
        else records(doc.stream(), set(CONTAINERS), doc.name)
    )
    return run_of_spans(spans_of(found, doc.name), doc.name)


def spans_of(
    found: Iterable[tuple[Any, dict[str, Any], str, int | None]], source: str
) -> list[Span]:
    """The spans; an AI SDK call (``ai.generateText``...) with usage and no model call (``.doGenerate``,
    ``.doStream``) starting inside it is itself the model call."""
    spans = [
        span_of(python_shape(raw, where, line, source), {}, where, line, source)
        for raw, _ctx, where, line in found
        if not (
            isinstance(raw, dict) and isinstance(raw.get("type"), str) and raw["type"] != "span"
        )
    ]
    starts = sorted(s.start for s in spans if s.operation == MODEL)
    for s in spans:
        if (
            s.operation == AGENT
            and s.name.startswith("ai.")
            and (s.input_tokens is not None or s.output_tokens is not None)
        ):
            # a model call starting inside it: it only wraps that call
            i = bisect.bisect_left(starts, s.start)
            if not (i < len(starts) and (s.end is None or starts[i] <= s.end)):
                s.operation, s.model = MODEL, s.model or s.name
    return spans


def hrtime(value: Any, field: str, bad: Callable[[str, str], Exception]) -> int | None:
    """An hrtime ``[seconds, nanoseconds]`` as integer nanoseconds (None when absent)."""
    if value is None:
        return None
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        and 0 <= value[0] < 1 << 34
        and 0 <= value[1] < 1_000_000_000
    ):
        nanos: int = value[0] * 1_000_000_000 + value[1]
        return nanos
    unit = (
        "; read as OpenTelemetry JS span objects (camelCase ids, here without spanContext), but a plain "
        "number's unit is not stated: planviz reads a JS span's startTime/endTime as the SDK's [seconds, "
        "nanoseconds] pairs, or the console exporter's timestamp and duration in microseconds"
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else ""
    )
    raise bad(
        field,
        f"expected [seconds, nanoseconds] (two whole numbers, nanoseconds below 1e9), got "
        f"{str(value)[:60]}{unit}",
    )


def _micros(value: Any, field: str, bad: Callable[[str, str], Exception]) -> int | None:
    """Microseconds (the console exporter's ``timestamp`` and ``duration``) as integer nanoseconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1 << 53:
        return round(value * 1000)
    raise bad(
        field,
        f"expected microseconds (a number, as the console exporter writes it), got {str(value)[:60]}",
    )


def python_shape(raw: Any, where: str, line: int | None, source: str) -> dict[str, Any]:
    """A JS span object as the Python SDK's span JSON (the fields :func:`span_of` reads)."""
    raw, bad = span_record(raw, "a span object", where, line, source)
    ctx = _context(raw)
    # a file exporter's flat ids (Copilot Chat), the console exporter's "id"
    if ctx is None and _flat(raw):
        ctx = {"traceId": raw.get("traceId"), "spanId": raw.get("spanId", raw.get("id"))}
    if not isinstance(ctx, dict):
        raise bad("spanContext", f"expected an object with traceId and spanId, got {str(ctx)[:60]}")
    parent = raw.get("parentSpanContext")
    parent_id = (
        parent.get("spanId")
        if isinstance(parent, dict)
        else raw.get("parentSpanId", raw.get("parentId"))
    )
    attrs = raw.get("attributes") or {}
    if not isinstance(attrs, dict):
        raise bad("attributes", f"expected an object of attribute values, got {str(attrs)[:60]}")
    attrs = dict(attrs)
    op = attrs.get("ai.operationId")
    if isinstance(op, str) and "gen_ai.operation.name" not in attrs:
        if op.endswith((".doGenerate", ".doStream")):
            attrs["gen_ai.operation.name"] = "chat"
        elif op.endswith(".doEmbed"):
            attrs["gen_ai.operation.name"] = "embeddings"
        elif op == "ai.toolCall":
            attrs["gen_ai.operation.name"] = "execute_tool"
        elif op.startswith("ai."):
            attrs["gen_ai.operation.name"] = "invoke_agent"
            goal = task(attrs.get("ai.prompt"))
            if goal and "gen_ai.input.messages" not in attrs:
                attrs["gen_ai.input.messages"] = goal
    for name, sources in _COPY.items():
        if name not in attrs:
            value = next((attrs[k] for k in sources if attrs.get(k) is not None), None)
            if value is not None:
                attrs[name] = value
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise bad("status", f"expected an object, got {str(status)[:60]}")
    code = status.get("code", 0)
    if "startTime" not in raw and "timestamp" in raw:  # the console exporter: microseconds
        start, end = _micros(raw.get("timestamp"), "timestamp", bad), None
        length = (
            _micros(raw.get("duration"), "duration", bad)
            if raw.get("duration") is not None
            else None
        )
        end = start + length if start is not None and length is not None else None
    else:
        start, end = (
            hrtime(raw.get("startTime"), "startTime", bad),
            hrtime(raw.get("endTime"), "endTime", bad),
        )
        # JSON.stringify(span) of a span not ended: [0, 0]
        if raw.get("_ended") is False or end == 0:
            end = None
        length = next((raw[k] for k in ("duration", "_duration") if k in raw), None)
        if (
            end is None
            and raw.get("_ended") is not False
            and start is not None
            and length is not None
        ):
            if length != [-1, -1]:  # the SDK's duration before the span ended
                end = start + (hrtime(length, "duration", bad) or 0)
    return {
        "name": raw.get("name", ""),
        "context": {"span_id": ctx.get("spanId"), "trace_id": ctx.get("traceId")},
        "parent_id": parent_id,
        "start_time": start,
        "end_time": end,
        "status": {"status_code": code, "description": status.get("message")},
        "attributes": attrs,
        "events": raw.get("events") or [],
    }
