"""AgentOps' own decorators (SDK 0.4): a span named ``{name}.{kind}`` with ``agentops.span.kind`` (session, agent,
workflow, task, tool...), ``operation.name`` (``agentops.operation.name`` earlier), the Python call as
``{"args": [...], "kwargs": {...}}`` in ``agentops.{kind}.input`` (``agentops.entity.input`` earlier) and the result
in ``agentops.{kind}.output``; its model calls come from the OpenLLMetry instrumentors (``llm.request.type``).
No permissively licensed span file was found; the spans follow ``_create_as_current_span`` /
``_record_entity_input`` / ``_record_entity_output`` of AgentOps-AI/agentops agentops/sdk/decorators/utility.py
and AgentOps' recorded ``openai.chat`` snapshot (tests/integration/test_openai_instrumentation.py, MIT). Before,
a tool span was no tool call (the run had no step: ``no_tool_calls``). The truth is computed here."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace

TRACE = "0x7e1d2c3b4a5f60718293a4b5c6d7e8f9"


def _span(sid, parent, name, start, end, attrs):
    return {"name": name, "context": {"trace_id": TRACE, "span_id": sid}, "parent_id": parent,
            "start_time": start, "end_time": end, "status": {"status_code": "OK"}, "attributes": attrs}  # fmt: skip


def _spans(prefix):
    kind = "entity" if prefix else "tool"
    tool = {"agentops.span.kind": "tool", f"{prefix}operation.name": "lookup_weather",
            f"agentops.{kind}.input": json.dumps({"args": [], "kwargs": {"city": "Paris"}}),
            f"agentops.{kind}.output": json.dumps({"sky": "sunny", "temp": 21})}  # fmt: skip
    return [
        _span("0x00000000000000b1", None, "default.session", "2025-04-01T09:00:00Z", "2025-04-01T09:00:04Z",
              {"agentops.span.kind": "session", f"{prefix}operation.name": "default"}),
        _span("0x00000000000000b2", "0x00000000000000b1", "openai.chat", "2025-04-01T09:00:00.5Z",
              "2025-04-01T09:00:01.5Z",
              {"llm.request.type": "chat", "gen_ai.system": "OpenAI", "gen_ai.request.model": "gpt-4o-mini",
               "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Weather in Paris?",
               "gen_ai.usage.prompt_tokens": 11, "gen_ai.usage.completion_tokens": 9}),
        _span("0x00000000000000b3", "0x00000000000000b1", "lookup_weather.tool", "2025-04-01T09:00:02Z",
              "2025-04-01T09:00:02.2Z", tool),
    ]  # fmt: skip


@pytest.mark.parametrize("prefix", ["", "agentops."], ids=["sdk-0.4", "earlier"])
def test_an_agentops_tool_span_is_a_tool_call_with_its_keyword_arguments_and_result(
    tmp_path, prefix
):
    spans = _spans(prefix)
    path = tmp_path / "agentops.json"
    path.write_text(json.dumps(spans))
    run = load_trace(path)
    tools = [s["attributes"] for s in spans if s["attributes"].get("agentops.span.kind") == "tool"]
    inputs = [next(v for k, v in a.items() if k.endswith(".input")) for a in tools]
    outputs = [next(v for k, v in a.items() if k.endswith(".output")) for a in tools]
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (a[f"{prefix}operation.name"], json.loads(i)["kwargs"]) for a, i in zip(tools, inputs)
    ]
    results = [e.observation.data.get("result") for e in run.events if e.observation is not None]
    assert results == [json.loads(o) for o in outputs]
    chats = [s["attributes"] for s in spans if "llm.request.type" in s["attributes"]]
    assert [(c.input_tokens, c.output_tokens) for c in run.model_calls] == [
        (a["gen_ai.usage.prompt_tokens"], a["gen_ai.usage.completion_tokens"]) for a in chats
    ]
