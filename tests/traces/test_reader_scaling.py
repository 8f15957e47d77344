"""Item 8 of issue 42: every span reader does linear work. For each format not covered elsewhere (OpenInference,
Phoenix, MLflow, OTel JS: its file exporter's lines and the Vercel AI SDK's span objects, Langfuse, OTLP protobuf),
a run of n turns (one model call, then one tool call with its arguments and result, under one agent root) is built
from a real file of that format (tests/data/real, SOURCES.md): its root, its first model span and a tool span are
copied, with fresh unique ids (span ids and tool-call ids) and increasing times. ``load_trace`` at n and 4n turns
is counted in work, not seconds (Python calls and items sorted, ``_work``/``_linear`` of tests/test_bad_input_4.py):
4n costs at most 5 times n. And every tool call written is read: the count of tool spans in the raw file written
equals the run's tool calls, and each holds its arguments.

A per-span ``sorted`` of the spans read before, or a Python-level scan of them, fails it; a scan that calls no
Python function (``x in a_list``), or a Python scan on 1 span in 20 (4.5 times the calls at 4n), is not seen by
``_work``, a count of the whole: tests/traces/test_reader_work.py counts each line and each C function of the same
readers and fails on both.

(LangGraph JSON histories, SQLite checkpoints, planviz's own JSON Lines, OTel GenAI, TaskBench and LLMCompiler
have theirs: tests/test_bad_input_4.py, tests/traces/test_sqlitesaver.py, tests/traces/test_otel_scaling.py.)"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from planviz import load_trace, run_usage
from tests.test_bad_input_4 import _linear, _work

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
T0 = 1_796_600_000_000_000_000  # ns; each turn takes 10 ms: model call [0, 4] ms, tool call [5, 9] ms
TURN, N = 10_000_000, 200


def _iso(ns: int, ms: bool = False) -> str:
    moment = datetime.fromtimestamp(ns // 1000 / 1e6, tz=timezone.utc)
    if ms:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.isoformat()


def _renamed(value: Any, names: dict) -> Any:
    """``value`` with every string (or integer id) equal to a key of ``names`` replaced by its value."""
    if isinstance(value, dict):
        return {k: _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    if isinstance(value, (str, int)) and not isinstance(value, bool) and value in names:
        return names[value]
    return value


@dataclass(frozen=True)
class Shape:
    """How one format writes a span: where its records are, its ids, its times, its tool spans."""

    template: str  # the real file, under tests/data/real
    records: Callable[[Any], list]  # the span records of the parsed file
    # the parsed file with these records, written to a path
    write: Callable[[Any, list, Path], None]
    role: Callable[[dict], str | None]  # "root", "model", "tool" or None
    span_id: Callable[[dict], Any]
    new_id: Callable[[int], Any]  # a fresh unique span id, from a counter
    parent: Callable[[dict, Any], None]  # set the parent's id (None: the root)
    times: Callable[[dict, int, int], None]  # set start and end (ns)
    # the tool-call ids a record names, replaced by fresh ones each turn (None: a tool span not to copy, e.g. the
    # template's failing one, or one without a result)
    call_ids: Callable[[dict], list | None]
    tools: Callable[[Path], int]  # the tool spans of the file written, read from its raw text
    suffix: str = ".json"
    reads_as: str | None = None  # the run's trace_format, when not the format's name
    load: Callable[[], Any] | None = None  # the parsed template, when not one file read whole


def _build(shape: Shape, n: int, path: Path) -> None:
    text = (REAL / shape.template).read_text(encoding="utf-8")
    if shape.load is not None:
        doc: Any = shape.load()
    elif shape.suffix == ".jsonl":
        doc = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        doc = json.loads(text)
    records = shape.records(doc)
    root = copy.deepcopy(next(r for r in records if shape.role(r) == "root"))
    model = next(r for r in records if shape.role(r) == "model")
    tool = next(r for r in records if shape.role(r) == "tool" and shape.call_ids(r) is not None)
    shape.parent(root, None)
    shape.times(root, T0, T0 + n * TURN + 1_000_000)
    root_id = shape.span_id(root)
    out, counter = [root], 0
    for i in range(n):
        for record, start, end in ((model, 0, 4), (tool, 5, 9)):
            counter += 1
            names = {shape.span_id(record): shape.new_id(counter)}
            calls = (shape.call_ids(model) or []) + (shape.call_ids(tool) or [])
            names.update({c: f"call_{i:06d}" for c in calls})
            fresh = _renamed(copy.deepcopy(record), names)
            shape.parent(fresh, root_id)
            shape.times(fresh, T0 + i * TURN + start * 1_000_000, T0 + i * TURN + end * 1_000_000)
            out.append(fresh)
    shape.write(doc, out, path)


def _hex(k: int) -> str:
    return f"{k:016x}"


def _json_list(key: str | None):
    def write(doc, records, path):
        if key is None:
            doc = records
        else:
            doc[key] = records
        path.write_text(json.dumps(doc), encoding="utf-8")

    return write


def _kinds(path: Path, key: str | None, kind: Callable[[dict], Any], tool: str) -> int:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return sum(kind(r) == tool for r in (doc if key is None else doc[key]))


# -- OpenInference: OTel SDK span JSON with openinference.span.kind (any-agent, OpenAI Agents SDK) ------------------
def _oi_parent(r, p):
    r["parent"] = {
        **(r.get("parent") or r["context"]),
        "span_id": p,
        "trace_id": p and r["context"]["trace_id"],
    }


def _oi_times(r, s, e):
    r["start_time"], r["end_time"] = s, e


OPENINFERENCE = Shape(
    template="openinference/any-agent_OPENAI_openinference.json",
    records=lambda d: d["spans"],
    write=_json_list("spans"),
    role=lambda r: (
        {"AGENT": "root", "LLM": "model", "TOOL": "tool"}.get(
            r["attributes"].get("openinference.span.kind")
        )
        if r["name"] != "Agent workflow"
        else None
    ),
    span_id=lambda r: r["context"]["span_id"],
    new_id=lambda k: 10**15 + k,
    parent=_oi_parent,
    times=_oi_times,
    call_ids=lambda r: [] if "output.value" in r["attributes"] else None,  # the tool with a result
    tools=lambda p: _kinds(
        p, "spans", lambda r: r["attributes"].get("openinference.span.kind"), "TOOL"
    ),
)


# -- Phoenix: the span list Phoenix's client writes (ISO times, parent_id, span_kind) -------------------------------
def _px_parent(r, p):
    if p is None:
        r.pop("parent_id", None)
    else:
        r["parent_id"] = p


def _px_times(r, s, e):
    r["start_time"], r["end_time"] = _iso(s), _iso(e)


def _px_calls(r):
    a = r["attributes"]
    return [v for k, v in a.items() if k.endswith("tool_call.id") or k == "tool.id"]


PHOENIX = Shape(
    template="phoenix/atif_simple_trajectory.spans.json",
    records=lambda d: d,
    write=_json_list(None),
    role=lambda r: {"AGENT": "root", "LLM": "model", "TOOL": "tool"}.get(r["span_kind"]),
    span_id=lambda r: r["context"]["span_id"],
    new_id=_hex,
    parent=_px_parent,
    times=_px_times,
    call_ids=_px_calls,
    tools=lambda p: _kinds(p, None, lambda r: r["span_kind"], "TOOL"),
)


# -- MLflow 3: Trace.to_json {info, data: {spans}} (base64 ids, JSON-encoded attribute values) ----------------------
def _ml_parent(r, p):
    r["parent_span_id"] = p


def _ml_times(r, s, e):
    r["start_time_unix_nano"], r["end_time_unix_nano"] = s, e


def _ml_write(doc, records, path):
    doc["data"]["spans"] = records
    path.write_text(json.dumps(doc), encoding="utf-8")


def _ml_tools(path):
    spans = json.loads(path.read_text(encoding="utf-8"))["data"]["spans"]
    return sum(json.loads(s["attributes"]["mlflow.spanType"]) == "TOOL" for s in spans)


MLFLOW = Shape(
    template="mlflow/tool_agent.mlflow3.json",
    records=lambda d: d["data"]["spans"],
    write=_ml_write,
    role=lambda r: {'"AGENT"': "root", '"CHAT_MODEL"': "model", '"TOOL"': "tool"}.get(
        r["attributes"]["mlflow.spanType"]
    ),
    span_id=lambda r: r["span_id"],
    new_id=lambda k: base64.b64encode(k.to_bytes(8, "big")).decode(),
    parent=_ml_parent,
    times=_ml_times,
    # the tool that worked
    call_ids=lambda r: [] if r["status"]["code"] == "STATUS_CODE_OK" else None,
    tools=_ml_tools,
)


# -- OTel JS: SDK span objects one a line (the file exporter's serializeSpan: [s, ns] times, parentSpanId) ----------
def _js_parent(r, p):
    if p is None:
        r.pop("parentSpanId", None)
    else:
        r["parentSpanId"] = p


def _js_times(r, s, e):
    r["startTime"], r["endTime"] = [s // 10**9, s % 10**9], [e // 10**9, e % 10**9]
    r["duration"] = [(e - s) // 10**9, (e - s) % 10**9]


def _js_write(doc, records, path):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _js_tools(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(
        json.loads(x)["attributes"].get("gen_ai.operation.name") == "execute_tool" for x in lines
    )


OTELJS = Shape(
    template="otel-js/copilot_file_exporter.jsonl",
    records=lambda d: d,
    write=_js_write,
    role=lambda r: {"invoke_agent": "root", "chat": "model", "execute_tool": "tool"}.get(
        r["attributes"].get("gen_ai.operation.name")
    ),
    span_id=lambda r: r["spanId"],
    new_id=_hex,
    parent=_js_parent,
    times=_js_times,
    call_ids=lambda r: (
        [r["attributes"]["gen_ai.tool.call.id"]]
        if "gen_ai.tool.call.result" in r["attributes"]
        else ([] if "gen_ai.tool.call.id" not in r["attributes"] else None)
    ),
    tools=_js_tools,
    suffix=".jsonl",
)


# -- OTel JS, the Vercel AI SDK's span objects (spanContext, parentSpanContext, ai.* attributes) -------------------
def _vercel() -> list:
    """The root (ai.streamText) and the model call (ai.streamText.doStream) of the real capture, and a tool call
    in the SDK's ai.toolCall shape (its attributes as tests/traces/test_langfuse.py ``_js`` writes them: the real
    captures hold no tool call) in the model call's envelope."""

    def first(name):
        return json.loads((REAL / "otel-js" / name).read_text(encoding="utf-8"))[0]

    root, model = first("ai-streamText.json"), first("ai-streamText-doStream.json")
    tool = {**copy.deepcopy(model), "name": "ai.toolCall", "events": []}
    tool["spanContext"]["spanId"] = "00000000000000aa"
    tool["attributes"] = {
        "operation.name": "ai.toolCall",
        "ai.operationId": "ai.toolCall",
        "ai.toolCall.name": "weather",
        "ai.toolCall.id": "call_1",
        "ai.toolCall.args": '{"city": "Oslo"}',
        "ai.toolCall.result": '"sunny"',
    }
    return [root, model, tool]


def _vc_parent(r, p):
    r["spanContext"]["traceId"] = "8185b815e471184c6525a601a042be42"  # the root's trace
    if p is None:
        r.pop("parentSpanContext", None)
    else:
        r["parentSpanContext"] = {"traceId": r["spanContext"]["traceId"], "spanId": p}


def _vc_times(r, s, e):
    r["startTime"], r["endTime"] = [s // 10**9, s % 10**9], [e // 10**9, e % 10**9]


OTELJS_VERCEL = Shape(
    template="otel-js/ai-streamText.json",
    load=_vercel,
    records=lambda d: d,
    write=_json_list(None),
    role=lambda r: {
        "ai.streamText": "root",
        "ai.streamText.doStream": "model",
        "ai.toolCall": "tool",
    }.get(r["attributes"]["ai.operationId"]),
    span_id=lambda r: r["spanContext"]["spanId"],
    new_id=_hex,
    parent=_vc_parent,
    times=_vc_times,
    call_ids=lambda r: (
        [r["attributes"]["ai.toolCall.id"]] if "ai.toolCall.id" in r["attributes"] else []
    ),
    tools=lambda p: _kinds(p, None, lambda r: r["attributes"]["ai.operationId"], "ai.toolCall"),
    reads_as="otel-js",
)


# -- Langfuse: an export {trace, observations} (ISO times to the millisecond, parentObservationId) ------------------
def _lf_parent(r, p):
    r["parentObservationId"] = p


def _lf_times(r, s, e):
    r["startTime"], r["endTime"], r["latency"] = (
        _iso(s, ms=True),
        _iso(e, ms=True),
        (e - s) // 10**6,
    )


LANGFUSE = Shape(
    template="langfuse/pydantic-ai-tools-2025-12-04.json",
    records=lambda d: d["observations"],
    write=_json_list("observations"),
    role=lambda r: (
        "root"
        if r["parentObservationId"] is None
        else {"GENERATION": "model", "TOOL": "tool"}.get(r["type"])
    ),
    span_id=lambda r: r["id"],
    new_id=_hex,
    parent=_lf_parent,
    times=_lf_times,
    call_ids=lambda r: [],
    tools=lambda p: _kinds(p, "observations", lambda r: r["type"], "TOOL"),
)


# -- OTLP protobuf: the SDK span JSON of an OTel GenAI run, written as one ExportTraceServiceRequest -----------------
def _pb_parent(r, p):
    r["parent"] = None if p is None else {**r["context"], "span_id": p}


def _pb_write(doc, records, path):
    from tests.traces.test_otlpproto import _request

    path.write_bytes(_request(records))


def _pb_tools(path):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest.FromString(path.read_bytes())
    return sum(
        any(
            a.key == "gen_ai.operation.name" and a.value.string_value == "execute_tool"
            for a in s.attributes
        )
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    )


OTLP_PROTO = Shape(
    template="otel/any-agent_GOOGLE_trace.json",
    records=lambda d: d["spans"],
    write=_pb_write,
    role=lambda r: {"invoke_agent": "root", "call_llm": "model", "execute_tool": "tool"}.get(
        r["attributes"].get("gen_ai.operation.name")
    ),
    span_id=lambda r: r["context"]["span_id"],
    new_id=lambda k: 10**15 + k,
    parent=_pb_parent,
    times=_oi_times,
    call_ids=lambda r: (
        [r["attributes"]["gen_ai.tool.call.id"]] if "gen_ai.tool.call.id" in r["attributes"] else []
    ),
    tools=_pb_tools,
    suffix=".pb",
    reads_as="otel",  # the spans the request holds are read as OTel GenAI spans
)

SHAPES = {
    "openinference": OPENINFERENCE,
    "phoenix": PHOENIX,
    "mlflow": MLFLOW,
    "otel-js": OTELJS,
    "otel-js-vercel": OTELJS_VERCEL,
    "langfuse": LANGFUSE,
    "otlp-proto": OTLP_PROTO,
}


@pytest.mark.parametrize("fmt", sorted(SHAPES))
def test_each_reader_does_linear_work_and_reads_every_tool_call(fmt, tmp_path):
    shape = SHAPES[fmt]
    if fmt == "otlp-proto":
        pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    work = {}
    for n in (N, 4 * N):
        path = tmp_path / f"run_{n}{shape.suffix}"
        _build(shape, n, path)
        assert shape.tools(path) == n  # the raw file written: n tool spans
        run = load_trace(path)  # imports and caches out of the count
        assert run.trace_format == (shape.reads_as or fmt)
        assert all(step.arguments for step in run.plan.steps)  # each call's arguments read
        assert run_usage(run).tool_calls == n and len(run.model_calls) == n, (
            run_usage(run).tool_calls,
            len(run.model_calls),
        )
        assert len(run.plan.ids) == n  # a step per tool call
        work[n] = _work(lambda p=path: load_trace(p))
    _linear(work[N], work[4 * N])
