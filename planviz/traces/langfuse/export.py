"""Langfuse trace exports: ``{"trace": {...}, "observations": [...]}``, the shape of Langfuse's public API
(``GET /api/public/traces/{id}``) and of its "download trace" button; also a page of the observations API
(``{"data": [observations], "meta": {...}}``) or a bare list of observations, one run per trace.

Each observation becomes a span (data, never text) and the spans are read by
:func:`~planviz.traces.otel.genai.run_of_spans`, like OpenTelemetry's:

- ``GENERATION`` observations are model calls: tokens by kind from
  ``usageDetails`` (``input``, ``output``, ``output_reasoning``, ``input_cache_read``,
  ``total``: :mod:`~planviz.traces.tokens`), cost from ``costDetails.total``
  (an export without them: ``inputUsage``/``outputUsage``/``totalUsage``,
  ``totalCost``), the model from ``model``, what the call was given and answered
  from its ``input`` and ``output`` (:mod:`~planviz.traces.messages`);
- ``TOOL`` observations are tool calls (steps), and so are ``SPAN``,
  ``AGENT`` or ``CHAIN`` observations that are tool calls by their metadata,
  an object or JSON text (:mod:`~planviz.traces.toolcalls`: OpenTelemetry
  attributes ``openinference.span.kind`` TOOL, ``gen_ai.operation.name``
  execute_tool, ``gen_ai.tool.name``/``gen_ai.tool.call.id`` with no operation
  name, or a LangGraph ``tools`` node's child); the arguments are the
  observation's ``input`` (unwrapped from ``args``/``kwargs``), the result its
  ``output`` (JSON text decoded);
- ``parentObservationId`` is the nesting; ``startTime``/``endTime`` the times
  (no end: still running, unless it returned, with its ``output``, under an
  observation that ended or in a trace whose ``latency`` says when it ended:
  :mod:`~planviz.traces.calltimes`; a generation's ``completionStartTime``
  is a moment it was alive); ``level: ERROR`` (with ``statusMessage``) a failure;
- a lifecycle written as several observations (BeeAI's ``X.start-12``,
  ``X.success-12``, ``X.finish-12``; its arguments in the start's
  ``tool.parameters``) is one call, from its start to its last
  ``success``/``error``/``finish`` observation (the start observation's own
  end is the run's: BeeAI closes them all at the end);
- the goal is the trace's ``input`` (else the first agent's).

>>> from planviz.traces import Sample
>>> detect(Sample.of(b'{"trace": {"id": "t"}, "observations": [{"id": "o", "type": "SPAN"}]}'))
0.98
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from planviz.errors import TraceFormatError
from planviz.io.syntax import show_value
from planviz.runs.events import Run
from planviz.runs.modelcall import FIGURES
from planviz.traces import Document, Sample, calltimes, toolcalls
from planviz.traces.messages import last_input, reply, task
from planviz.traces.otel.genai import run_of_spans
from planviz.traces.otel.openinferencevalues import arguments
from planviz.traces.otel.otelspans import (
    AGENT,
    MODEL,
    SHORT,
    TOOL,
    Span,
    _brief,
    _value,
    leaves,
)
from planviz.traces.otel.otlpvalues import nanos, number, otel_id
from planviz.traces.tokens import USAGE_DETAILS, tokens_of

__all__ = ["TITLE", "detect", "read", "spans_of"]

TITLE = "Langfuse"
_KEYS = re.compile(r'"(observations|parentObservationId)"\s*:')
_LIFECYCLE = re.compile(r"^(?P<stem>.+)\.(?P<phase>start|success|finish|error)-(?P<n>\d+)$")
_TYPES = {
    "GENERATION": MODEL,
    "TOOL": TOOL,
    "AGENT": AGENT,
    "CHAIN": AGENT,
    "SPAN": None,
    "EVENT": None,
    "EMBEDDING": MODEL,
    "RETRIEVER": None,
    "EVALUATOR": None,
    "GUARDRAIL": None,
}


def _is_observation(o: Any) -> bool:
    """An item of Langfuse's observations API: a known ``type``, a ``startTime`` and its trace or parent."""
    return (
        isinstance(o, dict)
        and o.get("type") in _TYPES
        and "startTime" in o
        and ("traceId" in o or "parentObservationId" in o)
    )


def _observation_list(data: Any) -> list[Any] | None:
    """The observations of a page of Langfuse's observations API (``{"data": [...], "meta": {...}}``, what
    ``GET /api/public/observations?traceId=...`` answers) or of a bare list of them; None for anything else."""
    items = data.get("data") if isinstance(data, dict) and "observations" not in data else data
    if isinstance(items, list) and items and all(_is_observation(o) for o in items):
        return items
    return None


def detect(sample: Sample) -> float:
    """Sure for an object holding ``observations`` (with ``trace``, or observations naming their parents), and
    for a page of the observations API or a bare list of observations."""
    if sample.parsed:
        data = sample.data
        if isinstance(data, dict) and isinstance(data.get("observations"), list):
            return 0.98
        return 0.95 if _observation_list(data) is not None else 0.0
    # surer than the OpenTelemetry attributes its metadata may hold
    found = _KEYS.search(sample.text)
    # a bare list of observations: they name their parents
    if found and sample.text.startswith("["):
        return 0.97 if found.group(1) == "parentObservationId" else 0.0
    return 0.98 if found and sample.text.startswith("{") else 0.0


def read(doc: Document) -> Run | tuple[Run, ...]:
    """The run of a Langfuse trace export; of a list of observations, one run per trace they belong to (in
    the order each trace first appears; a list without trace ids is one run)."""
    data = doc.data()
    listed = _observation_list(data)
    if listed is not None:
        traces: dict[Any, list[Any]] = {}
        for o in listed:
            traces.setdefault(o.get("traceId"), []).append(o)
        runs = tuple(
            run_of_spans(spans, doc.name)
            for spans in (spans_of({"observations": obs}, doc.name) for obs in traces.values())
        )
        return runs[0] if len(runs) == 1 else runs
    if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
        raise TraceFormatError(
            'expected a Langfuse trace export: an object with "observations" (a list) and '
            f'"trace", or a page of the observations API ({{"data": [...]}}), got {show_value(data)}',
            source=doc.name,
        )
    spans = spans_of(data, doc.name)
    return run_of_spans(spans, doc.name, ended(data.get("trace"), spans))


def ended(trace: Any, spans: list[Span]) -> int | None:
    """When the trace ended by its own ``latency`` (seconds from its first observation's start to its last
    moment, as Langfuse computes it), None when it states none: the bound of a call it exported unended."""
    latency = trace.get("latency") if isinstance(trace, dict) else None
    if (
        not spans
        or isinstance(latency, bool)
        or not isinstance(latency, (int, float))
        or not 0 <= latency < 1e9
    ):
        return None
    return min(s.start for s in spans) + round(latency * 1e9)


# metadata.attributes, whether metadata is an object or JSON text
_attributes = toolcalls.attributes


def _operation(o: dict[str, Any]) -> str | None:
    if toolcalls.observation(o):  # TOOL, or a tool call by its attributes or its LangGraph node
        return TOOL
    kind = o.get("type")
    return _TYPES.get(kind) if isinstance(kind, str) else None


def spans_of(data: dict[str, Any], source: str) -> list[Span]:
    """The observations of a Langfuse export as spans (lifecycle observations of one call merged)."""
    trace = data["trace"] if isinstance(data.get("trace"), dict) else {}
    spans: list[Span] = []
    merged: dict[tuple[str, str, str], Span] = {}
    ended: dict[
        tuple[str, str, str], int
    ] = {}  # a lifecycle's end: its last success/error/finish observation's start
    for i, o in enumerate(data["observations"]):
        where = f"observations[{i}]"

        def bad(field: str, why: str, where: str = where) -> TraceFormatError:
            return TraceFormatError(why, source=source, path=f"{where}.{field}")

        if not isinstance(o, dict):
            raise TraceFormatError(
                f"expected an observation object, got {show_value(o)}", source=source, path=where
            )
        name = o["name"] if isinstance(o.get("name"), str) else ""
        operation = _operation(o)
        details, cost = _usage(o)
        usage = tokens_of(details, USAGE_DETAILS, lambda key, why: bad(f"usageDetails.{key}", why))
        level = o.get("level")
        message = o["statusMessage"] if isinstance(o.get("statusMessage"), str) else ""
        failed = level == "ERROR" or bool(
            (stage := _LIFECYCLE.match(name)) and stage["phase"] == "error"
        )
        tool = None
        if operation == TOOL:
            attrs = _attributes(o)
            tool = attrs.get("gen_ai.tool.name") or attrs.get("tool.name") or _tool_name(name)
        result = _value(o.get("output")) if operation == TOOL else None
        model = o.get("model") if isinstance(o.get("model"), str) and o.get("model") else None
        span = Span(
            span_id=otel_id(_hex(o.get("id")), "id", bad, required=True),
            trace_id=None,
            parent_id=otel_id(_hex(o.get("parentObservationId")), "parentObservationId", bad),
            name=name,
            start=nanos(o.get("startTime"), "startTime", bad, required=True),
            end=nanos(o.get("endTime"), "endTime", bad),
            status="error" if failed else "ok",
            clues=calltimes.clues(
                (),
                _attributes(o),
                None,
                o.get("completionStartTime"),
                o.get("output") not in (None, ""),
                bad,
            )
            if operation == MODEL
            else None,
            message=message[:SHORT],
            operation=operation,
            tool=str(tool) if tool is not None else None,
            call_id=str(_attributes(o).get("gen_ai.tool.call.id") or "") or None,
            arguments=_arguments(o, name) if operation == TOOL else None,
            result=None if result is None else _brief(result),
            leaves=frozenset(leaves(result) - leaves(o.get("input")))
            if result is not None
            else frozenset(),
            agent=None,
            model=(model or name) if operation == MODEL else None,
            input_tokens=usage.input,
            output_tokens=usage.output,
            reasoning_tokens=usage.reasoning,
            cached_tokens=usage.cached,
            total_tokens=usage.total,
            value=toolcalls.kept(result),
            input_text=last_input(o.get("input")) if operation == MODEL else None,
            output_text=reply(o.get("output")) if operation == MODEL else None,
            cost=number(cost, f"{where}.costDetails.total", bad),
            error="ERROR" if failed else "",
            goal=None,
            goal_rank=0,
            convention="langfuse",
            where=where,
            line=None,
            deviations=(),
        )
        phase = _LIFECYCLE.match(name)
        if phase is not None and operation in (TOOL, MODEL):
            key = (operation, phase["stem"], phase["n"])
            if phase["phase"] != "start":  # the moment the call succeeded, failed or finished
                ended[key] = max(ended.get(key, span.start), span.start)
            first = merged.get(key)
            if first is not None:
                _merge(first, span)
                continue
            merged[key] = span
        spans.append(span)
    for (
        key,
        at,
    ) in ended.items():  # not the start observation's end: BeeAI ends them all with the run
        merged[key].end = max(at, merged[key].start)
    goal = task(trace.get("input"))
    if goal:
        root = next((s for s in spans if s.operation == AGENT), None) or (
            spans[0] if spans else None
        )
        if root is not None:
            root.goal, root.goal_rank = goal[:SHORT], -1
    else:  # the first agent's input, else the first model call's user message
        for kind in (AGENT, MODEL):
            found = next(
                (
                    (s, g)
                    for s, o in zip(spans, data["observations"])
                    if s.operation == kind and isinstance(o, dict) and (g := task(o.get("input")))
                ),
                None,
            )
            if found is not None:
                found[0].goal = found[1][:SHORT]
                break
    if trace.get("name") and spans and not any(s.agent for s in spans):
        spans[0].agent = str(trace["name"])[:200]
    return spans


def _arguments(o: dict[str, Any], name: str) -> dict[str, Any]:
    """A tool call's arguments: its ``input``; a BeeAI lifecycle observation, which has none, holds them in
    ``tool.parameters`` (elsewhere the tool's JSON schema, which has ``type``/``properties``: never read so)."""
    found = arguments(o.get("input"))
    params = _attributes(o).get("tool.parameters")
    if (
        not found
        and _LIFECYCLE.match(name)
        and isinstance(params, dict)
        and params
        and not {"type", "properties", "$schema"} & params.keys()
    ):
        return dict(params)
    return found


def _usage(o: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """An observation's tokens (``input``, ``output``) and total cost: ``usageDetails`` and ``costDetails``, else
    (an export that has not them: the UI's flat columns, the API's legacy ``usage``) ``inputUsage`` /
    ``outputUsage`` and ``totalCost`` / ``calculatedTotalCost``."""
    if isinstance(o.get("usageDetails"), dict):
        usage = o["usageDetails"]
    elif isinstance(o.get("usage"), dict):
        usage = o["usage"]
    else:
        usage = {
            k: o[f]
            for k, f in (
                ("input", "inputUsage"),
                ("output", "outputUsage"),
                ("total", "totalUsage"),
            )
            if o.get(f) is not None
        }
    if isinstance(o.get("costDetails"), dict):
        return usage, o["costDetails"].get("total")
    cost = o.get("totalCost", o.get("calculatedTotalCost"))
    if cost is None and isinstance(o.get("usage"), dict):
        cost = o["usage"].get("totalCost")
    return usage, cost


def _merge(first: Span, later: Span) -> None:
    """One call written as several lifecycle observations: its times span them all, its tokens and result
    are whichever recorded them, a failure in any fails it."""
    first.start = min(first.start, later.start)
    if first.end is not None and later.end is not None:
        first.end = max(first.end, later.end)
    for name in (
        *FIGURES,
        "result",
        "value",
        "model",
        "input_text",
        "output_text",
    ):
        if getattr(first, name) is None and getattr(later, name) is not None:
            setattr(first, name, getattr(later, name))
    first.leaves = first.leaves | later.leaves
    if not first.arguments and later.arguments:
        first.arguments = later.arguments
    if later.status == "error":
        first.status, first.message, first.error = (
            "error",
            later.message or first.message,
            later.error,
        )


def _tool_name(name: str) -> str:
    phase = _LIFECYCLE.match(name)
    stem = phase["stem"] if phase else name
    return stem.removeprefix("tool.").removeprefix("execute_tool ") or "tool"


def _hex(value: Any) -> Any:
    """Langfuse ids are free text (OTel hex, UUIDs, ``bs-001``): hex ones as they are, others hashed to hex."""
    if not isinstance(value, str) or not value:
        return value
    text = value.lower().replace("-", "")
    if re.fullmatch(r"[0-9a-f]{1,32}", text):
        return text
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
