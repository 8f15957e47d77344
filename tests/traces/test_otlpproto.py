"""OTLP protobuf trace files: real span traces (tests/data/real/otel, SOURCES.md) written here as the
``ExportTraceServiceRequest`` an exporter sends, alone and in the Collector file exporter's length-delimited
layout. Before, ``load_trace`` refused them ("this is a binary file, not a trace"). The truth is the raw span
JSON each message is built from: its tool spans, model spans, tokens and times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pb = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

from planviz import load_trace, load_traces, run_usage  # noqa: E402
from planviz.errors import TraceFormatError  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "otel"
FILES = sorted(p.name for p in REAL.glob("any-agent_*.json"))


def _id(value, size):
    return value.to_bytes(size, "big") if isinstance(value, int) else bytes.fromhex(value[2:])


def _value(holder, v):
    if isinstance(v, bool):
        holder.bool_value = v
    elif isinstance(v, int):
        holder.int_value = v
    elif isinstance(v, float):
        holder.double_value = v
    elif isinstance(v, str):
        holder.string_value = v
    else:
        holder.string_value = json.dumps(v)


def _request(spans):
    """The spans of an SDK span JSON file as one ExportTraceServiceRequest (ids, times, attributes, status)."""
    request = pb.ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for s in spans:
        span = scope.spans.add(name=s["name"])
        span.trace_id, span.span_id = (
            _id(s["context"]["trace_id"], 16),
            _id(s["context"]["span_id"], 8),
        )
        if (s.get("parent") or {}).get("span_id") is not None:
            span.parent_span_id = _id(s["parent"]["span_id"], 8)
        span.start_time_unix_nano = s["start_time"]
        if s.get("end_time"):
            span.end_time_unix_nano = s["end_time"]
        for key, v in s["attributes"].items():
            _value(span.attributes.add(key=key).value, v)
        span.status.code = {"unset": 0, "ok": 1, "error": 2}[s["status"]["status_code"]]
    return request.SerializeToString()


@pytest.mark.parametrize("name", FILES)
def test_an_otlp_protobuf_file_reads_as_the_spans_it_holds(name, tmp_path):
    raw = json.loads((REAL / name).read_text(encoding="utf-8"))
    spans = list({s["context"]["span_id"]: s for s in raw["spans"]}.values())
    message = _request(spans)
    one = tmp_path / "trace.pb"
    one.write_bytes(message)
    # two requests, each after its length (one span twice: kept once)
    delimited = tmp_path / "collector.proto"
    delimited.write_bytes(b"".join(len(m).to_bytes(4, "big") + m for m in (message, message)))
    want = load_trace(REAL / name)
    ops = [s["attributes"].get("gen_ai.operation.name") for s in spans]
    times = [t for s in spans for t in (s["start_time"], s["end_time"]) if t]
    for path in (one, delimited):
        (run,) = load_traces(path)
        assert run.plan.steps == want.plan.steps and run.model_calls == want.model_calls
        assert run_usage(run).tool_calls == ops.count("execute_tool")
        assert len(run.model_calls) == ops.count("call_llm")
        assert run_usage(run).input_tokens == sum(
            s["attributes"].get("gen_ai.usage.input_tokens", 0) for s in spans
        )
        assert run.time == pytest.approx((max(times) - min(times)) / 1e9, abs=1e-6)
        assert run.trace_format in ("otel", "openinference")


def test_bytes_that_are_no_otlp_request_are_refused(tmp_path):
    junk = tmp_path / "junk.pb"
    junk.write_bytes(b"\x0a\x05\x0a\xff\xff\xff\xff\x00" * 4)  # opens like one, then breaks off
    with pytest.raises(TraceFormatError, match="not an OTLP ExportTraceServiceRequest"):
        load_trace(junk)
    blank = tmp_path / "blank.jsonl"  # text opening with blank lines is still text
    blank.write_text("\n\n\n" + (REAL / FILES[0]).read_text(encoding="utf-8"), encoding="utf-8")
    assert load_trace(blank).plan.steps == load_trace(REAL / FILES[0]).plan.steps
