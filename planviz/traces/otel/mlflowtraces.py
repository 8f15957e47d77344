"""MLflow traces: ``{"info": ..., "data": {"spans": [...]}}`` as ``mlflow.get_trace(...).to_json()`` writes them.

MLflow spans are OpenTelemetry spans in one of two shapes, with MLflow's own
attributes, every value JSON-encoded (``"mlflow.spanType": "\\"TOOL\\""``):

- **MLflow 3** (trace schema 3): ``span_id``/``trace_id``/``parent_span_id`` as
  base64 of the binary ids, ``start_time_unix_nano``/``end_time_unix_nano``,
  ``status.code`` ``STATUS_CODE_OK``/``STATUS_CODE_ERROR``, events with
  ``time_unix_nano``;
- **MLflow 2**: the OpenTelemetry Python SDK's span JSON (``context`` with
  ``0x`` hex ids, ``parent_id``, ``start_time``/``end_time`` in nanoseconds,
  ``status_code``, ``status_message``).

What planviz reads, by ``mlflow.spanType``:

- ``TOOL``: a tool call, a step: the tool is the span's name, the arguments
  its ``mlflow.spanInputs`` (an object as it is; anything else under
  ``input``), the result its ``mlflow.spanOutputs``;
- ``LLM``, ``CHAT_MODEL`` (``EMBEDDING``): a model call: the model from
  ``mlflow.llm.model``, else the inputs' or outputs' ``model``; tokens from
  ``mlflow.chat.tokenUsage`` (``input_tokens``, ``output_tokens``), else the
  outputs' ``usage`` (OpenAI's ``prompt_tokens``/``completion_tokens`` or
  ``input_tokens``/``output_tokens``); what it answered from its ``mlflow.spanOutputs``
  (an OpenAI chat completion, a message, LangChain's result, text);
- ``AGENT``, ``CHAIN``: the agent; the user's task is read from their inputs
  (a ``messages`` list, a ``question``/``query``/``input`` field, or text);
- ``RETRIEVER``, ``PARSER``, ``UNKNOWN``...: neither steps nor model calls
  (as OpenInference's kinds of the same names).

Each span is turned into the Python SDK's shape with the GenAI attributes
those readings stand for (data, never text) and read by
:func:`~planviz.traces.otel.otelspans.span_of`; a status ERROR and an
``exception`` event fail the step as in :mod:`~planviz.traces.otel.genai`.
A list of traces is read as one run per trace.

>>> from planviz.traces import Sample
>>> detect(Sample.of(b'{"info": {}, "data": {"spans": [{"attributes": '
...                   b'{"mlflow.spanType": "\\\\"TOOL\\\\""}}]}}')) > 0.95
True
>>> span_hex("AAAAAAAAAAE=", 8), span_hex("0x00000000000000ff", 8)
('0000000000000001', '00000000000000ff')
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from planviz.errors import TraceFormatError
from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.otel.genai import run_of_spans
from planviz.traces.otel.openinferencevalues import task
from planviz.traces.otel.otelspans import span_of, span_record
from planviz.traces.otel.phoenix import hex_id

__all__ = ["TITLE", "detect", "read", "python_shape", "span_hex"]

TITLE = "MLflow"
_KEYS = re.compile(r'"mlflow\.(?:spanType|traceRequestId|spanInputs)"\s*:')
_OPERATIONS = {
    "TOOL": "execute_tool",
    "LLM": "chat",
    "CHAT_MODEL": "chat",
    "EMBEDDING": "embeddings",
    "AGENT": "invoke_agent",
    "CHAIN": "invoke_agent",
}
_STATUS = {"STATUS_CODE_OK": "OK", "STATUS_CODE_ERROR": "ERROR", "STATUS_CODE_UNSET": "UNSET"}


def detect(sample: Sample) -> float:
    """Sure when spans carry MLflow's attributes (``mlflow.spanType``...) or the data is an MLflow trace
    (``info`` and ``data.spans``); 0 otherwise. Surer than OpenTelemetry's and OpenInference's readers."""
    if sample.parsed:
        return 0.96 if _traces(sample.data) else 0.0
    return 0.96 if _KEYS.search(sample.text) else 0.0


def _is_trace(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("data"), dict)
        and isinstance(value["data"].get("spans"), list)
        and isinstance(value.get("info", {}), dict)
    )


def _mlflow_spans(spans: Any) -> bool:
    return (
        isinstance(spans, list)
        and bool(spans)
        and isinstance(spans[0], dict)
        and isinstance(spans[0].get("attributes"), dict)
        and "mlflow.spanType" in spans[0]["attributes"]
    )


def _traces(data: Any) -> list[tuple[dict[str, Any], list[Any]]]:
    """``(info, spans)`` of every trace in the data: one trace, a list of traces, a bare ``{"spans": [...]}``
    of MLflow spans or a list of MLflow spans; [] when it is none of these."""
    if _is_trace(data):
        return [(data.get("info") or {}, data["data"]["spans"])]
    if isinstance(data, list) and data and all(_is_trace(t) for t in data):
        return [(t.get("info") or {}, t["data"]["spans"]) for t in data]
    if isinstance(data, dict) and _mlflow_spans(data.get("spans")):
        return [({}, data["spans"])]
    if _mlflow_spans(data):
        return [({}, data)]
    return []


def read(doc: Document) -> Run | tuple[Run, ...]:
    """The run of an MLflow trace (one run per trace of a list of traces)."""
    traces = _traces(doc.data())
    if not traces:
        raise TraceFormatError(
            'not an MLflow trace: expected {"info": ..., "data": {"spans": [...]}} as '
            "mlflow.get_trace(...).to_json() writes it",
            source=doc.name,
        )
    runs = []
    for t, (_info, spans) in enumerate(traces):
        prefix = f"[{t}].data.spans" if len(traces) > 1 else "data.spans"
        shaped = [
            span_of(
                python_shape(raw, f"{prefix}[{i}]", doc.name), {}, f"{prefix}[{i}]", None, doc.name
            )
            for i, raw in enumerate(spans)
        ]
        runs.append(run_of_spans(shaped, doc.name))
    return runs[0] if len(runs) == 1 else tuple(runs)


def span_hex(value: Any, size: int) -> Any:
    """An MLflow id as hex: base64 of ``size`` bytes (MLflow 3), else as :func:`~planviz.traces.otel.phoenix.hex_id`
    reads it (``0x`` hex of MLflow 2; any other text through a stable digest)."""
    if (
        isinstance(value, str)
        and value
        and ("=" in value or not re.fullmatch(r"(?:0x)?[0-9a-fA-F]+", value))
    ):
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == size:
            return raw.hex()
    return hex_id(value)


def _decoded(value: Any) -> Any:
    """An MLflow attribute value: JSON text decoded (MLflow encodes every value), anything else as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None and v != ""), None)


def _usage(attrs: dict[str, Any], outputs: Any) -> dict[str, Any]:
    usage = attrs.get("mlflow.chat.tokenUsage")
    if (
        not isinstance(usage, dict)
        and isinstance(outputs, dict)
        and isinstance(outputs.get("usage"), dict)
    ):
        usage = outputs["usage"]
    if not isinstance(usage, dict):
        return {}
    found = {
        "gen_ai.usage.input_tokens": _first(usage.get("input_tokens"), usage.get("prompt_tokens")),
        "gen_ai.usage.output_tokens": _first(
            usage.get("output_tokens"), usage.get("completion_tokens")
        ),
        "gen_ai.usage.total_tokens": usage.get("total_tokens"),
    }
    return {k: v for k, v in found.items() if v is not None}


def python_shape(raw: Any, where: str, source: str) -> dict[str, Any]:
    """An MLflow span (either shape) as the Python SDK's span JSON, with the GenAI attributes its type means."""
    raw, bad = span_record(raw, "an MLflow span object", where, None, source)
    attrs_in = raw.get("attributes") or {}
    if not isinstance(attrs_in, dict):
        raise bad("attributes", f"expected an object of attribute values, got {str(attrs_in)[:60]}")
    attrs = {k: _decoded(v) for k, v in attrs_in.items()}
    kind = attrs.get("mlflow.spanType")
    operation = _OPERATIONS.get(kind) if isinstance(kind, str) else None
    inputs, outputs = attrs.get("mlflow.spanInputs"), attrs.get("mlflow.spanOutputs")
    name = raw.get("name", "")
    shaped: dict[str, Any] = {}
    if operation is not None:
        shaped["gen_ai.operation.name"] = operation
    if operation == "execute_tool":
        shaped["gen_ai.tool.name"] = name
        shaped["gen_ai.tool.call.arguments"] = (
            inputs if isinstance(inputs, dict) else ({} if inputs is None else {"input": inputs})
        )
        if outputs is not None:
            shaped["gen_ai.tool.call.result"] = outputs
    elif operation in ("chat", "embeddings"):
        model = _first(
            attrs.get("mlflow.llm.model"), inputs.get("model") if isinstance(inputs, dict) else None
        )
        answered = outputs.get("model") if isinstance(outputs, dict) else None
        shaped.update(
            {
                k: v
                for k, v in (("gen_ai.request.model", model), ("gen_ai.response.model", answered))
                if isinstance(v, str) and v
            }
        )
        shaped.update(_usage(attrs, outputs))
        if isinstance(inputs, dict) and isinstance(inputs.get("messages"), list):
            shaped["gen_ai.input.messages"] = inputs["messages"]
        if outputs is not None:  # what it answered: a chat completion, a message, text...
            shaped["gen_ai.output.messages"] = outputs
    elif operation == "invoke_agent":
        goal = task(inputs)
        if goal:
            shaped["gen_ai.input.messages"] = goal
    if "context" in raw:  # MLflow 2: the OpenTelemetry Python SDK's span JSON
        ctx = raw.get("context")
        if not isinstance(ctx, dict):
            raise bad(
                "context", f"expected an object with span_id and trace_id, got {str(ctx)[:60]}"
            )
        ids = {
            "span_id": span_hex(ctx.get("span_id"), 8),
            "trace_id": span_hex(ctx.get("trace_id"), 16),
        }
        parent, start, end = (
            span_hex(raw.get("parent_id"), 8),
            raw.get("start_time"),
            raw.get("end_time"),
        )
        status = {
            "status_code": raw.get("status_code") or "UNSET",
            "description": raw.get("status_message"),
        }
    else:  # MLflow 3
        ids = {
            "span_id": span_hex(raw.get("span_id"), 8),
            "trace_id": span_hex(raw.get("trace_id"), 16),
        }
        parent = span_hex(raw.get("parent_span_id"), 8)
        start, end = raw.get("start_time_unix_nano"), raw.get("end_time_unix_nano")
        state = raw.get("status") or {}
        if not isinstance(state, dict):
            raise bad("status", f"expected an object with code and message, got {str(state)[:60]}")
        code = state.get("code")
        status = {
            "status_code": _STATUS.get(code, code) if isinstance(code, str) else (code or "UNSET"),
            "description": state.get("message"),
        }
    events = raw.get("events") or []
    if not isinstance(events, list):
        raise bad("events", f"expected a list of event objects, got {str(events)[:60]}")
    return {
        "name": name,
        "context": ids,
        "parent_id": parent or None,
        "start_time": start,
        "end_time": end,
        "status": status,
        "attributes": shaped,
        "events": [
            {"name": e.get("name"), "attributes": e.get("attributes") or {}}
            for e in events
            if isinstance(e, dict)
        ],
    }
