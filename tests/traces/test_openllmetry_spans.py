"""OpenLLMetry (Traceloop SDK, also under AgentOps) spans: a model call is an ``openai.chat`` /
``anthropic.chat``... span whose only kind is ``llm.request.type`` (``chat``, ``completion``, ``embedding``), with the
messages flattened (``gen_ai.prompt.N.*``, ``gen_ai.completion.N.*``), ``gen_ai.usage.prompt_tokens`` /
``completion_tokens`` and ``llm.usage.total_tokens``; ``@workflow`` / ``@tool`` spans carry ``traceloop.span.kind``
and the Python call as ``traceloop.entity.input`` = ``{"args": [...], "kwargs": {...}}``. The model span's
attributes below are AgentOps' recorded snapshot of a real call (AgentOps-AI/agentops
tests/integration/test_openai_instrumentation.py @ ef381d2, MIT: ``chatcmpl-B62oRQ6...``, 12/16/28 tokens); the
workflow and tool spans around it follow the Traceloop SDK's decorators (``json.dumps({"args": args, "kwargs":
kwargs})``). Before, no model call was read (``run_usage(run).model_calls`` None: "not recorded") and the tool's
arguments were ``{"args": [], "kwargs": {...}}``. The truth is computed from the raw attributes here."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, run_usage

CHAT = {  # AgentOps' snapshot, as recorded
    "llm.request.type": "chat",
    "gen_ai.system": "OpenAI",
    "gen_ai.request.model": "gpt-3.5-turbo",
    "llm.headers": "None",
    "llm.is_streaming": False,
    "gen_ai.openai.api_base": "https://api.openai.com/v1/",
    "gen_ai.prompt.0.role": "user",
    "gen_ai.prompt.0.content": "Write a one-line joke",
    "gen_ai.response.model": "gpt-3.5-turbo-0125",
    "gen_ai.response.id": "chatcmpl-B62oRQ6xvkVtALnBvWP7xaqu9EeB8",
    "llm.usage.total_tokens": 28,
    "gen_ai.usage.completion_tokens": 16,
    "gen_ai.usage.prompt_tokens": 12,
    "gen_ai.completion.0.finish_reason": "stop",
    "gen_ai.completion.0.role": "assistant",
    "gen_ai.completion.0.content": "I used to play piano by ear, but now I use my hands.",
}
TRACE = "0x6f2d3c1b5a4e49d8b7c6a5f4e3d2c1b0"


def _span(sid, parent, name, start, end, attrs):
    return {"name": name, "context": {"trace_id": TRACE, "span_id": sid, "trace_state": "[]"},
            "kind": "SpanKind.CLIENT" if "llm.request.type" in attrs else "SpanKind.INTERNAL",
            "parent_id": parent, "start_time": start, "end_time": end, "status": {"status_code": "UNSET"},
            "attributes": attrs, "events": [], "links": [],
            "resource": {"attributes": {"service.name": "jokes"}, "schema_url": ""}}  # fmt: skip


SPANS = [
    _span("0x1a00000000000001", None, "joke_workflow.workflow", "2025-02-27T10:00:00.000000Z",
          "2025-02-27T10:00:02.500000Z",
          {"traceloop.span.kind": "workflow", "traceloop.workflow.name": "joke_workflow",
           "traceloop.entity.name": "joke_workflow", "traceloop.entity.input": json.dumps({"args": [], "kwargs": {}}),
           "traceloop.entity.output": json.dumps(CHAT["gen_ai.completion.0.content"])}),
    _span("0x1a00000000000002", "0x1a00000000000001", "openai.chat", "2025-02-27T10:00:00.100000Z",
          "2025-02-27T10:00:01.250000Z", dict(CHAT, **{"traceloop.workflow.name": "joke_workflow"})),
    _span("0x1a00000000000003", "0x1a00000000000001", "save_joke.tool", "2025-02-27T10:00:01.300000Z",
          "2025-02-27T10:00:01.400000Z",
          {"traceloop.span.kind": "tool", "traceloop.workflow.name": "joke_workflow",
           "traceloop.entity.name": "save_joke", "traceloop.entity.path": "joke_workflow",
           "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"text": CHAT["gen_ai.completion.0.content"],
                                                                       "path": "jokes.txt"}}),
           "traceloop.entity.output": json.dumps({"saved": True, "bytes": 52})}),
]  # fmt: skip


@pytest.fixture
def run(tmp_path):
    path = tmp_path / "openllmetry_spans.json"
    path.write_text(json.dumps(SPANS, indent=2))
    return load_trace(path)


def test_an_openllmetry_chat_span_is_a_model_call_with_its_tokens_and_messages(run):
    chats = [s["attributes"] for s in SPANS if "llm.request.type" in s["attributes"]]
    assert [
        (c.model, c.input_tokens, c.output_tokens, c.total_tokens, c.input, c.output) for c in run.model_calls
    ] == [
        (a["gen_ai.response.model"], a["gen_ai.usage.prompt_tokens"], a["gen_ai.usage.completion_tokens"],
         a["llm.usage.total_tokens"], a["gen_ai.prompt.0.content"], a["gen_ai.completion.0.content"])
        for a in chats
    ]  # fmt: skip
    usage = run_usage(run)
    assert usage.model_calls == len(chats)
    assert usage.input_tokens == sum(a["gen_ai.usage.prompt_tokens"] for a in chats)
    assert run.plan.goal == chats[0]["gen_ai.prompt.0.content"]


def test_an_openllmetry_tool_span_gives_its_keyword_arguments_and_its_result(run):
    tools = [s["attributes"] for s in SPANS if s["attributes"].get("traceloop.span.kind") == "tool"]
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (a["traceloop.entity.name"], json.loads(a["traceloop.entity.input"])["kwargs"])
        for a in tools
    ]
    results = [e.observation.data.get("result") for e in run.events if e.observation is not None]
    assert results == [json.loads(a["traceloop.entity.output"]) for a in tools]
