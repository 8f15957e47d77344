"""MLflow traces read as runs. The truth is computed here from the raw file, never from planviz.

tests/data/real/mlflow/tool_agent.mlflow3.json is what ``Trace.to_json()`` of mlflow-tracing 3.17.2 wrote for a
small tool-calling agent (see SOURCES.md): base64 ids, nanosecond times, every attribute JSON-encoded, a tool
that raised (status ERROR, an ``exception`` event). Before the MLflow reader, it was refused ("not a trace
planviz reads: it is a JSON object with keys info, data"); MLflow 2's span shape (OpenTelemetry's span JSON)
was read as OpenTelemetry with no tool call and no model call.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from planviz import load_trace, load_traces, parse_trace, run_usage
from planviz.traces import Sample, detect

REAL = Path(__file__).parent.parent / "data" / "real" / "mlflow" / "tool_agent.mlflow3.json"


def _attrs(span):
    return {k: json.loads(v) for k, v in span["attributes"].items()}


def _hex(b64):
    return base64.b64decode(b64).hex() if b64 else None


def _check(run, trace):
    spans = trace["data"]["spans"]
    t0 = min(int(s["start_time_unix_nano"]) for s in spans)
    tools = sorted(
        (s for s in spans if _attrs(s)["mlflow.spanType"] == "TOOL"),
        key=lambda s: int(s["start_time_unix_nano"]),
    )
    assert [s.tool for s in run.plan.steps] == [t["name"] for t in tools]
    assert [s.arguments for s in run.plan.steps] == [_attrs(t)["mlflow.spanInputs"] for t in tools]
    starts = {e.step: e.time for e in run.events if e.kind == "start"}
    for step, t in zip(run.plan.steps, tools):
        assert starts[step.id] == pytest.approx((int(t["start_time_unix_nano"]) - t0) / 1e9)
        assert step.duration == pytest.approx(
            (int(t["end_time_unix_nano"]) - int(t["start_time_unix_nano"])) / 1e9
        )
    failed = [t for t in tools if t["status"]["code"] == "STATUS_CODE_ERROR"]
    fails = [e for e in run.events if e.kind == "fail"]
    assert [e.step for e in fails] == [t["name"] for t in failed]
    for e, t in zip(fails, failed):
        exc = next(ev for ev in t["events"] if ev["name"] == "exception")["attributes"]
        assert exc["exception.message"] in e.message
    assert run.outcome == ("step_failed" if failed else "plan_complete")
    llms = [s for s in spans if _attrs(s)["mlflow.spanType"] in ("LLM", "CHAT_MODEL")]
    assert len(run.model_calls) == len(llms)
    assert sorted(c.start for c in run.model_calls) == pytest.approx(
        sorted((int(s["start_time_unix_nano"]) - t0) / 1e9 for s in llms)
    )
    usage = run_usage(run)
    assert usage.input_tokens == sum(
        _attrs(s)["mlflow.chat.tokenUsage"]["input_tokens"] for s in llms
    )
    assert usage.output_tokens == sum(
        _attrs(s)["mlflow.chat.tokenUsage"]["output_tokens"] for s in llms
    )
    assert {c.model for c in run.model_calls} == {
        _attrs(s)["mlflow.spanInputs"]["model"] for s in llms
    }
    root = next(s for s in spans if not s["parent_span_id"])
    assert run.plan.goal == _attrs(root)["mlflow.spanInputs"]["question"]
    # nesting: the tools run in the agent
    assert all(t["parent_span_id"] == root["span_id"] for t in tools)
    assert run.time == pytest.approx((max(int(s["end_time_unix_nano"]) for s in spans) - t0) / 1e9)


def test_real_mlflow3_trace():
    trace = json.loads(REAL.read_text(encoding="utf-8"))
    run = load_trace(REAL)
    assert run.trace_format == "mlflow"
    assert not [f for f in run.plan.import_findings if f.code == "deviating_attribute"]
    _check(run, trace)


def _as_mlflow2(trace):
    """The same trace in MLflow 2's span shape (what MLflow's Span.from_dict_v2 reads): OTel span JSON."""
    spans = []
    for s in trace["data"]["spans"]:
        code = s["status"]["code"].removeprefix("STATUS_CODE_")
        spans.append(
            {
                "name": s["name"],
                "context": {
                    "span_id": "0x" + _hex(s["span_id"]),
                    "trace_id": "0x" + _hex(s["trace_id"]),
                },
                "parent_id": "0x" + _hex(s["parent_span_id"]) if s["parent_span_id"] else None,
                "start_time": s["start_time_unix_nano"],
                "end_time": s["end_time_unix_nano"],
                "status_code": code,
                "status_message": s["status"]["message"],
                "attributes": s["attributes"],
                "events": [
                    {
                        "name": e["name"],
                        "timestamp": e["time_unix_nano"],
                        "attributes": e["attributes"],
                    }
                    for e in s["events"]
                ],
            }
        )
    info = {
        "request_id": trace["info"]["trace_id"],
        "experiment_id": "0",
        "timestamp_ms": 1,
        "status": "OK",
    }
    return {"info": info, "data": {"spans": spans}}


def test_mlflow2_span_shape():
    trace = json.loads(REAL.read_text(encoding="utf-8"))
    run = parse_trace(json.dumps(_as_mlflow2(trace)))
    assert run.trace_format == "mlflow"
    _check(run, trace)
    # its bare spans ({"spans": [...]}, TraceData.to_dict()) are MLflow's too, not plain OpenTelemetry
    assert parse_trace(json.dumps(_as_mlflow2(trace)["data"])).trace_format == "mlflow"


def test_a_list_of_traces_is_one_run_each(tmp_path):
    trace = json.loads(REAL.read_text(encoding="utf-8"))
    path = tmp_path / "traces.json"
    path.write_text(json.dumps([trace, _as_mlflow2(trace)]))
    runs = load_traces(path)
    assert len(runs) == 2
    for run in runs:
        _check(run, trace)


def test_tokens_from_the_outputs_usage_and_none_when_absent():
    trace = json.loads(REAL.read_text(encoding="utf-8"))
    chats = [s for s in trace["data"]["spans"] if _attrs(s)["mlflow.spanType"] == "CHAT_MODEL"]
    first, second = chats
    usage = _attrs(first)["mlflow.chat.tokenUsage"]
    del (
        first["attributes"]["mlflow.chat.tokenUsage"],
        second["attributes"]["mlflow.chat.tokenUsage"],
    )
    outputs = _attrs(first)["mlflow.spanOutputs"]
    outputs["usage"] = {
        "prompt_tokens": usage["input_tokens"],
        "completion_tokens": usage["output_tokens"],
    }
    first["attributes"]["mlflow.spanOutputs"] = json.dumps(outputs)
    run = parse_trace(json.dumps(trace))
    calls = sorted(run.model_calls, key=lambda c: c.start)
    assert (calls[0].input_tokens, calls[0].output_tokens) == (
        usage["input_tokens"],
        usage["output_tokens"],
    )
    assert (calls[1].input_tokens, calls[1].output_tokens) == (None, None)  # unknown, never 0


def test_detected_from_the_first_bytes():
    assert detect(Sample.of(REAL.read_bytes()[:65536])) == "mlflow"


def test_real_mlflow3_chain_with_a_retriever():
    """rag_chain.mlflow3.json: a CHAIN root, a RETRIEVER (no step), a TOOL and an LLM whose tokens are only in its
    outputs' OpenAI ``usage`` (no ``mlflow.chat.tokenUsage``)."""
    path = REAL.parent / "rag_chain.mlflow3.json"
    spans = json.loads(path.read_text(encoding="utf-8"))["data"]["spans"]
    run = load_trace(path)
    assert run.trace_format == "mlflow"
    kinds = {s["name"]: _attrs(s)["mlflow.spanType"] for s in spans}
    tools = [s for s in spans if kinds[s["name"]] == "TOOL"]
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (t["name"], _attrs(t)["mlflow.spanInputs"]) for t in tools
    ]
    assert "RETRIEVER" in kinds.values() and not any(s.tool == "retrieve" for s in run.plan.steps)
    llms = [s for s in spans if kinds[s["name"]] == "LLM"]
    assert len(run.model_calls) == len(llms) == 1
    usage = _attrs(llms[0])["mlflow.spanOutputs"]["usage"]
    call = run.model_calls[0]
    assert (call.input_tokens, call.output_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    assert call.model == _attrs(llms[0])["mlflow.spanOutputs"]["model"]
    root = next(s for s in spans if not s["parent_span_id"])
    assert run.plan.goal == _attrs(root)["mlflow.spanInputs"]["inputs"]["question"]
    assert run.outcome == "plan_complete"


@pytest.mark.parametrize("name", ["tool_agent.mlflow3.json", "rag_chain.mlflow3.json"])
def test_a_model_call_answers_what_its_span_outputs_say(name):
    """A CHAT_MODEL/LLM span's ``mlflow.spanOutputs`` (an OpenAI chat completion in both files) is what the model
    answered: every MLflow model call's output was None ("calling tools", "Paris, about 2.1 million people."
    were lost)."""
    trace = json.loads((REAL.parent / name).read_text(encoding="utf-8"))
    llms = sorted(
        (
            s
            for s in trace["data"]["spans"]
            if _attrs(s)["mlflow.spanType"] in ("LLM", "CHAT_MODEL")
        ),
        key=lambda s: int(s["start_time_unix_nano"]),
    )
    answers = [_attrs(s)["mlflow.spanOutputs"]["choices"][0]["message"]["content"] for s in llms]
    run = load_trace(REAL.parent / name)
    assert [c.output for c in sorted(run.model_calls, key=lambda c: c.start)] == answers
    assert all(answers)
